// PKE: a linear classifier over explicit conjunction weights, either the
// (exact or thresholded) expansion of a kernel model or a conjunctive linear
// model (Kudo & Matsumoto 2003 §4.2, Eq. 7; seed 000's SVM-KE / SVM-HKE /
// l1-LLM). margin(x) = bias + sum of w(t) over stored t ⊆ x.
#pragma once
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/conjunctive_base.h"

namespace conjunct {

class Pke final : public Classifier, public ConjunctiveBase {
 public:
  Pke(FeatureMap map, ConjunctionStoreView store, Span<double> bias);
  void margins_internal(Span<int32_t> x, double* out) const override;
  const double* constant() const override { return bias_.data; }
  void add_remainder(Span<int32_t> x, size_t p, double* out) const override { store_.add_rarest(x, p, x.size, out); }

 private:
  ConjunctionStore store_;
  Span<double> bias_;
};

}  // namespace conjunct
