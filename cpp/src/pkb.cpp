#include "conjunct/scratch.h"
#include "conjunct/classify/pkb.h"

#include <stdexcept>

namespace conjunct {

namespace {
struct PkbScratch {
  std::vector<uint8_t> marker;
};
}  // namespace

Pkb::Pkb(FeatureMap map, KernelModelView model) : Classifier(map, model.n_outputs()), model_(model) {
  if (model_.alpha.n_rows != model_.n_sv() || model_.alpha.n_outputs != model_.n_outputs())
    throw std::invalid_argument("pkb: alpha must have n_sv rows of n_outputs");
  model_.alpha.validate();
}

void Pkb::margins_internal(Span<int32_t> x, double* out) const {
  // Dense marker of x over internal ids: |s ∩ x| is then |s| lookups, for every s.
  std::vector<uint8_t>& marker = thread_scratch<PkbScratch>().marker;
  const size_t width = x.empty() ? 0 : static_cast<size_t>(x[x.size - 1]) + 1;
  if (marker.size() < width) marker.resize(width, 0);
  for (int32_t f : x) marker[f] = 1;
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = model_.bias[o];
  for (size_t i = 0; i < model_.n_sv(); ++i) {
    int64_t m = 0;
    for (int32_t f : model_.support_vectors.row(i)) m += static_cast<size_t>(f) < width ? marker[f] : 0;
    model_.alpha.add_scaled(i, model_.kernel.value(m), out);
  }
  for (int32_t f : x) marker[f] = 0;
}

}  // namespace conjunct
