// PKI: the polynomial kernel over an inverted index from features to support
// vectors (Kudo & Matsumoto 2003, Figure 1). Only support vectors sharing a
// feature with x are visited; the rest contribute k(0) = coef0^d, folded into
// a per-output constant once at construction.
#pragma once
#include "conjunct/classify/alpha.h"
#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/kernel.h"

namespace conjunct {

struct InvertedIndexView {
  CsrView postings;  // row f: the support vectors that contain internal feature f
  size_t n_sv = 0;
  int64_t max_sv_length = 0;  // bounds the overlap, and so the kernel table
};

class Pki final : public Classifier {
 public:
  Pki(FeatureMap map, PolyKernel kernel, InvertedIndexView index, AlphaRows alpha, Span<double> bias);
  void margins_internal(Span<int32_t> x, double* out) const override;

 private:
  // Counts each support vector's overlap with x through the postings of x's
  // features (in counters of type Count), then adds alpha_s (k(overlap) - k(0)).
  template <class Count>
  void accumulate(Span<int32_t> x, double* out) const;

  InvertedIndexView index_;
  AlphaRows alpha_;
  std::vector<double> base_;   // bias + k(0) * sum_i alpha_i, per output
  std::vector<double> delta_;  // k(m) - k(0), m = 0..max_sv_length
  // Postings of frequent features as bitmaps (one bit per support vector), and
  // each feature's offset in bitmaps_ (-1: none); only with one-byte counters.
  std::vector<uint8_t> bitmaps_;
  std::vector<int64_t> bitmap_of_;
};

// Arrays: col_map, inv_indptr / inv_indices (row f: the support vectors
// containing internal feature f), alpha*, bias. Meta: gamma, coef0, degree,
// n_sv, max_sv_length (recomputed on open).
Compiled compile_pki(const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_pki(const Meta& meta, const Sections& arrays);

}  // namespace conjunct
