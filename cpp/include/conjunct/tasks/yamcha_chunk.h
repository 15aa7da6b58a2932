// YamCha-style left-to-right chunking: one multi-class decision per token whose
// features are the token's static (window) features plus the two previous
// decisions ("dynamic features"), so the loop is sequential and runs in C++.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/classify/classifier.h"

namespace conjunct {

// One sentence: per token its static column ids (one CSR row per token), and
// the columns of the dynamic features: prev1[k] / prev2[k] is the column of
// "t[-1]=class k" / "t[-2]=class k", index n_classes the one of "=BOS"
// (-1: unknown to the model, dropped).
struct ChunkSentenceView {
  CsrView tokens;
  Span<int32_t> prev1, prev2;
  size_t size() const { return tokens.rows(); }
};

struct ChunkStats {
  int64_t decisions = 0;
  double classifier_seconds = 0.0;  // measured only when timing is asked for
};

// Class indices of every token of one sentence, decided left to right. With
// `events`, the column ids of every decision are appended (rows in events_ptr).
void yamcha_chunk(const Classifier& clf, const Decision& decision, bool early_exit, const ChunkSentenceView& s,
                  int32_t* labels, ChunkStats& stats, bool timing, std::vector<int64_t>* events_ptr,
                  std::vector<int32_t>* events);

}  // namespace conjunct
