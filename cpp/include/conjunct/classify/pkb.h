// PKB: the brute-force polynomial-kernel classifier (Kudo & Matsumoto 2003,
// Eq. 5), O(|x| + |s|) per support vector. The oracle every other method is
// tested against, so it evaluates the kernel directly and takes no shortcuts.
#pragma once
#include "conjunct/classify/alpha.h"
#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/kernel.h"

namespace conjunct {

struct KernelModelView {
  PolyKernel kernel;
  CsrView support_vectors;  // internal ids, ascending in each row
  AlphaRows alpha;          // n_sv rows of n_outputs
  Span<double> bias;        // n_outputs
  size_t n_sv() const { return support_vectors.rows(); }
  size_t n_outputs() const { return bias.size; }
};

class Pkb final : public Classifier {
 public:
  Pkb(FeatureMap map, KernelModelView model);
  void margins_internal(Span<int32_t> x, double* out) const override;

 private:
  KernelModelView model_;
};

// Arrays: col_map, sv_indptr / sv_indices (internal ids), alpha*, bias.
// Meta: gamma, coef0, degree.
Compiled compile_pkb(const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_pkb(const Meta& meta, const Sections& arrays);

}  // namespace conjunct
