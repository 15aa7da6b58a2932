// PKE: a linear classifier over explicit conjunction weights, either the
// (exact or thresholded) expansion of a kernel model or a conjunctive linear
// model (Kudo & Matsumoto 2003 §4.2, Eq. 7; SVM-KE / SVM-HKE / l1-LLM of
// Yoshinaga & Kitsuregawa 2009). margin(x) = bias + sum of w(t) over stored t ⊆ x.
#pragma once
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/conjunctive_base.h"

namespace conjunct {

class Pke final : public Classifier, public ConjunctiveBase {
 public:
  Pke(FeatureMap map, ConjunctionStoreView store, Span<double> bias);
  void margins_internal(Span<int32_t> x, double* out) const override;
  int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const override;

  size_t base_outputs() const override { return n_outputs(); }
  const double* constant() const override { return bias_.data; }
  void add_remainder(Span<int32_t> x, size_t p, double* out) const override { store_.add_rarest(x, p, x.size, out); }
  // Position by position (one rarest member at a time), bounded by the
  // weight sums of the conjunctions with that rarest member.
  int64_t decide_remainder(Span<int32_t> x, size_t p, double* out, const Decision& decision) const override;

 private:
  ConjunctionStore store_;
  Span<double> bias_;
};

// Arrays: col_map, bias (the margin of the empty vector), store.*. Meta:
// degree, n_dense, sigma, min_support, n_features, n_conjunctions,
// conjunctions_by_size. Options: sigma, min_support, dense_bytes,
// dense_features, dense_growth, max_conjunctions.
Compiled compile_pke(const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_pke(const Meta& meta, const Sections& arrays);

// The store of a model's conjunctions among features < max_feature (kernel
// expansion, or a linear model's own), with its dense table sized by the
// options: dense_bytes or dense_features, else the 4 MiB default grown by
// dense_growth (default: by up to 1.25x the memory for one output at d >= 3;
// a larger table measured faster there, not for several outputs or d <= 2).
ConjunctionStoreArrays compile_store(const ModelInput& model, const Meta& options, int32_t max_feature, double sigma,
                                     int64_t min_support);
// n_dense, n_conjunctions and conjunctions_by_size of a store.
void set_store_meta(const ConjunctionStoreArrays& store, Meta& meta);

}  // namespace conjunct
