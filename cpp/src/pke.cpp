#include "conjunct/classify/pke.h"

#include <stdexcept>

namespace conjunct {

Pke::Pke(FeatureMap map, ConjunctionStoreView store, Span<double> bias)
    : Classifier(map, bias.size), store_(store), bias_(bias) {
  if (store.n_outputs != bias.size) throw std::invalid_argument("pke: bias does not match the store's outputs");
}

void Pke::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  store_.add_rarest(x, 0, x.size, out);
}

}  // namespace conjunct
