#include "conjunct/scratch.h"
#include "conjunct/classify/pki.h"

#include <stdexcept>

namespace conjunct {

namespace {
struct PkiScratch {
  std::vector<int32_t> count, touched;
};
}  // namespace

Pki::Pki(FeatureMap map, PolyKernel kernel, InvertedIndexView index, AlphaRows alpha, Span<double> bias)
    : Classifier(map, bias.size), index_(index), alpha_(alpha) {
  if (alpha.n_rows != index.n_sv || alpha.n_outputs != bias.size)
    throw std::invalid_argument("pki: alpha must have n_sv rows of n_outputs");
  alpha.validate();
  const double k0 = kernel.value(0);
  base_.assign(bias.begin(), bias.end());
  for (size_t i = 0; i < index.n_sv; ++i) alpha.add_scaled(i, k0, base_.data());
  delta_ = kernel.table(index.max_sv_length);
  for (double& v : delta_) v -= k0;
}

void Pki::margins_internal(Span<int32_t> x, double* out) const {
  // Overlap counts per support vector; zero on entry and on exit.
  PkiScratch& sc = thread_scratch<PkiScratch>();
  std::vector<int32_t>&count = sc.count, &touched = sc.touched;
  if (count.size() < index_.n_sv) count.resize(index_.n_sv, 0);
  touched.clear();
  for (int32_t f : x) {
    if (static_cast<size_t>(f) + 1 >= index_.postings.indptr.size) continue;
    for (int32_t s : index_.postings.row(static_cast<size_t>(f)))
      if (count[s]++ == 0) touched.push_back(s);
  }
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = base_[o];
  if (K == 1 && !alpha_.sparse()) {
    double sum = 0.0;
    for (int32_t s : touched) {
      sum += delta_[count[s]] * alpha_.dense[s];
      count[s] = 0;
    }
    out[0] += sum;
    return;
  }
  for (int32_t s : touched) {
    alpha_.add_scaled(static_cast<size_t>(s), delta_[count[s]], out);
    count[s] = 0;
  }
}

}  // namespace conjunct
