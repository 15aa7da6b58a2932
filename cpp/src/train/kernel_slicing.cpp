#include "conjunct/train/kernel_slicing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace conjunct {

namespace {

// Relative slack of the termination test. The bounds prove "no update" only
// when they clear the threshold by this fraction of an upper bound of the
// margin's scale (|b| + sum |alpha_i k(s_i, x)|): far more than any
// summation-order error of any margin mode (about 1e-16 per term), so
// terminating never changes a decision.
constexpr double kBoundSlack = 1e-12;

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
      stats_stride_(2 * S.n_outputs() + 2),
      acc_(S.n_outputs()),
      part_(S.n_outputs()),
      abs_(S.n_outputs()),
      hw_popcount_(cpu_has_popcount()) {
  grow_tables(1);
}

void KernelSlicing::ensure_features(size_t n_features) {
  if (n_features <= n_features_) return;
  n_features_ = n_features;
  postings_.resize(n_features);
  mark_.resize(n_features, 0);
  stats_.resize(n_features * stats_stride_, 0.0);
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

void KernelSlicing::expect_rows(size_t rows, size_t nnz) {
  // The remembered nodes take a word per feature of each row plus one per
  // row: reserved at once, as doubling would keep up to half unused (and
  // both copies while it moves), for the first data; later data (other rows
  // under the same ids) grows from there.
  if (!opt_.reuse || !row_nodes_.empty()) return;
  row_at_.reserve(rows);
  row_nodes_.reserve(nnz + rows);
}

void KernelSlicing::find_nodes(Span<int32_t> x, int64_t row) {
  // The trie nodes of x's prefixes, into nodes_. A training row met before
  // has them remembered, as one chain (the prefixes of the row as it was):
  // they are x's as far as their labels match x's features, and the walk
  // resumes at the first that does not, if any.
  const size_t n = x.size;
  nodes_.resize(n);
  uint32_t* cached = nullptr;
  size_t cap = 0;
  if (row >= 0 && n > 0) {
    const size_t r = static_cast<size_t>(row);
    if (r >= row_at_.size()) row_at_.resize(r + 1, -1);
    int64_t& at = row_at_[r];
    if (at < 0) {  // first visit: room for the row's nodes (its length first)
      at = static_cast<int64_t>(row_nodes_.size());
      row_nodes_.push_back(static_cast<uint32_t>(n));
      row_nodes_.resize(row_nodes_.size() + n, HashTrie::kRoot);
    }
    // Another row of another length under the same id (other data): the
    // room it has, if enough, else no memory for it.
    cap = row_nodes_[static_cast<size_t>(at)];
    if (cap >= n) cached = row_nodes_.data() + at + 1;
  }
  size_t j = 0;
  uint32_t node = HashTrie::kRoot;
  if (cached) {
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(partial_.record(cached[i]));
    for (; j < n && partial_.ends_in(cached[j], x[j]); ++j) nodes_[j] = node = cached[j];
    counters_.remembered += static_cast<int64_t>(j);
  }
  if (j == n) return;
  // The rest by walking: the slots of the prefixes are known from x alone,
  // so fetch them all before (the walk would otherwise miss the cache once
  // per level, one miss after another).
  places_.resize(n);
  uint64_t place = PartialMarginTrie::kRoot;
  for (size_t i = 0; i < n; ++i) {
    places_[i] = place = PartialMarginTrie::next(place, x[i]);
    if (i > j) partial_.prefetch(place);
  }
  for (; j < n; ++j) {
    nodes_[j] = node = partial_.step(node, x[j], places_[j]);
    if (cached) cached[j] = node;
  }
  // The memory stays one chain, x's prefixes: a longer row's nodes past x
  // are forgotten (the root matches no feature).
  if (cached)
    for (uint32_t* c = cached + n; c != cached + cap && *c != HashTrie::kRoot; ++c) *c = HashTrie::kRoot;
}

KernelSlicing::Step KernelSlicing::plan(Span<int32_t> x, size_t j, uint32_t node) const {
  const int32_t f = x[j];
  Step st;
  st.node = node;
  const bool P = has_postings(f);
  st.start = opt_.reuse ? partial_.since(node) : 0;  // the updates of f new since the stored partial margin
  st.end = P ? static_cast<uint32_t>(stats_[static_cast<size_t>(f) * stats_stride_]) : 0;
  st.eq6 = f >= weights_.limit();
  if (!st.eq6 && opt_.choose && P) {
    // Eq. 7: features examined by Eq. 6 (the stored value, then each new
    // update against the j earlier features) vs by Eq. 5 (the trie). An
    // update costs at least its visit, also for j = 0, where the paper's
    // count (|S_j| |x_{j-1}| = 0) would send every update of the most
    // frequent feature through Eq. 6.
    const double fresh = static_cast<double>(st.end - st.start);
    st.eq6 = 1.0 + fresh * static_cast<double>(std::max<size_t>(j, 1)) <= eq5_cost_[j];
  }
  st.cost = st.eq6 ? 1.0 + static_cast<double>(st.end - st.start) : eq5_cost_[j];
  return st;
}

void KernelSlicing::compute(Span<int32_t> x, size_t j, const Step& st, double* part) {
  const size_t K = K_;
  // One output inline: a library call (memset / memcpy) per 8-byte row cost
  // more than the row.
  if (K == 1) part[0] = 0.0;
  else std::fill(part, part + K, 0.0);
  if (st.eq6) {
    ++counters_.kernel_steps;
    if (st.start > 0) {
      ++counters_.reused;
      const double* delta = partial_.record(st.node) + PartialMarginTrie::kDelta;
      if (K == 1) part[0] = delta[0];
      else std::copy(delta, delta + K, part);
    }
    const int32_t f = x[j];
    const size_t width = posting_width(f);
    const uint32_t* p = postings_[static_cast<size_t>(f)].data() + st.start * width;
    const uint32_t* end = p + (st.end - st.start) * width;
    counters_.postings += st.end - st.start;
    if (hw_popcount_) eq6_hw(f, p, end, part);
    else eq6_sw(f, p, end, part);
  } else {
    ++counters_.expanded_steps;
    counters_.trie_lookups += static_cast<int64_t>(weights_.partial(x.data, j, part, trie_scratch_));
  }
  if (opt_.reuse) {
    // (t', the running sums of f_j's updates then, m^j)
    double* rec = partial_.record(st.node);
    const double* fs = stats_.data() + static_cast<size_t>(x[j]) * stats_stride_;
    partial_.set_since(st.node, st.end);
    rec[PartialMarginTrie::kSumA] = K == 1 ? fs[1] : fs[2 * K + 1];
    rec[PartialMarginTrie::kSumB] = K == 1 ? fs[2] : 0.0;
    if (K == 1) rec[PartialMarginTrie::kDelta] = part[0];
    else std::copy(part, part + K, rec + PartialMarginTrie::kDelta);
  }
}

void KernelSlicing::bound_step(Span<int32_t> x, size_t j, const Step& st, double* low, double* up, double* mag) const {
  // Bounds of m^j (Eq. 8-9): every update containing f_j contributes
  // tau * (k(o + 1) - k(o)) with o in [0, j], so between tau times the
  // smallest and the largest increment over that range. When a partial
  // margin of the prefix x_j is stored, m^j = stored + the updates since
  // (Eq. 6), and bounding only those is usually far tighter; both bounds
  // hold, so both are used. mag collects the magnitudes involved, for the
  // rounding allowance.
  const size_t K = K_, f = static_cast<size_t>(x[j]);
  const double* fs = stats_.data() + f * stats_stride_;
  const double* ap = fs + 1;
  const double* an = fs + 1 + K;
  const double lo = inc_min_[j], hi = inc_max_[j];
  const double widest = std::max(std::fabs(lo), std::fabs(hi));
  const double* delta = nullptr;
  double fresh_pos = 0.0, fresh_neg = 0.0, total = 0.0;
  if (opt_.reuse && st.start > 0) {
    // The running sums now less those when m^j was stored: the updates since.
    const double* rec = partial_.record(st.node);
    delta = rec + PartialMarginTrie::kDelta;
    if (K == 1) {
      fresh_pos = ap[0] - rec[PartialMarginTrie::kSumA];
      fresh_neg = an[0] - rec[PartialMarginTrie::kSumB];
      total = ap[0] - an[0];
    } else {
      fresh_pos = fs[2 * K + 1] - rec[PartialMarginTrie::kSumA];
      total = fs[2 * K + 1];
    }
  }
  for (size_t o = 0; o < K; ++o) {
    double u = ap[o] * hi + an[o] * lo;
    double l = ap[o] * lo + an[o] * hi;
    double m = (ap[o] - an[o]) * widest;  // >= sum of |tau k'| over the updates containing f_j
    if (delta) {
      const double u2 = K == 1 ? delta[o] + fresh_pos * hi + fresh_neg * lo : delta[o] + fresh_pos * widest;
      const double l2 = K == 1 ? delta[o] + fresh_pos * lo + fresh_neg * hi : delta[o] - fresh_pos * widest;
      u = std::min(u, u2);
      l = std::max(l, l2);
      m += std::fabs(delta[o]) + total * widest;
    }
    low[o] = l, up[o] = u, mag[o] = m;
  }
}

bool KernelSlicing::proven(const MarginGoal& goal, double* bound) const {
  // acc_: the partial margins computed; lower_ / upper_: bounds of the rest;
  // abs_ + slack_: an upper bound of the margin's scale, per output.
  const size_t K = K_;
  const double* U = upper_.data();
  const double* L = lower_.data();
  const double* S = slack_.data();
  if (K == 1) {
    const double v = acc_[0] + goal.bias[0];
    const double low = goal.label > 0 ? v + L[0] : -(v + U[0]);
    if (low > goal.threshold + kBoundSlack * (1.0 + abs_[0] + S[0])) {
      *bound = low;
      return true;
    }
    return false;
  }
  // Multi-class: the true class's lowest margin must beat every rival's highest.
  const size_t y = static_cast<size_t>(goal.label);
  const double low_y = acc_[y] + goal.bias[y] + L[y];
  double worst = std::numeric_limits<double>::infinity();
  for (size_t r = 0; r < K; ++r) {
    if (r == y) continue;
    const double gap = low_y - (acc_[r] + goal.bias[r] + U[r]);
    const double slack = kBoundSlack * (1.0 + abs_[y] + S[y] + abs_[r] + S[r]);
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
  trie_scratch_.next_example();
  for (int32_t f : x) {
    mark_[static_cast<size_t>(f)] = 1;
    if (f < kBitRanks) x_bits_[f >> 6] |= uint64_t{1} << (f & 63);
  }
  const double k0 = kernel_.value(0);
  const double* sum = S_.alpha_sum();
  for (size_t o = 0; o < K; ++o) acc_[o] = k0 * sum[o];  // m^0 (Eq. 3)
  double* part = part_.data();
  bool stopped = false;
  if (opt_.reuse) find_nodes(x, goal.row);
  else nodes_.assign(n, HashTrie::kRoot);
  const uint32_t* nodes = nodes_.data();
  const bool terminate = opt_.terminate && goal.enabled && (!opt_.adaptive || choose_termination());
  if (!terminate) {
    // Algorithm 2: frequent to rare.
    for (size_t j = 0; j < n; ++j) {
      compute(x, j, plan(x, j, nodes[j]), part);
      if (K == 1) acc_[0] += part[0];
      else
        for (size_t o = 0; o < K; ++o) acc_[o] += part[o];
    }
  } else {
    // With termination, every partial margin is planned and bounded first;
    // then they are computed in order of bound width per unit of cost (any
    // order gives the same sum: each depends only on its own prefix), and
    // before each one the bounds of those still missing may prove that x
    // needs no update. Loose and cheap ones go first, so what is left when
    // the bounds suffice is what was tightly bounded for its cost (reused
    // partial margins with few updates since; rare features).
    planned_ += static_cast<int64_t>(n);
    steps_.resize(n);
    order_.resize(n);
    low_.resize(n * K), up_.resize(n * K), parts_.resize(n * K);
    upper_.assign(K, 0.0), lower_.assign(K, 0.0), slack_.assign(K, 0.0);
    mag_.resize(K);
    double* mag = mag_.data();
    for (size_t j = 0; j < n; ++j) {  // fetch what planning needs
      steps_[j].node = nodes[j];
      __builtin_prefetch(stats_.data() + static_cast<size_t>(x[j]) * stats_stride_);
    }
    for (size_t j = 0; j < n; ++j) {
      steps_[j] = plan(x, j, steps_[j].node);
      bound_step(x, j, steps_[j], low_.data() + j * K, up_.data() + j * K, mag);
      double width = 0.0;
      for (size_t o = 0; o < K; ++o) {
        lower_[o] += low_[j * K + o], upper_[o] += up_[j * K + o];
        slack_[o] += mag[o];
        width += up_[j * K + o] - low_[j * K + o];
      }
      const double gain = width / steps_[j].cost;
      steps_[j].gain = std::isnan(gain) ? 0.0 : gain;  // (a NaN would break the sort's ordering)
      order_[j] = static_cast<uint32_t>(j);
    }
    // Ties by position: the order a stable sort gives, without the buffer
    // std::stable_sort allocates on every call.
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
      const double ga = steps_[a].gain, gb = steps_[b].gain;
      return ga > gb || (ga == gb && a < b);
    });
    const double* abs_sum = S_.alpha_abs_sum();
    for (size_t o = 0; o < K; ++o) abs_[o] = std::fabs(goal.bias[o]) + std::fabs(k0) * abs_sum[o];
    for (size_t i = 0; i < n; ++i) {
      if (proven(goal, bound)) {
        stopped = true;
        counters_.skipped_steps += static_cast<int64_t>(n - i);
        break;
      }
      const size_t j = order_[i];
      double* pj = parts_.data() + j * K;
      compute(x, j, steps_[j], pj);
      for (size_t o = 0; o < K; ++o) {
        acc_[o] += pj[o];
        lower_[o] -= low_[j * K + o];
        upper_[o] -= up_[j * K + o];
      }
    }
    if (!stopped) {
      // The margin summed frequent to rare, as without termination: the
      // same rounding whichever way the learner computes it.
      for (size_t o = 0; o < K; ++o) acc_[o] = k0 * sum[o];
      for (size_t j = 0; j < n; ++j)
        for (size_t o = 0; o < K; ++o) acc_[o] += parts_[j * K + o];
    }
  }
  for (int32_t f : x) mark_[static_cast<size_t>(f)] = 0;
  std::fill(x_bits_, x_bits_ + kBitWords, 0);
  if (stopped) {
    ++counters_.terminated;
    return false;
  }
  std::copy(acc_.begin(), acc_.end(), out);
  return true;
}

bool KernelSlicing::choose_termination() {
  if (block_left_-- > 0) return block_terminates_;
  const double now = work();
  if (blocks_ > 0) {
    const double per_margin = (now - block_start_) / kBlock;
    double& c = cost_[block_terminates_ ? 1 : 0];
    c = c < 0 ? per_margin : 0.5 * (c + per_margin);
  }
  // Measure each mode once, then keep the faster one, with one block in
  // kExplore of the other (its cost moves as training converges).
  bool next;
  if (cost_[1] < 0) next = true;
  else if (cost_[0] < 0) next = false;
  else next = (cost_[1] <= cost_[0]) != (blocks_ % kExplore == kExplore - 1);
  ++blocks_;
  block_terminates_ = next;
  block_start_ = now;
  block_left_ = kBlock - 1;
  ++counters_.adaptive_blocks;
  if (!next) ++counters_.plain_blocks;
  return next;
}

void KernelSlicing::on_update(const SupportSet& S, size_t e, bool) {
  const Update& u = S.event(e);
  const Span<int32_t> s = S.sv(static_cast<size_t>(u.sv));
  if (sv_bits_.size() < S.n_sv() * kBitWords) {
    const size_t first = sv_bits_.size() / kBitWords;
    sv_bits_.resize(S.n_sv() * kBitWords, 0);
    if (cache_.size() < S.n_sv()) cache_.resize(S.n_sv());
    for (size_t v = first; v < S.n_sv(); ++v) {
      uint32_t bits = 0;
      for (const int32_t f : S.sv(v)) {
        if (f >= kBitRanks) break;
        sv_bits_[v * kBitWords + static_cast<size_t>(f >> 6)] |= uint64_t{1} << (f & 63);
        ++bits;
      }
      cache_[v].bits = bits;
    }
  }
  if (e > UINT32_MAX) throw std::length_error("kernel slicing counts at most 2^32 updates");
  for (size_t p = 0; p < s.size; ++p) {
    const size_t f = static_cast<size_t>(s[p]);
    double* fs = stats_.data() + f * stats_stride_;
    if (has_postings(s[p])) {
      std::vector<uint32_t>& list = postings_[f];
      const size_t width = posting_width(s[p]);
      if (list.size() / width >= UINT32_MAX) throw std::length_error("a feature occurs in more than 2^32 - 1 updates");
      // Grown by a quarter, not doubled: the lists hold much of the learner's
      // memory, and doubling leaves a third of it unused on average.
      if (list.size() + width > list.capacity()) list.reserve(list.size() + list.size() / 4 + 8);
      list.push_back(static_cast<uint32_t>(e));
      if (width == 2) list.push_back(static_cast<uint32_t>(p));
      fs[0] += 1.0;
    }
    auto add = [&](int32_t o, double v) {
      if (v > 0) fs[1 + static_cast<size_t>(o)] += v;
      else fs[1 + K_ + static_cast<size_t>(o)] += v;
    };
    add(u.pos, u.tau);
    if (u.neg >= 0) add(u.neg, -u.tau);
    fs[2 * K_ + 1] += std::fabs(u.tau);
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
  s.partial_bytes = opt_.reuse ? static_cast<int64_t>(partial_.memory_bytes() + row_at_.capacity() * sizeof(int64_t) +
                                                     row_nodes_.capacity() * sizeof(uint32_t))
                               : 0;
  int64_t bytes = static_cast<int64_t>(postings_.capacity() * sizeof(std::vector<uint32_t>));
  for (const auto& p : postings_) bytes += static_cast<int64_t>(p.capacity() * sizeof(uint32_t));
  s.postings_bytes = bytes;
  s.bounds_bytes = static_cast<int64_t>(stats_.capacity() * sizeof(double) + cache_.capacity() * sizeof(Overlap) +
                                        mark_.capacity() + sv_bits_.capacity() * sizeof(uint64_t));
}

}  // namespace conjunct
