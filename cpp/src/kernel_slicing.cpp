#include "conjunct/train/kernel_slicing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace conjunct {

namespace {

// Relative slack of the termination test. The bounds prove "no update" only
// when they clear the threshold by more than any summation-order error of any
// margin mode could move the margin, so terminating never changes a decision.
constexpr double kBoundSlack = 1e-9;

}  // namespace

KernelSlicing::KernelSlicing(const PolyKernel& kernel, const SupportSet& S, const SlicingOptions& options)
    : kernel_(kernel),
      S_(S),
      opt_(options),
      K_(S.n_outputs()),
      // Eq. 6 may serve a common feature (reuse or the Eq. 7 choice), and a
      // budget may turn common features rare: then every feature needs postings.
      postings_from_(options.reuse || options.choose || options.weight_budget > 0 ? 0 : options.limit),
      weights_(kernel, S.n_outputs(), options.limit),
      partial_(S.n_outputs()),
      acc_(S.n_outputs()),
      part_(S.n_outputs()),
      abs_(S.n_outputs()) {
  grow_tables(1);
}

void KernelSlicing::ensure_features(size_t n_features) {
  if (n_features <= n_features_) return;
  n_features_ = n_features;
  postings_.resize(n_features);
  mark_.resize(n_features, 0);
  if (opt_.terminate) {
    apos_.resize(n_features * K_, 0.0);
    aneg_.resize(n_features * K_, 0.0);
  }
}

void KernelSlicing::grow_tables(size_t n) {
  // Entries for overlaps / positions 0 .. n.
  if (inc_.size() > n) return;
  const int d = kernel_.degree;
  for (size_t o = inc_.size(); o <= n; ++o) {
    const double v = kernel_.increment(static_cast<int64_t>(o));
    inc_.push_back(v);
    inc_min_.push_back(o ? std::min(inc_min_.back(), v) : v);
    inc_max_.push_back(o ? std::max(inc_max_.back(), v) : v);
    // Conjunctions of size <= d that contain f_j and j earlier features:
    // sum_{k=1..d} C(j, k-1).
    double cost = 0.0, binom = 1.0;
    for (int k = 1; k <= d; ++k) {
      if (k > 1) binom = binom * static_cast<double>(static_cast<int64_t>(o) - (k - 2)) / (k - 1);
      if (binom <= 0.0) break;
      cost += binom;
    }
    eq5_cost_.push_back(cost);
  }
}

int32_t KernelSlicing::overlap(int32_t sv, uint32_t pos) {
  // |s ∩ x_{j-1}| = how many of the features of s before position pos (all
  // more frequent than f_j) occur in x. Positions only grow within one margin
  // computation, so each support vector is scanned at most once per margin.
  Overlap& c = cache_[static_cast<size_t>(sv)];
  if (c.stamp != stamp_) c.stamp = stamp_, c.scan = 0, c.count = 0;
  if (c.scan < pos) {
    const int32_t* s = S_.features() + S_.ptr()[sv];
    int32_t count = c.count;
    uint32_t i = c.scan;
    do count += mark_[static_cast<size_t>(s[i])];
    while (++i < pos);
    c.scan = i;
    c.count = count;
  }
  return c.count;
}

void KernelSlicing::bounds(Span<int32_t> x) {
  // Eq. 8-9 for every remaining feature f_k, summed from rare to frequent:
  // each update containing f_k contributes tau * (k(o + 1) - k(o)) with o in
  // [0, k - 1], so its contribution lies between tau times the smallest and
  // the largest increment over that range (whichever order the sign of tau needs).
  const size_t n = x.size, K = K_;
  upper_.assign((n + 1) * K, 0.0);
  lower_.assign((n + 1) * K, 0.0);
  for (size_t j = n; j-- > 0;) {
    const size_t f = static_cast<size_t>(x[j]);
    const double* ap = apos_.data() + f * K;
    const double* an = aneg_.data() + f * K;
    const double lo = inc_min_[j], hi = inc_max_[j];
    for (size_t o = 0; o < K; ++o) {
      upper_[j * K + o] = upper_[(j + 1) * K + o] + (ap[o] * hi + an[o] * lo);
      lower_[j * K + o] = lower_[(j + 1) * K + o] + (ap[o] * lo + an[o] * hi);
    }
  }
}

bool KernelSlicing::proven(const MarginGoal& goal, size_t j, double* bound) const {
  const size_t K = K_;
  const double* U = upper_.data() + j * K;
  const double* L = lower_.data() + j * K;
  if (K == 1) {
    const double v = acc_[0] + goal.bias[0];
    const double low = goal.label > 0 ? v + L[0] : -(v + U[0]);
    const double slack = kBoundSlack * (1.0 + abs_[0] + std::fabs(U[0]) + std::fabs(L[0]));
    if (low > goal.threshold + slack) {
      *bound = low;
      return true;
    }
    return false;
  }
  // Multi-class: the true class's lowest margin must beat every rival's highest.
  const size_t y = static_cast<size_t>(goal.label);
  const double low_y = acc_[y] + goal.bias[y] + L[y];
  const double slack_y = abs_[y] + std::fabs(U[y]) + std::fabs(L[y]);
  double worst = std::numeric_limits<double>::infinity();
  for (size_t r = 0; r < K; ++r) {
    if (r == y) continue;
    const double gap = low_y - (acc_[r] + goal.bias[r] + U[r]);
    const double slack = kBoundSlack * (1.0 + slack_y + abs_[r] + std::fabs(U[r]) + std::fabs(L[r]));
    if (!(gap > goal.threshold + slack)) return false;
    worst = std::min(worst, gap);
  }
  *bound = worst;
  return true;
}

bool KernelSlicing::margins(Span<int32_t> x, const MarginGoal& goal, double* out, double* bound) {
  const size_t n = x.size, K = K_;
  ++counters_.margins;
  grow_tables(n);
  if (cache_.size() < S_.n_sv()) cache_.resize(S_.n_sv());
  if (++stamp_ == 0) {  // the stamp wrapped around: forget every cached overlap
    for (Overlap& c : cache_) c.stamp = 0;
    stamp_ = 1;
  }
  for (int32_t f : x) mark_[static_cast<size_t>(f)] = 1;
  const double k0 = kernel_.value(0);
  const double* sum = S_.alpha_sum();
  for (size_t o = 0; o < K; ++o) acc_[o] = k0 * sum[o];  // m^0 (Eq. 3)
  const bool terminate = opt_.terminate && goal.enabled;
  if (terminate) {
    bounds(x);
    const double* abs_sum = S_.alpha_abs_sum();
    for (size_t o = 0; o < K; ++o) abs_[o] = std::fabs(goal.bias[o]) + std::fabs(k0) * abs_sum[o];
  }
  const int32_t limit = weights_.limit();
  uint32_t node = HashTrie::kRoot;
  bool stopped = false;
  for (size_t j = 0; j < n; ++j) {
    if (terminate && proven(goal, j, bound)) {
      stopped = true;
      counters_.skipped_steps += static_cast<int64_t>(n - j);
      break;
    }
    const int32_t f = x[j];
    double* part = part_.data();
    std::fill(part, part + K, 0.0);
    const std::vector<Posting>* P = has_postings(f) ? &postings_[static_cast<size_t>(f)] : nullptr;
    size_t start = 0;  // the updates of f new since the stored partial margin
    if (opt_.reuse) {
      node = partial_.step(node, f);
      start = partial_.since(node);
    }
    bool eq6 = f >= limit;
    if (!eq6 && opt_.choose && P) {
      // Eq. 7: features examined by Eq. 6 (the stored value, then each new
      // event against the j earlier features) vs by Eq. 5 (the trie). An
      // event costs at least its visit, also for j = 0, where the paper's
      // count (|S_j| |x_{j-1}| = 0) would send every event of the most
      // frequent feature through Eq. 6.
      const double fresh = static_cast<double>(P->size() - start);
      eq6 = 1.0 + fresh * static_cast<double>(std::max<size_t>(j, 1)) <= eq5_cost_[j];
    }
    if (eq6) {
      ++counters_.kernel_steps;
      if (start > 0) {
        ++counters_.reused;
        const double* delta = partial_.delta(node);
        std::copy(delta, delta + K, part);
      }
      const Posting* p = P->data() + start;
      const Posting* end = P->data() + P->size();
      counters_.postings += end - p;
      if (K == 1) {
        double m = part[0];
        for (; p != end; ++p) {
          const Update& u = S_.event(p->event);
          m += u.tau * inc_[static_cast<size_t>(overlap(u.sv, p->pos))];
        }
        part[0] = m;
      } else {
        for (; p != end; ++p) {
          const Update& u = S_.event(p->event);
          const double v = u.tau * inc_[static_cast<size_t>(overlap(u.sv, p->pos))];
          part[u.pos] += v;
          if (u.neg >= 0) part[u.neg] -= v;
        }
      }
    } else {
      ++counters_.expanded_steps;
      counters_.trie_lookups += static_cast<int64_t>(weights_.partial(x.data, j, part, trie_scratch_));
    }
    if (opt_.reuse) partial_.store(node, P ? static_cast<uint32_t>(P->size()) : 0, part);
    for (size_t o = 0; o < K; ++o) acc_[o] += part[o];
    if (terminate)
      for (size_t o = 0; o < K; ++o) abs_[o] += std::fabs(part[o]);
  }
  for (int32_t f : x) mark_[static_cast<size_t>(f)] = 0;
  if (stopped) {
    ++counters_.terminated;
    return false;
  }
  std::copy(acc_.begin(), acc_.end(), out);
  return true;
}

void KernelSlicing::on_update(const SupportSet& S, size_t e, bool) {
  const Update& u = S.event(e);
  const Span<int32_t> s = S.sv(static_cast<size_t>(u.sv));
  if (e > UINT32_MAX) throw std::length_error("kernel slicing counts at most 2^32 updates");
  for (size_t p = 0; p < s.size; ++p)
    if (has_postings(s[p])) postings_[static_cast<size_t>(s[p])].push_back(Posting{static_cast<uint32_t>(e), static_cast<uint32_t>(p)});
  if (opt_.terminate) {
    auto add = [&](size_t f, int32_t o, double v) {
      if (v > 0) apos_[f * K_ + static_cast<size_t>(o)] += v;
      else aneg_[f * K_ + static_cast<size_t>(o)] += v;
    };
    for (int32_t f : s) {
      add(static_cast<size_t>(f), u.pos, u.tau);
      if (u.neg >= 0) add(static_cast<size_t>(f), u.neg, -u.tau);
    }
  }
  if (weights_.limit() > 0) weights_.add(s, u.pos, u.neg, u.tau);
  if (opt_.weight_budget > 0) enforce_budget();
}

void KernelSlicing::enforce_budget() {
  // §4.3: when the explicit weights outgrow the budget, halve N and prune the
  // conjunctions of features ranked below it; they move to the kernel side
  // (Eq. 4/6), so every margin stays the same.
  while (weights_.limit() > 0 && weights_.memory_bytes() > static_cast<size_t>(opt_.weight_budget)) {
    const int64_t current = std::min<int64_t>(weights_.limit(), static_cast<int64_t>(n_features_));
    weights_.prune(static_cast<int32_t>(current / 2));
    ++counters_.prunes;
  }
}

void KernelSlicing::stats(MarginStats& s) const {
  s = counters_;
  s.limit = weights_.limit() == INT32_MAX ? -1 : weights_.limit();
  s.weight_nodes = static_cast<int64_t>(weights_.n_conjunctions());
  s.partial_nodes = static_cast<int64_t>(partial_.n_nodes());
  s.weight_bytes = static_cast<int64_t>(weights_.memory_bytes());
  s.partial_bytes = opt_.reuse ? static_cast<int64_t>(partial_.memory_bytes()) : 0;
  int64_t bytes = static_cast<int64_t>(postings_.capacity() * sizeof(std::vector<Posting>));
  for (const auto& p : postings_) bytes += static_cast<int64_t>(p.capacity() * sizeof(Posting));
  s.postings_bytes = bytes;
  s.bounds_bytes = static_cast<int64_t>((apos_.capacity() + aneg_.capacity()) * sizeof(double) +
                                        cache_.capacity() * sizeof(Overlap) + mark_.capacity());
}

}  // namespace conjunct
