#include "conjunct/classify/split.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

Split::Split(FeatureMap map, SplitView view, Span<double> bias)
    : Classifier(map, bias.size), v_(view), store_(view.common), bias_(bias) {
  if (view.common.n_outputs != bias.size || view.alpha.n_outputs != bias.size)
    throw std::invalid_argument("split: outputs do not match");
  if (view.alpha.n_rows != view.support_vectors.rows()) throw std::invalid_argument("split: alpha rows do not match");
  view.alpha.validate();
  for (int32_t s : view.rare_postings.indices)
    if (s < 0 || static_cast<size_t>(s) >= view.support_vectors.rows())
      throw std::invalid_argument("split: postings name an unknown support vector");
  ktable_ = view.kernel.table(view.max_sv_length);
}

void Split::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  add_remainder(x, 0, out);
}

void Split::add_remainder(Span<int32_t> x, size_t p, double* out) const {
  const size_t q = static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v_.n_common) - x.begin());
  if (p < q) store_.add_rarest(x, p, q, out);
  // Rare features beyond both the prefix and the common part go through the kernel.
  const size_t P = std::max(p, q);
  if (P >= x.size) return;
  thread_local std::vector<int32_t> count, touched;
  thread_local std::vector<uint8_t> marker;
  const size_t n_sv = v_.support_vectors.rows();
  if (count.size() < n_sv) count.resize(n_sv, 0);
  touched.clear();
  const size_t n_rare_rows = v_.rare_postings.rows();
  for (size_t j = P; j < x.size; ++j) {
    const size_t r = static_cast<size_t>(x[j] - v_.n_common);
    if (r >= n_rare_rows) continue;
    for (int32_t s : v_.rare_postings.row(r))
      if (count[s]++ == 0) touched.push_back(s);
  }
  if (touched.empty()) return;
  // |s ∩ x[0..P)| by a marker over the prefix: s is ascending, so stop past its last id.
  const int32_t last = P > 0 ? x[P - 1] : -1;
  if (marker.size() < static_cast<size_t>(last + 1)) marker.resize(static_cast<size_t>(last + 1), 0);
  for (size_t j = 0; j < P; ++j) marker[x[j]] = 1;
  for (int32_t s : touched) {
    int64_t m = 0;
    for (int32_t g : v_.support_vectors.row(static_cast<size_t>(s))) {
      if (g > last) break;
      m += marker[g];
    }
    v_.alpha.add_scaled(static_cast<size_t>(s), ktable_[m + count[s]] - ktable_[m], out);
    count[s] = 0;
  }
  for (size_t j = 0; j < P; ++j) marker[x[j]] = 0;
}

}  // namespace conjunct
