#include "conjunct/classify/pkb.h"

#include <stdexcept>

namespace conjunct {

Pkb::Pkb(FeatureMap map, KernelModelView model) : Classifier(map, model.n_outputs()), model_(model) {
  if (model_.alpha.size != model_.n_sv() * model_.n_outputs())
    throw std::invalid_argument("pkb: alpha must have n_sv x n_outputs values");
}

// |a ∩ b| of two ascending id lists.
static int64_t overlap(Span<int32_t> a, Span<int32_t> b) {
  int64_t m = 0;
  size_t i = 0, j = 0;
  while (i < a.size && j < b.size) {
    if (a[i] < b[j]) ++i;
    else if (b[j] < a[i]) ++j;
    else { ++m; ++i; ++j; }
  }
  return m;
}

void Pkb::margins_internal(Span<int32_t> x, double* out) const {
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = model_.bias[o];
  for (size_t i = 0; i < model_.n_sv(); ++i) {
    const double k = model_.kernel.value(overlap(x, model_.support_vectors.row(i)));
    const double* a = model_.alpha.data + i * K;
    for (size_t o = 0; o < K; ++o) out[o] += k * a[o];
  }
}

}  // namespace conjunct
