#include "conjunct/tagging/tag_batch.h"

#include "conjunct/scratch.h"

namespace conjunct {

size_t tag_block_end(const TokenBatch& b, size_t s0, size_t s_end) {
  size_t s1 = s0 + 1;
  while (s1 < s_end && static_cast<size_t>(b.sent_ptr[s1 + 1] - b.sent_ptr[s0]) <= kTagBlockTokens) ++s1;
  return s1;
}

void tag_prepared(const TokenFeatures& features, const ChainModel& model, const TokenBatch& b, TagScratch& s,
                  size_t s0, size_t s1, Method method, size_t beam_width, int32_t* paths, double* scores,
                  int32_t* iterations) {
  for (size_t a = s0; a < s1;) {
    const size_t e = tag_block_end(b, a, s1);
    features.extract_range(b, s.prepared, a, e, s.indptr, s.ids);
    const int64_t t0 = b.sent_ptr[a];
    s.sent_ptr.resize(e - a + 1);
    for (size_t k = a; k <= e; ++k) s.sent_ptr[k - a] = b.sent_ptr[k] - t0;
    decode_batch(model, CsrView{Span<int64_t>(s.indptr.data(), s.indptr.size()), Span<int32_t>(s.ids.data(), s.ids.size())},
                 Span<int64_t>(s.sent_ptr.data(), s.sent_ptr.size()), method, beam_width, paths + t0, scores + a,
                 iterations + a, 1);
    a = e;
  }
}

void tag_batch(const TokenFeatures& features, const ChainModel& model, const TokenBatch& b, Method method,
               size_t beam_width, int32_t* paths, double* scores, int32_t* iterations, int n_threads) {
  if (b.n_sentences == 0) return;
  if (n_threads <= 1) {
    TagScratch& s = thread_scratch<TagScratch>();
    features.prepare(b, s.prepared);
    tag_prepared(features, model, b, s, 0, b.n_sentences, method, beam_width, paths, scores, iterations);
    return;
  }
  std::vector<int64_t> indptr;
  std::vector<int32_t> ids;
  features.extract(b, indptr, ids);
  decode_batch(model, CsrView{Span<int64_t>(indptr.data(), indptr.size()), Span<int32_t>(ids.data(), ids.size())},
               Span<int64_t>(b.sent_ptr, b.n_sentences + 1), method, beam_width, paths, scores, iterations, n_threads);
}

}  // namespace conjunct
