// Kernel splitting (Goldberg & Elhadad 2008; Yoshinaga & Kitsuregawa 2010
// §2.2.3): conjunctions of the common features (internal ids < n_common, the
// top ranks) are expanded; support vectors that share a rare feature with x
// are handled by the kernel through an inverted index over rare features:
//   m(x) = b' + sum_{t ⊆ x~} w~(t) + sum_{s ∋ some rare f ∈ x} alpha_s (k(|s ∩ x|) - k(|s ∩ x~|)),
// where x~ is x's common part and b' includes c_d(0) * sum alpha. Exact at
// every split point: n_common = 0 is PKI, n_common = all features is PKE.
#pragma once
#include <mutex>
#include <vector>

#include "conjunct/classify/alpha.h"
#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/kernel.h"

namespace conjunct {

struct SplitView {
  ConjunctionStoreView common;  // conjunctions of features < n_common
  int32_t n_common = 0;
  PolyKernel kernel;
  CsrView support_vectors;      // internal ids, ascending
  CsrView rare_postings;        // row f - n_common: support vectors that contain rare feature f
  AlphaRows alpha;
  int64_t max_sv_length = 0;
};

class Split final : public Classifier, public ConjunctiveBase {
 public:
  Split(FeatureMap map, SplitView view, Span<double> bias);
  void margins_internal(Span<int32_t> x, double* out) const override;
  int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const override;
  // The dense part in one pass, then one check of bounds on the rest (the
  // common trie positions' and the rare block's), one more before the rare
  // block: a parser's decisions settle there, and the walks of the trie and
  // the kernel terms of the rare features are most of what is left.
  int64_t decide_allowed_internal(Span<int32_t> x, const Decision& decision, const uint8_t* allowed,
                                  bool early_exit) const override;

  size_t base_outputs() const override { return n_outputs(); }
  const double* constant() const override { return bias_.data; }
  void add_remainder(Span<int32_t> x, size_t p, double* out) const override;
  // Common positions one by one, then the rare features' kernel terms in one
  // step; bounds need non-negative, non-decreasing kernel increments.
  int64_t decide_remainder(Span<int32_t> x, size_t p, double* out, const Decision& decision) const override;

 private:
  // Per rare feature, 2K values: the sums of the positive, then of the
  // negative alpha of its support vectors (for bounds). Computed on first use.
  const double* rare_sums() const;
  // lo / hi (K each) += bounds of what the rare features at positions q..
  // add, from their postings (a few support vectors each) as they come.
  void add_rare_bounds(Span<int32_t> x, size_t q, double* lo, double* hi) const;
  // The kernel part for the rare features at positions P.. given the prefix x[0..P).
  void add_rare(Span<int32_t> x, size_t P, double* out) const;
  size_t common_end(Span<int32_t> x) const;

  SplitView v_;
  ConjunctionStore store_;
  Span<double> bias_;  // b' = b + c_d(0) * sum_i alpha_i
  std::vector<double> ktable_;
  bool bounded_ = false;  // kernel increments are non-negative and non-decreasing
  mutable std::once_flag bounds_once_;
  mutable std::vector<double> rare_sums_;
};

// Arrays: col_map, bias, store.* (conjunctions of features < n_common),
// sv_indptr / sv_indices, rare_indptr / rare_indices (row f - n_common: the
// support vectors containing rare feature f), alpha*. Meta: degree, gamma,
// coef0, n_dense, n_common, n_features, max_sv_length (recomputed on open),
// n_conjunctions, conjunctions_by_size. Options: common_features (the top N
// ranks) or min_support (features in at least that many support vectors, or
// that share of them when < 1; default 0.5%; at d = 1 every feature), and the
// store's options (see compile_store).
Compiled compile_split(const Sections& inputs, const Meta& model, const Meta& options);

// What a degree-2 split classifier's file may leave out, recomputed from the
// rest: the store's weights (store.dense, and store.weight or
// store.row_value) from the support vectors and alpha, summed as
// compile_split's expansion sums them (per conjunction and output, the
// positive alpha in support-vector order, then the negative ones, then
// c_r * (pos + neg)), so every value is the compiled one bit for bit; and the
// rare postings (rare_indptr / rare_indices, the support vectors
// transposed). The store's trie (and sparse rows' outputs) come from the
// arrays; without the trie's three sections, the trie is rebuilt from the
// support vectors (every conjunction of common features they hold, laid out
// as expand_kernel lays it) and returned too. Throws std::invalid_argument
// when the arrays do not fit together.
// The sums run on up to n_threads threads (0: as many as the work is worth,
// at most 4 and the machine's), each over its own features' rows; the result
// does not depend on it.
Sections split_derived_sections(const Meta& meta, const Sections& arrays, size_t n_threads = 0);
std::unique_ptr<Classifier> open_split(const Meta& meta, const Sections& arrays);

}  // namespace conjunct
