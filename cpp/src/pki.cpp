#include "conjunct/classify/pki.h"

#include <stdexcept>

namespace conjunct {

Pki::Pki(FeatureMap map, PolyKernel kernel, InvertedIndexView index, Span<double> alpha, Span<double> bias)
    : Classifier(map, bias.size), index_(index), alpha_(alpha) {
  const size_t K = bias.size;
  if (alpha.size != index.n_sv * K) throw std::invalid_argument("pki: alpha must have n_sv x n_outputs values");
  const double k0 = kernel.value(0);
  base_.assign(bias.begin(), bias.end());
  for (size_t i = 0; i < index.n_sv; ++i)
    for (size_t o = 0; o < K; ++o) base_[o] += k0 * alpha[i * K + o];
  delta_ = kernel.table(index.max_sv_length);
  for (double& v : delta_) v -= k0;
}

void Pki::margins_internal(Span<int32_t> x, double* out) const {
  // Overlap counts per support vector; zero on entry and on exit.
  thread_local std::vector<int32_t> count;
  thread_local std::vector<int32_t> touched;
  if (count.size() < index_.n_sv) count.resize(index_.n_sv, 0);
  touched.clear();
  for (int32_t f : x) {
    if (static_cast<size_t>(f) + 1 >= index_.postings.indptr.size) continue;
    for (int32_t s : index_.postings.row(static_cast<size_t>(f)))
      if (count[s]++ == 0) touched.push_back(s);
  }
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = base_[o];
  if (K == 1) {
    double sum = 0.0;
    for (int32_t s : touched) {
      sum += delta_[count[s]] * alpha_[s];
      count[s] = 0;
    }
    out[0] += sum;
    return;
  }
  for (int32_t s : touched) {
    const double k = delta_[count[s]];
    const double* a = alpha_.data + static_cast<size_t>(s) * K;
    for (size_t o = 0; o < K; ++o) out[o] += k * a[o];
    count[s] = 0;
  }
}

}  // namespace conjunct
