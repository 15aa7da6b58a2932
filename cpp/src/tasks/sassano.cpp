#include "conjunct/tasks/sassano.h"

#include <chrono>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct SassanoScratch {
  BunsetsuFeaturizer::Sentence sentence;
  std::vector<int32_t> x, stack;
};
}  // namespace

void sassano_parse(const BunsetsuFeaturizer& features, const SassanoJudge& judge, const BunsetsuTokens& tokens,
                   int64_t b, int64_t e, int32_t* heads, ParseStats& stats, bool timing,
                   std::vector<int64_t>* events_ptr, std::vector<int32_t>* events, std::vector<int8_t>* labels) {
  const size_t n = static_cast<size_t>(e - b);
  for (size_t k = 0; k < n; ++k) heads[k] = -1;
  if (n < 2) return;
  SassanoScratch& sc = thread_scratch<SassanoScratch>();
  std::vector<int32_t>&x = sc.x, &stack = sc.stack;
  // Parsing (not collecting columns): the classifier's internal ids straight from the features.
  const bool internal = judge.gold == nullptr && events == nullptr;
  features.prepare(tokens, b, e, sc.sentence, internal ? &judge.clf->feature_map() : nullptr);
  stack.clear();
  auto ask = [&](size_t i, size_t j) {
    features.pair(sc.sentence, i, j, heads, x);
    if (events != nullptr) {
      events->insert(events->end(), x.begin(), x.end());
      events_ptr->push_back(static_cast<int64_t>(events->size()));
    }
    ++stats.decisions;
    bool answer;
    if (judge.gold != nullptr) {
      answer = judge.gold[i] == static_cast<int32_t>(j);
    } else if (!timing) {
      answer = internal ? decide_internal(*judge.clf, judge.decision, judge.depends, judge.early_exit, x)
                        : decide(*judge.clf, judge.decision, judge.depends, judge.early_exit, x);
    } else {
      const auto start = std::chrono::steady_clock::now();
      answer = internal ? decide_internal(*judge.clf, judge.decision, judge.depends, judge.early_exit, x)
                        : decide(*judge.clf, judge.decision, judge.depends, judge.early_exit, x);
      stats.classifier_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (labels != nullptr) labels->push_back(answer ? 1 : -1);
    return answer;
  };
  sassano_loop(n, heads, stack, ask);
}

}  // namespace conjunct
