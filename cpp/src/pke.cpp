#include "conjunct/scratch.h"
#include "conjunct/classify/pke.h"

#include <stdexcept>

namespace conjunct {

namespace {
struct PkeScratch {
  std::vector<double> m;
};
}  // namespace

Pke::Pke(FeatureMap map, ConjunctionStoreView store, Span<double> bias)
    : Classifier(map, bias.size), store_(store), bias_(bias) {
  if (store.n_outputs != bias.size) throw std::invalid_argument("pke: bias does not match the store's outputs");
}

int64_t Pke::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  std::vector<double>& m = thread_scratch<PkeScratch>().m;
  m.assign(bias_.begin(), bias_.end());
  if (!early_exit) {
    store_.add_rarest(x, 0, x.size, m.data());
    return decision.decide(m.data());
  }
  return decide_with_bounds(*this, x, 0, m.data(), decision);
}

void Pke::position_bounds(Span<int32_t> x, size_t j, double* lo, double* hi) const {
  std::call_once(bounds_once_, [&] { store_.rarest_bounds(bound_lo_, bound_hi_); });
  const size_t K = n_outputs();
  const size_t f = static_cast<size_t>(x[j]);
  for (size_t o = 0; o < K; ++o) lo[o] += bound_lo_[f * K + o], hi[o] += bound_hi_[f * K + o];
}

void Pke::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  store_.add_rarest(x, 0, x.size, out);
}

}  // namespace conjunct
