#include "conjunct/scratch.h"
#include "conjunct/tasks/sassano.h"

#include <chrono>

namespace conjunct {

namespace {
struct SassanoScratch {
  std::vector<int32_t> x, stack;
};
}  // namespace

void sassano_parse(const Classifier& clf, const Decision& decision, int64_t depends, bool early_exit,
                   const BunsetsuSentenceView& s, int32_t* heads, ParseStats& stats, bool timing,
                   std::vector<int64_t>* events_ptr, std::vector<int32_t>* events) {
  const size_t n = s.size();
  for (size_t k = 0; k < n; ++k) heads[k] = -1;
  if (n < 2) return;
  SassanoScratch& sc = thread_scratch<SassanoScratch>();
  std::vector<int32_t>&x = sc.x, &stack = sc.stack;
  stack.clear();
  auto ask = [&](size_t i, size_t j) {
    x.clear();
    for (int32_t c : s.modifier.row(i)) x.push_back(c);
    for (int32_t c : s.head.row(j)) x.push_back(c);
    const size_t d = j - i;
    const int32_t dist = s.distance[d == 1 ? 0 : (d <= 5 ? 1 : 2)];
    if (dist >= 0) x.push_back(dist);
    for (size_t k = i + 1; k < j; ++k)
      for (int32_t c : s.between.row(k)) x.push_back(c);
    if (events != nullptr) {
      events->insert(events->end(), x.begin(), x.end());
      events_ptr->push_back(static_cast<int64_t>(events->size()));
    }
    ++stats.decisions;
    if (!timing) return clf.predict(Span<int32_t>(x), decision, early_exit) == depends;
    const auto start = std::chrono::steady_clock::now();
    const bool answer = clf.predict(Span<int32_t>(x), decision, early_exit) == depends;
    stats.classifier_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return answer;
  };
  for (size_t j = 1; j < n; ++j) {
    int64_t i = static_cast<int64_t>(j) - 1;
    while (i != -1) {
      if (j == n - 1 || ask(static_cast<size_t>(i), j)) {
        heads[i] = static_cast<int32_t>(j);
        if (stack.empty()) {
          i = -1;
        } else {
          i = stack.back();
          stack.pop_back();
        }
      } else {
        break;
      }
    }
    if (i != -1) stack.push_back(static_cast<int32_t>(i));
  }
}

}  // namespace conjunct
