// A split classifier's choice among allowed classes (Split::decide_allowed_internal).
#include <algorithm>
#include <cmath>
#include <vector>

#include "conjunct/classify/split.h"
#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct AllowedScratch {
  std::vector<double> m, bounds;  // bounds: trie lo, trie hi, rare lo, rare hi, then lo, hi, slack (K each)
};

// Room for rounding of output o, as decide_in_steps gives it.
inline double slack_of(const double* m, const double* lo, const double* hi, size_t o) {
  return 1e-9 * (std::fabs(m[o]) + hi[o] - lo[o]) + 1e-300;
}

// Whether m + [lo, hi] settles the choice (with decide_in_steps' relative room for rounding).
bool check(const Decision& d, const uint8_t* allowed, const double* m, const double* lo, const double* hi,
           size_t K, double* scratch, int64_t* label) {
  if (d.kind == DecisionKind::Argmax) {
    // settled_allowed's test on the same sums, computed where they are read rather than stored first.
    int64_t best = -1;
    double best_lo = 0.0;
    for (size_t o = 0; o < d.n_classes; ++o) {
      if (!allowed[o]) continue;
      const double l = m[o] + lo[o];
      if (best < 0 || l > best_lo) best = static_cast<int64_t>(o), best_lo = l;
    }
    if (best < 0) return false;
    const size_t b = static_cast<size_t>(best);
    const double best_slack = slack_of(m, lo, hi, b);
    for (size_t o = 0; o < d.n_classes; ++o)
      if (allowed[o] && o != b && !(best_lo > m[o] + hi[o] + best_slack + slack_of(m, lo, hi, o))) return false;
    *label = best;
    return true;
  }
  double *l = scratch, *h = scratch + K, *slack = scratch + 2 * K;
  for (size_t o = 0; o < K; ++o) {
    l[o] = m[o] + lo[o];
    h[o] = m[o] + hi[o];
    slack[o] = slack_of(m, lo, hi, o);
  }
  return settled_allowed(d, allowed, l, h, slack, label);
}
}  // namespace

void Split::add_rare_bounds(Span<int32_t> x, size_t q, double* lo, double* hi) const {
  // Each vector gains, per rare feature it shares with x, one increment of the
  // kernel between k(1) - k(0) and k(L) - k(L-1) (L bounds the overlap).
  const int64_t L = std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(x.size), v_.max_sv_length));
  const double inc_lo = ktable_.size() > 1 ? ktable_[1] - ktable_[0] : 0.0;
  const double inc_hi = static_cast<size_t>(L) < ktable_.size() ? ktable_[L] - ktable_[L - 1] : inc_lo;
  const size_t n_rare = v_.rare_postings.rows(), K = n_outputs();
  const AlphaRows& a = v_.alpha;
  auto add = [&](size_t o, double w) {
    if (w > 0) lo[o] += inc_lo * w, hi[o] += inc_hi * w;
    else lo[o] += inc_hi * w, hi[o] += inc_lo * w;
  };
  for (size_t j = q; j < x.size; ++j) {
    const size_t r = static_cast<size_t>(x[j] - v_.n_common);
    if (r >= n_rare) continue;
    for (int32_t s : v_.rare_postings.row(r)) {
      const size_t sv = static_cast<size_t>(s);
      if (a.sparse()) {
        for (int64_t e = a.ptr[sv]; e < a.ptr[sv + 1]; ++e) add(static_cast<size_t>(a.output[e]), a.value[e]);
      } else {
        for (size_t o = 0; o < K; ++o) add(o, a.dense[sv * K + o]);
      }
    }
  }
}

int64_t Split::decide_allowed_internal(Span<int32_t> x, const Decision& decision, const uint8_t* allowed,
                                       bool early_exit) const {
  AllowedScratch& sc = thread_scratch<AllowedScratch>();
  const size_t K = n_outputs();
  sc.m.assign(bias_.begin(), bias_.end());
  double* m = sc.m.data();
  if (!early_exit || !bounded_) {
    add_remainder(x, 0, m);
    return best_allowed(m, decision, allowed);
  }
  // The margin is summed in margins_internal's order (the dense positions,
  // the trie positions, the rare block), so a choice the bounds do not settle
  // is made on the same margins.
  const size_t n = x.size, q = common_end(x);
  const size_t qd = static_cast<size_t>(std::lower_bound(x.begin(), x.begin() + q, store_.n_dense()) - x.begin());
  store_.add_dense_positions(x, 0, qd, m);
  const ConjunctionStore::Walk walk(store_, x);
  if (qd < n) {
    sc.bounds.assign(7 * K, 0.0);
    double *trie_lo = sc.bounds.data(), *trie_hi = trie_lo + K, *rare_lo = trie_hi + K, *rare_hi = rare_lo + K;
    double* tmp = rare_hi + K;
    const float* common = store_.bounds();
    for (size_t j = qd; j < q; ++j) store_.add_bounds(common, x[j], trie_lo, trie_hi);
    add_rare_bounds(x, q, rare_lo, rare_hi);
    int64_t label;
    if (q > qd) {  // the trie positions and the rare block
      for (size_t o = 0; o < K; ++o) trie_lo[o] += rare_lo[o], trie_hi[o] += rare_hi[o];
      if (check(decision, allowed, m, trie_lo, trie_hi, K, tmp, &label)) {
        count_early_exit(n - qd);
        return label;
      }
      for (size_t j = qd; j < q; ++j) walk.add(j, m);
    }
    if (q < n) {
      if (check(decision, allowed, m, rare_lo, rare_hi, K, tmp, &label)) {
        count_early_exit(n - q);
        return label;
      }
      add_rare(x, q, m);
    }
  }
  return best_allowed(m, decision, allowed);
}

}  // namespace conjunct
