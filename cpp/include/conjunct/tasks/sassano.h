// Sassano's (2004) linear-time shift-reduce bunsetsu dependency parser, run in
// C++ from the sentence's tokens: features built by a BunsetsuFeaturizer, one
// classifier call per decision.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/tasks/bunsetsu_features.h"

namespace conjunct {

struct ParseStats {
  int64_t decisions = 0;
  double classifier_seconds = 0.0;  // measured only when timing is asked for
};

// The classifier behind every decision of the loop ("does i depend on j"):
// the one call to change when the classifier interface changes.
inline bool decide(const Classifier& clf, const Decision& decision, int64_t depends, bool early_exit,
                   const std::vector<int32_t>& x) {
  return clf.predict(Span<int32_t>(x), decision, early_exit) == depends;
}

// The same for x in the classifier's internal ids (ascending, distinct).
inline bool decide_internal(const Classifier& clf, const Decision& decision, int64_t depends, bool early_exit,
                            const std::vector<int32_t>& x) {
  return clf.decide_internal(Span<int32_t>(x), decision, early_exit) == depends;
}

// Who answers the decisions: a classifier (`depends` is the class index that
// means "modifies"), or, when gold is set, the gold heads (the oracle: the
// training decisions).
struct SassanoJudge {
  const Classifier* clf = nullptr;
  Decision decision;
  int64_t depends = 1;
  bool early_exit = true;
  const int32_t* gold = nullptr;  // gold heads of the sentence's bunsetsu
};

// Sassano's (2004) shift-reduce loop over n bunsetsu: ask(i, j) decides whether
// i depends on j (asked only when every bunsetsu between them has its head, the
// last one always attaching); heads[i] is set for every i < n - 1. One loop for
// parsing and for the oracle's training decisions.
template <class Ask>
void sassano_loop(size_t n, int32_t* heads, std::vector<int32_t>& stack, Ask&& ask) {
  stack.clear();
  for (size_t j = 1; j < n; ++j) {
    int64_t i = static_cast<int64_t>(j) - 1;
    while (i != -1 && (j == n - 1 || ask(static_cast<size_t>(i), j))) {
      heads[i] = static_cast<int32_t>(j);
      if (stack.empty()) {
        i = -1;
      } else {
        i = stack.back();
        stack.pop_back();
      }
    }
    if (i != -1) stack.push_back(static_cast<int32_t>(i));
  }
}

// Heads (bunsetsu index within the sentence, -1 = root) of bunsetsu [b, e)
// of the tokens. With `events`, the columns of every decision are appended
// (row pointers in events_ptr) and, with `labels`, the answers (+1 / -1).
void sassano_parse(const BunsetsuFeaturizer& features, const SassanoJudge& judge, const BunsetsuTokens& tokens,
                   int64_t b, int64_t e, int32_t* heads, ParseStats& stats, bool timing,
                   std::vector<int64_t>* events_ptr, std::vector<int32_t>* events, std::vector<int8_t>* labels);

}  // namespace conjunct
