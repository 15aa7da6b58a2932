#include "conjunct/tasks/yamcha_chunk.h"

#include <chrono>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct ChunkScratch {
  std::vector<int32_t> x;
};
}  // namespace

void yamcha_chunk(const Classifier& clf, const Decision& decision, bool early_exit, const ChunkSentenceView& s,
                  int32_t* labels, ChunkStats& stats, bool timing, std::vector<int64_t>* events_ptr,
                  std::vector<int32_t>* events) {
  const size_t n = s.size();
  const size_t bos = s.prev1.size - 1;  // the "=BOS" entry
  std::vector<int32_t>& x = thread_scratch<ChunkScratch>().x;
  for (size_t i = 0; i < n; ++i) {
    x.clear();
    for (int32_t c : s.tokens.row(i)) x.push_back(c);
    const size_t t1 = i >= 1 ? static_cast<size_t>(labels[i - 1]) : bos;
    const size_t t2 = i >= 2 ? static_cast<size_t>(labels[i - 2]) : bos;
    if (s.prev1[t1] >= 0) x.push_back(s.prev1[t1]);
    if (s.prev2[t2] >= 0) x.push_back(s.prev2[t2]);
    if (events != nullptr) {
      for (int32_t c : x)
        if (c >= 0) events->push_back(c);
      events_ptr->push_back(static_cast<int64_t>(events->size()));
    }
    ++stats.decisions;
    if (!timing) {
      labels[i] = static_cast<int32_t>(clf.predict(Span<int32_t>(x), decision, early_exit));
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    labels[i] = static_cast<int32_t>(clf.predict(Span<int32_t>(x), decision, early_exit));
    stats.classifier_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
}

}  // namespace conjunct
