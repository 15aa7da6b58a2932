// Sassano's (2004) linear-time shift-reduce bunsetsu dependency parser, run in
// C++ so that a parser's time is the classifier's plus little else.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/classify/classifier.h"

namespace conjunct {

// One sentence's features, as the caller's column ids: per bunsetsu its
// modifier-side, head-side and "between" features; the pair (i, j) is
// modifier[i] + head[j] + distance(j - i) + every between[k], i < k < j.
struct BunsetsuSentenceView {
  CsrView modifier, head, between;  // one row per bunsetsu
  int32_t distance[3];              // columns of distance 1, 2-5, 6+ (-1: unknown)
  size_t size() const { return modifier.rows(); }
};

struct ParseStats {
  int64_t decisions = 0;
  double classifier_seconds = 0.0;  // measured only when timing is asked for
};

// Heads (bunsetsu index, -1 = root) of one sentence; `depends` is the class
// index meaning "modifies". With `events`, the column ids of every decision
// are appended (row pointers in events_ptr).
void sassano_parse(const Classifier& clf, const Decision& decision, int64_t depends, bool early_exit,
                   const BunsetsuSentenceView& s, int32_t* heads, ParseStats& stats, bool timing,
                   std::vector<int64_t>* events_ptr, std::vector<int32_t>* events);

}  // namespace conjunct
