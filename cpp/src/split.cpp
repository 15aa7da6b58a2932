#include "conjunct/scratch.h"
#include "conjunct/classify/split.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

namespace {
struct SplitMargins {
  std::vector<double> m;
};
struct SplitScratch {
  std::vector<int32_t> count, touched;
  std::vector<uint8_t> marker;
};
}  // namespace

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
  bounded_ = view.kernel.gamma >= 0 && view.kernel.coef0 >= 0;
}

size_t Split::common_end(Span<int32_t> x) const {
  return static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v_.n_common) - x.begin());
}

int64_t Split::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  std::vector<double>& m = thread_scratch<SplitMargins>().m;
  m.assign(bias_.begin(), bias_.end());
  if (!early_exit) {
    add_remainder(x, 0, m.data());
    return decision.decide(m.data());
  }
  return decide_with_bounds(*this, x, 0, m.data(), decision);
}

size_t Split::add_step(Span<int32_t> x, size_t p, size_t j, double* out) const {
  const size_t q = common_end(x);
  if (j < q) {
    store_.add_rarest(x, j, j + 1, out);
    return j + 1;
  }
  add_rare(x, std::max(j, p), out);
  return x.size;
}

void Split::position_bounds(Span<int32_t> x, size_t j, double* lo, double* hi) const {
  const size_t K = n_outputs();
  std::call_once(bounds_once_, [&] {
    store_.rarest_bounds(bound_lo_, bound_hi_);
    const size_t n_rare = v_.rare_postings.rows();
    rare_pos_.assign(n_rare * K, 0.0);
    rare_neg_.assign(n_rare * K, 0.0);
    std::vector<double> row(K);
    for (size_t r = 0; r < n_rare; ++r)
      for (int32_t s : v_.rare_postings.row(r)) {
        std::fill(row.begin(), row.end(), 0.0);
        v_.alpha.add_scaled(static_cast<size_t>(s), 1.0, row.data());
        for (size_t o = 0; o < K; ++o) (row[o] > 0 ? rare_pos_ : rare_neg_)[r * K + o] += row[o];
      }
  });
  const int32_t f = x[j];
  if (f < v_.n_common) {
    if (static_cast<size_t>(f) * K < bound_lo_.size())
      for (size_t o = 0; o < K; ++o) lo[o] += bound_lo_[f * K + o], hi[o] += bound_hi_[f * K + o];
    return;
  }
  const size_t r = static_cast<size_t>(f - v_.n_common);
  if (r >= v_.rare_postings.rows()) return;
  // Each vector sharing f gains one sliced increment, between k(1)-k(0) and k(L)-k(L-1).
  const int64_t L = std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(x.size), v_.max_sv_length));
  const double inc_lo = ktable_.size() > 1 ? ktable_[1] - ktable_[0] : 0.0;
  const double inc_hi = static_cast<size_t>(L) < ktable_.size() ? ktable_[L] - ktable_[L - 1] : inc_lo;
  for (size_t o = 0; o < K; ++o) {
    const double pos = rare_pos_[r * K + o], neg = rare_neg_[r * K + o];
    lo[o] += inc_lo * pos + inc_hi * neg;
    hi[o] += inc_hi * pos + inc_lo * neg;
  }
}

void Split::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  add_remainder(x, 0, out);
}

void Split::add_remainder(Span<int32_t> x, size_t p, double* out) const {
  const size_t q = common_end(x);
  if (p < q) store_.add_rarest(x, p, q, out);
  // Rare features beyond both the prefix and the common part go through the kernel.
  add_rare(x, std::max(p, q), out);
}

void Split::add_rare(Span<int32_t> x, size_t P, double* out) const {
  if (P >= x.size) return;
  SplitScratch& sc = thread_scratch<SplitScratch>();
  std::vector<int32_t>&count = sc.count, &touched = sc.touched;
  std::vector<uint8_t>& marker = sc.marker;
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
