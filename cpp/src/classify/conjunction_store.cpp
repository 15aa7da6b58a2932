#include "conjunct/scratch.h"
#include "conjunct/classify/conjunction_store.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/row_sums.h"
#include "conjunct/util/gather.h"

namespace conjunct {

namespace {
struct MarkScratch {
  std::vector<uint64_t> bits;
};
}  // namespace

void Binomials::init(int64_t n_values, int max_r) {
  n = n_values;
  table.assign(static_cast<size_t>((max_r + 1) * n), 0);
  for (int r = 0; r <= max_r; ++r)
    for (int64_t a = 0; a < n; ++a) {
      // C(a, r) by the multiplicative formula; exact for the small r used here.
      int64_t c = 1;
      if (a < r) c = 0;
      else
        for (int k = 1; k <= r; ++k) c = c * (a - r + k) / k;
      table[static_cast<size_t>(r * n + a)] = c;
    }
}

int64_t dense_table_entries(int64_t n, int degree) {
  if (n <= 0) return 0;
  // Rough size first: tables past 2^50 entries fit in no memory, and below it
  // C(n, k) = C(n, k-1) * (n-k+1) / k is exact in int64.
  double rough = 0.0, c = 1.0;
  for (int k = 1; k <= degree && k <= n; ++k) rough += (c = c * static_cast<double>(n - k + 1) / k);
  if (rough > 1e15) throw std::length_error("a dense table over " + std::to_string(n) + " features is too large");
  int64_t total = 0, exact = 1;
  for (int k = 1; k <= degree && k <= n; ++k) total += (exact = exact * (n - k + 1) / k);
  return total;
}

int32_t choose_n_dense(int degree, size_t n_outputs, int32_t n_features, std::optional<int64_t> dense_bytes,
                       std::optional<int64_t> dense_features) {
  if (dense_bytes && dense_features) throw std::invalid_argument("give either dense_bytes or dense_features, not both");
  if (degree > kMaxDenseDegree) return 0;
  if (dense_features) {
    if (*dense_features < 0) throw std::invalid_argument("dense_features must be >= 0");
    return static_cast<int32_t>(std::min<int64_t>(*dense_features, n_features));
  }
  const double budget = static_cast<double>(dense_bytes.value_or(kDefaultDenseBytes));
  auto bytes = [&](int64_t n) {  // the table's bytes, without overflow for any n
    double total = 0.0, c = 1.0;
    for (int k = 1; k <= degree && k <= n; ++k) total += (c = c * static_cast<double>(n - k + 1) / k);
    return total * static_cast<double>(n_outputs) * 8.0;
  };
  int32_t lo = 0, hi = n_features;  // the largest n whose table fits the budget
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

ConjunctionStore::ConjunctionStore(ConjunctionStoreView view)
    : v_(view), dense_rows_(view.degree == 2 && view.n_outputs > 1 ? best_dense_rows(view.n_outputs) : nullptr) {
  if (v_.degree < 1) throw std::invalid_argument("conjunction store: degree must be >= 1");
  if (v_.n_dense > 0 && v_.degree > kMaxDenseDegree)
    throw std::invalid_argument("conjunction store: the dense table supports degree <= 4");
  if (v_.sparse() ? v_.n_outputs < 2 || v_.row_begin.size != v_.trie.n_nodes() + 1 || v_.weight.size != 0
                  : v_.weight.size != v_.trie.n_nodes() * v_.n_outputs)
    throw std::invalid_argument("conjunction store: weights do not match the trie");
  if (v_.trie.child_begin.size != v_.trie.n_nodes() + 1)
    throw std::invalid_argument("conjunction store: malformed trie");
  const int64_t entries = dense_table_entries(v_.n_dense, std::min(v_.degree, kMaxDenseDegree));
  if (v_.dense.size != static_cast<size_t>(entries) * v_.n_outputs)
    throw std::invalid_argument("conjunction store: dense table has the wrong size");
  binom_.init(static_cast<int64_t>(v_.n_dense) + 1, std::min(v_.degree, kMaxDenseDegree));
  int64_t offset = 0;
  for (int r = 1; r <= std::min(v_.degree, kMaxDenseDegree); ++r) {
    level_offset_[r] = offset;
    offset += v_.n_dense > 0 ? binom_(v_.n_dense, r) : 0;
  }
}

namespace {

inline bool marked(const uint64_t* marks, int32_t f) { return (marks[f >> 6] >> (f & 63)) & 1u; }

}  // namespace

template <bool Single>
void ConjunctionStore::add_dense(const int32_t* x, size_t j, double* out) const {
  const size_t K = v_.n_outputs;
  const int64_t a = x[j];
  const double* d = v_.dense.data;
  if (Single) {
    double s = d[level_offset_[1] + a];
    if (v_.degree >= 2) {
      const double* level2 = d + level_offset_[2] + a * (a - 1) / 2;  // C(a, 2)
      if (v_.degree == 2) {
        s += gather_sum(level2, x, j);
      } else {
        const int64_t ca3 = binom_(a, 3), ca4 = v_.degree >= 4 ? binom_(a, 4) : 0;
        double s2 = 0.0, s3 = 0.0;
        for (size_t i = 0; i < j; ++i) {
          const int64_t b = x[i];
          s2 += level2[b];
          s3 += gather_sum(d + level_offset_[3] + ca3 + binom_(b, 2), x, i);
          if (v_.degree >= 4) {
            const int64_t cb3 = binom_(b, 3);
            for (size_t k = 0; k < i; ++k)
              s3 += gather_sum(d + level_offset_[4] + ca4 + cb3 + binom_(x[k], 2), x, k);
          }
        }
        s += s2 + s3;
      }
    }
    out[0] += s;
    return;
  }
  if (v_.degree == 2) {
    dense_rows_(d + level_offset_[1] * K, d + level_offset_[2] * K, x, j, j + 1, K, out);
    return;
  }
  add_row<false>(d + (level_offset_[1] + a) * K, out);
  if (v_.degree < 2) return;
  const double* level2 = d + (level_offset_[2] + binom_(a, 2)) * K;
  const int64_t ca3 = binom_(a, 3);
  for (size_t i = 0; i < j; ++i) {
    const int64_t b = x[i];
    add_row<false>(level2 + b * K, out);
    const double* level3 = d + (level_offset_[3] + ca3 + binom_(b, 2)) * K;
    if (v_.degree == 3) {
      for (size_t k = 0; k < i; ++k) add_row<false>(level3 + static_cast<int64_t>(x[k]) * K, out);
      continue;
    }
    for (size_t k = 0; k < i; ++k) {
      const int64_t c = x[k];
      add_row<false>(level3 + c * K, out);
      const double* level4 = d + (level_offset_[4] + binom_(a, 4) + binom_(b, 3) + binom_(c, 2)) * K;
      for (size_t l = 0; l < k; ++l) add_row<false>(level4 + static_cast<int64_t>(x[l]) * K, out);
    }
  }
}

// Children are more frequent (smaller ids) than their parent, so a child whose
// label is marked sits at an earlier position of x than the parent. At the
// last level every child's weight is added times its mark (0 or 1): no
// branch to mispredict, and the children's weights are contiguous. Nodes with
// far more children than candidates binary-search x's features instead.
// descend() below repeats this walk for K outputs on purpose: the K = 1 walk
// is the hot path of binary models and keeps its sums in two registers.
double ConjunctionStore::descend_one(int32_t node, const uint64_t* marks, const int32_t* xs, size_t n_xs,
                                     int level) const {
  const int32_t* label = v_.trie.label.data;
  const double* w = v_.weight.data;
  const int32_t begin = v_.trie.child_begin[node], end = v_.trie.child_begin[node + 1];
  double s0 = 0.0, s1 = 0.0;
  if (static_cast<size_t>(end - begin) <= 16 * n_xs) {
    if (level == v_.degree) {
      int32_t c = begin;
      for (; c + 2 <= end; c += 2) {
        s0 += static_cast<double>(marked(marks, label[c])) * w[c];
        s1 += static_cast<double>(marked(marks, label[c + 1])) * w[c + 1];
      }
      if (c < end) s0 += static_cast<double>(marked(marks, label[c])) * w[c];
      return s0 + s1;
    }
    for (int32_t c = begin; c < end; ++c) {
      if (!marked(marks, label[c])) continue;
      s0 += w[c];
      if (v_.trie.has_children(c)) s1 += descend_one(c, marks, xs, n_xs, level + 1);
    }
    return s0 + s1;
  }
  const int32_t* lo = label + begin;
  const int32_t* stop = label + end;
  for (size_t i = 0; i < n_xs && lo != stop; ++i) {
    lo = std::lower_bound(lo, stop, xs[i]);
    if (lo == stop || *lo != xs[i]) continue;
    const int32_t c = static_cast<int32_t>(lo - label);
    s0 += w[c];
    if (level < v_.degree && v_.trie.has_children(c)) s1 += descend_one(c, marks, xs, i, level + 1);
  }
  return s0 + s1;
}

void ConjunctionStore::descend(int32_t node, const uint64_t* marks, const int32_t* xs, size_t n_xs, int level,
                               double* out) const {
  const int32_t* label = v_.trie.label.data;
  const int32_t begin = v_.trie.child_begin[node], end = v_.trie.child_begin[node + 1];
  if (static_cast<size_t>(end - begin) <= 16 * n_xs) {
    for (int32_t c = begin; c < end; ++c) {
      if (!marked(marks, label[c])) continue;
      add_node_row(c, out);
      if (level < v_.degree && v_.trie.has_children(c)) descend(c, marks, xs, n_xs, level + 1, out);
    }
    return;
  }
  const int32_t* lo = label + begin;
  const int32_t* stop = label + end;
  for (size_t i = 0; i < n_xs && lo != stop; ++i) {
    lo = std::lower_bound(lo, stop, xs[i]);
    if (lo == stop || *lo != xs[i]) continue;
    const int32_t c = static_cast<int32_t>(lo - label);
    add_node_row(c, out);
    if (level < v_.degree && v_.trie.has_children(c)) descend(c, marks, xs, i, level + 1, out);
  }
}

template <bool Single>
void ConjunctionStore::Walk::add_position(size_t j, double* out) const {
  const ConjunctionStore& s = s_;
  const int32_t* x = x_.data;
  const int32_t f = x[j];
  if (f < s.v_.n_dense) {
    s.add_dense<Single>(x, j, out);
    return;
  }
  const int32_t node = s.v_.trie.root_child(f);
  if (node < 0) return;
  const bool extend = s.v_.degree >= 2 && s.v_.trie.has_children(node);
  if (Single) {
    out[0] += s.v_.weight.data[node] + (extend ? s.descend_one(node, marks(), x, j, 2) : 0.0);
    return;
  }
  s.add_node_row(node, out);
  if (extend) s.descend(node, marks(), x, j, 2, out);
}

const uint64_t* ConjunctionStore::Walk::marks() const {
  if (marks_ == nullptr) {
    // One bit per feature, zero between walks (a walk clears the words it set).
    std::vector<uint64_t>& bits = thread_scratch<MarkScratch>().bits;
    const size_t words = (static_cast<size_t>(s_.n_features()) + 63) / 64;
    if (bits.size() < words) bits.resize(words, 0);
    marks_ = bits.data();
    for (int32_t f : x_) marks_[f >> 6] |= uint64_t{1} << (f & 63);
  }
  return marks_;
}

ConjunctionStore::Walk::~Walk() {
  if (marks_ != nullptr)
    for (int32_t f : x_) marks_[f >> 6] = 0;
}

void ConjunctionStore::add_dense_positions(Span<int32_t> x, size_t jb, size_t je, double* out) const {
  if (jb >= je) return;
  if (dense_rows_ != nullptr) {
    const size_t K = v_.n_outputs;
    dense_rows_(v_.dense.data + level_offset_[1] * K, v_.dense.data + level_offset_[2] * K, x.data, jb, je, K, out);
    return;
  }
  for (size_t j = jb; j < je; ++j) {
    if (v_.n_outputs == 1) add_dense<true>(x.data, j, out);
    else add_dense<false>(x.data, j, out);
  }
}

void ConjunctionStore::Walk::add(size_t j, double* out) const {
  if (s_.v_.n_outputs == 1) add_position<true>(j, out);
  else add_position<false>(j, out);
}

void ConjunctionStore::add_rarest(Span<int32_t> x, size_t j_begin, size_t j_end, double* out) const {
  if (j_begin >= j_end) return;
  // The dense positions (a prefix of x) in one pass, then the trie's.
  const size_t qd = static_cast<size_t>(std::lower_bound(x.begin() + j_begin, x.begin() + j_end, v_.n_dense) - x.begin());
  add_dense_positions(x, j_begin, qd, out);
  if (qd >= j_end) return;
  const Walk walk(*this, x);
  for (size_t j = qd; j < j_end; ++j) walk.add(j, out);
}

const float* ConjunctionStore::bounds() const {
  std::call_once(bounds_once_, [this] { compute_bounds(); });
  return bounds_.data();
}

namespace {

// lo / hi (K each) += the negative / positive parts of n rows of K values.
// Branch-free: a weight's sign is as good as random.
void add_signed_rows(const double* __restrict w, size_t n, size_t K, double* __restrict lo, double* __restrict hi) {
  for (size_t r = 0; r < n; ++r, w += K)
    for (size_t o = 0; o < K; ++o) lo[o] += std::min(w[o], 0.0), hi[o] += std::max(w[o], 0.0);
}

// The same for sparse values (value i of output out[i]).
void add_signed_values(const double* __restrict w, const int32_t* out, size_t n, size_t K, double* __restrict lo) {
  for (size_t i = 0; i < n; ++i) {
    const size_t o = static_cast<size_t>(out[i]);
    lo[o] += std::min(w[i], 0.0), lo[K + o] += std::max(w[i], 0.0);
  }
}

}  // namespace

void ConjunctionStore::compute_bounds() const {
  const size_t K = v_.n_outputs;
  const size_t n = v_.trie.n_nodes();
  const int32_t* cb = v_.trie.child_begin.data;
  size_t F = static_cast<size_t>(std::max<int32_t>(v_.n_dense, 0));
  for (int32_t c = cb[0]; c < cb[1]; ++c) F = std::max(F, static_cast<size_t>(v_.trie.label[c]) + 1);
  std::vector<double> sums(F * 2 * K, 0.0);
  // The rows of trie nodes [b, e) into feature f's sums.
  auto add_nodes = [&](size_t f, int32_t b, int32_t e) {
    double* lo = sums.data() + f * 2 * K;
    if (!v_.sparse()) return add_signed_rows(v_.weight.data + static_cast<size_t>(b) * K, static_cast<size_t>(e - b), K, lo, lo + K);
    const int64_t vb = v_.row_begin[static_cast<size_t>(b)], ve = v_.row_begin[static_cast<size_t>(e)];
    add_signed_values(v_.row_value.data + vb, v_.row_output.data + vb, static_cast<size_t>(ve - vb), K, lo);
  };
  // Dense entries: the rarest member is the largest id of the combination,
  // so a feature's entries are one block per level.
  const int d = std::min(v_.degree, kMaxDenseDegree);
  for (int64_t a = 0; a < v_.n_dense; ++a) {
    double* lo = sums.data() + static_cast<size_t>(a) * 2 * K;
    add_signed_rows(v_.dense.data + (level_offset_[1] + a) * K, 1, K, lo, lo + K);
    for (int r = 2; r <= d; ++r)
      add_signed_rows(v_.dense.data + (level_offset_[r] + binom_(a, r)) * K, static_cast<size_t>(binom_(a, r - 1)), K,
                      lo, lo + K);
  }
  // Trie nodes: the rarest member is the label of the depth-1 ancestor; a
  // node's children (one block, breadth-first) share it.
  std::vector<int32_t> rarest(n, -1);
  for (int32_t c = cb[0]; c < cb[1]; ++c) {
    rarest[static_cast<size_t>(c)] = v_.trie.label[c];
    add_nodes(static_cast<size_t>(v_.trie.label[c]), c, c + 1);
  }
  for (size_t v = 1; v < n; ++v) {
    if (cb[v] == cb[v + 1]) continue;
    for (int32_t c = cb[v]; c < cb[v + 1]; ++c) rarest[static_cast<size_t>(c)] = rarest[v];
    add_nodes(static_cast<size_t>(rarest[v]), cb[v], cb[v + 1]);
  }
  // Floats rounded away from zero are still bounds.
  bounds_.resize(sums.size());
  for (size_t i = 0; i < sums.size(); ++i) {
    const double v = sums[i];
    float f = static_cast<float>(v);
    if (v < 0 ? static_cast<double>(f) > v : static_cast<double>(f) < v)
      f = std::nextafter(f, v < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
    bounds_[i] = f;
  }
  n_bounded_ = F;
}

}  // namespace conjunct

#include <limits>
#include <unordered_map>

namespace conjunct {

ConjunctionStoreBuilder::ConjunctionStoreBuilder(size_t n_outputs, int degree, int32_t n_dense, int32_t n_features)
    : K_(n_outputs), degree_(degree), n_dense_(n_dense), n_features_(n_features) {
  if (n_dense_ > 0 && degree_ > kMaxDenseDegree) throw std::invalid_argument("dense table supports degree <= 4");
  dense_.assign(static_cast<size_t>(set_levels(n_dense_)) * K_, 0.0);
  parent_.push_back(0);
  label_.push_back(-1);
  depth_.push_back(0);
  weight_.assign(K_, 0.0);
}

int64_t ConjunctionStoreBuilder::set_levels(int32_t n_dense) {
  const int d = std::min(degree_, kMaxDenseDegree);
  const int64_t entries = dense_table_entries(n_dense, d);
  n_dense_ = n_dense;
  binom_.init(static_cast<int64_t>(n_dense) + 1, d);
  int64_t offset = 0;
  for (int r = 1; r <= d; ++r) {
    level_offset_[r] = offset;
    offset += n_dense > 0 ? binom_(n_dense, r) : 0;
  }
  return entries;
}

int32_t ConjunctionStoreBuilder::grow_dense(int32_t n_limit, double growth) {
  n_limit = std::min(n_limit, n_features_);
  const size_t n_nodes = label_.size();
  if (degree_ < 3 || degree_ > kMaxDenseDegree || n_limit <= n_dense_ || n_nodes <= 1) return n_dense_;
  // Nodes are created parent first, so one pass finds each node's rarest member.
  std::vector<int32_t> rarest(n_nodes, -1);
  std::vector<int64_t> subtree(static_cast<size_t>(n_features_), 0);  // trie nodes per rarest member
  for (size_t v = 1; v < n_nodes; ++v) {
    rarest[v] = parent_[v] == 0 ? label_[v] : rarest[parent_[v]];
    ++subtree[rarest[v]];
  }
  const double K = static_cast<double>(K_);
  auto table_bytes = [&](int32_t n) {
    double total = 0.0, c = 1.0;
    for (int k = 1; k <= degree_ && k <= n; ++k) total += (c = c * static_cast<double>(n - k + 1) / k);
    return total * K * 8.0;
  };
  // Weight rows + labels + child_begin of the trie, its root map, and the table.
  auto store_bytes = [&](int32_t n, int64_t nodes) {
    return table_bytes(n) + static_cast<double>(nodes) * (K * 8.0 + 8.0) + 4.0 + 4.0 * n_features_;
  };
  const double budget = growth * store_bytes(n_dense_, static_cast<int64_t>(n_nodes));
  int32_t best = n_dense_;
  int64_t moved = 0;
  for (int32_t n = n_dense_ + 1; n <= n_limit; ++n) {
    moved += subtree[n - 1];
    if (table_bytes(n) > budget) break;
    if (store_bytes(n, static_cast<int64_t>(n_nodes) - moved) <= budget) best = n;
  }
  if (best == n_dense_) return n_dense_;

  // A level's entries keep their index in a larger table; only the level offsets move.
  const int32_t old_n = n_dense_;
  const int64_t old_offset[6] = {level_offset_[0], level_offset_[1], level_offset_[2],
                                 level_offset_[3], level_offset_[4], level_offset_[5]};
  const std::vector<double> old_dense = std::move(dense_);
  const int64_t entries = set_levels(best);
  dense_.assign(static_cast<size_t>(entries) * K_, 0.0);
  for (int r = 1; r <= degree_ && old_n > 0; ++r)
    std::copy(old_dense.begin() + old_offset[r] * static_cast<int64_t>(K_),
              old_dense.begin() + (old_offset[r] + binom_(old_n, r)) * static_cast<int64_t>(K_),
              dense_.begin() + level_offset_[r] * static_cast<int64_t>(K_));
  // Move the nodes whose rarest member is now dense, then compact the others
  // (a kept node's parent is kept: it has the same rarest member).
  for (size_t v = 1; v < n_nodes; ++v) {
    if (rarest[v] >= best) continue;
    int32_t asc[kMaxDenseDegree];
    int r = 0;
    for (int32_t u = static_cast<int32_t>(v); u != 0; u = parent_[u]) asc[r++] = label_[u];  // ascending ids
    double* row = dense_row(asc, r);
    for (size_t o = 0; o < K_; ++o) row[o] += weight_[v * K_ + o];
  }
  std::vector<int32_t> new_id(n_nodes, -1);
  size_t kept = 0;
  for (size_t v = 0; v < n_nodes; ++v) {
    if (v > 0 && rarest[v] < best) continue;
    new_id[v] = static_cast<int32_t>(kept);
    parent_[kept] = v == 0 ? 0 : new_id[parent_[v]];
    label_[kept] = label_[v];
    depth_[kept] = depth_[v];
    std::copy(weight_.begin() + v * K_, weight_.begin() + (v + 1) * K_, weight_.begin() + kept * K_);
    ++kept;
  }
  parent_.resize(kept), label_.resize(kept), depth_.resize(kept), weight_.resize(kept * K_);
  return best;
}

double* ConjunctionStoreBuilder::dense_row(const int32_t* asc, int r) {
  int64_t index = level_offset_[r];
  for (int k = 0; k < r; ++k) index += binom_(asc[k], k + 1);
  return dense_.data() + static_cast<size_t>(index) * K_;
}

int32_t ConjunctionStoreBuilder::add_node(int32_t parent, int32_t label) {
  if (label_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw std::length_error("conjunction store: more than 2^31 trie nodes");
  const int32_t id = static_cast<int32_t>(label_.size());
  parent_.push_back(parent);
  label_.push_back(label);
  depth_.push_back(static_cast<uint8_t>(depth_[parent] + 1));
  weight_.resize(weight_.size() + K_, 0.0);
  return id;
}

static bool nonzero_row(const double* w, size_t K) {
  for (size_t o = 0; o < K; ++o)
    if (w[o] != 0.0) return true;
  return false;
}

ConjunctionStoreArrays ConjunctionStoreBuilder::finish() {
  ConjunctionStoreArrays out;
  out.n_outputs = K_;
  out.degree = degree_;
  out.n_dense = n_dense_;
  out.count_by_size.assign(static_cast<size_t>(degree_) + 1, 0);
  for (int r = 1; r <= std::min(degree_, kMaxDenseDegree) && n_dense_ > 0; ++r) {
    const int64_t begin = level_offset_[r], end = begin + binom_(n_dense_, r);
    for (int64_t e = begin; e < end; ++e) out.count_by_size[r] += nonzero_row(dense_.data() + e * K_, K_);
  }
  for (size_t n = 1; n < label_.size(); ++n) out.count_by_size[depth_[n]] += nonzero_row(weight_.data() + n * K_, K_);
  out.dense = std::move(dense_);
  std::vector<int32_t> new_id;
  out.trie = layout_bfs(parent_, label_, n_features_, new_id);
  out.weight.assign(weight_.size(), 0.0);
  for (size_t n = 0; n < label_.size(); ++n)
    std::copy(weight_.begin() + n * K_, weight_.begin() + (n + 1) * K_, out.weight.begin() + static_cast<size_t>(new_id[n]) * K_);
  sparsify_rows(out);
  std::vector<int32_t>().swap(parent_);
  std::vector<int32_t>().swap(label_);
  std::vector<double>().swap(weight_);
  return out;
}

void sparsify_rows(ConjunctionStoreArrays& store) {
  const size_t K = store.n_outputs;
  if (K < 2 || K > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return;
  const size_t nnz = static_cast<size_t>(
      std::count_if(store.weight.begin(), store.weight.end(), [](double w) { return w != 0.0; }));
  if (static_cast<double>(nnz) > kSparseRowDensity * static_cast<double>(store.weight.size())) return;
  const size_t n_nodes = store.weight.size() / K;
  store.row_begin.assign(n_nodes + 1, 0);
  store.row_output.reserve(nnz);
  store.row_value.reserve(nnz);
  for (size_t n = 0; n < n_nodes; ++n) {
    for (size_t o = 0; o < K; ++o) {
      const double w = store.weight[n * K + o];
      if (w == 0.0) continue;
      store.row_output.push_back(static_cast<int32_t>(o));
      store.row_value.push_back(w);
    }
    store.row_begin[n + 1] = static_cast<int64_t>(store.row_value.size());
  }
  std::vector<double>().swap(store.weight);
}

ConjunctionStoreArrays build_conjunction_store(const CsrView& conjunctions, Span<double> weights, size_t n_outputs,
                                               int32_t n_features, int32_t n_dense, int32_t n_limit, double growth) {
  const size_t n = conjunctions.rows();
  if (weights.size != n * n_outputs) throw std::invalid_argument("weights do not match the conjunctions");
  int degree = 1;
  for (size_t t = 0; t < n; ++t) degree = std::max<int>(degree, static_cast<int>(conjunctions.row(t).size));
  if (degree > kMaxDenseDegree) n_dense = 0;
  ConjunctionStoreBuilder builder(n_outputs, degree, n_dense, n_features);
  std::unordered_map<uint64_t, int32_t> edges;  // (parent << 32 | label) -> node
  std::vector<int32_t> asc;
  for (size_t t = 0; t < n; ++t) {
    Span<int32_t> row = conjunctions.row(t);
    if (row.empty()) throw std::invalid_argument("empty conjunction (use the intercept)");
    asc.assign(row.begin(), row.end());
    for (size_t k = 1; k < asc.size(); ++k)
      if (asc[k] <= asc[k - 1]) throw std::invalid_argument("conjunction features must be ascending and distinct");
    if (asc.front() < 0 || asc.back() >= n_features) throw std::invalid_argument("conjunction feature out of range");
    double* row_out;
    if (asc.back() < n_dense) {
      row_out = builder.dense_row(asc.data(), static_cast<int>(asc.size()));
    } else {
      int32_t node = 0;
      for (size_t k = asc.size(); k-- > 0;) {  // rarest member first
        const uint64_t key = (static_cast<uint64_t>(node) << 32) | static_cast<uint32_t>(asc[k]);
        auto it = edges.find(key);
        if (it == edges.end()) it = edges.emplace(key, builder.add_node(node, asc[k])).first;
        node = it->second;
      }
      row_out = builder.node_row(node);
    }
    for (size_t o = 0; o < n_outputs; ++o) row_out[o] += weights[t * n_outputs + o];
  }
  if (growth > 1.0) builder.grow_dense(n_limit, growth);
  return builder.finish();
}

void put_store(ConjunctionStoreArrays&& store, Sections& out) {
  out.put("store.dense", std::move(store.dense));
  out.put("store.child_begin", std::move(store.trie.child_begin));
  out.put("store.label", std::move(store.trie.label));
  out.put("store.root_map", std::move(store.trie.root_map));
  if (store.row_begin.empty()) {
    out.put("store.weight", std::move(store.weight));
    return;
  }
  out.put("store.row_begin", std::move(store.row_begin));
  out.put("store.row_output", std::move(store.row_output));
  out.put("store.row_value", std::move(store.row_value));
}

ConjunctionStoreView store_of(const Sections& arrays, size_t n_outputs, int degree, int32_t n_dense, int32_t label_limit) {
  ConjunctionStoreView v;
  v.n_outputs = n_outputs;
  v.degree = degree;
  v.n_dense = n_dense;
  v.dense = arrays.span<double>("store.dense");
  v.trie = TrieView{arrays.span<int32_t>("store.child_begin"), arrays.span<int32_t>("store.label"),
                    arrays.span<int32_t>("store.root_map")};
  if (arrays.has("store.row_begin")) {
    v.row_begin = arrays.span<int64_t>("store.row_begin");
    v.row_output = arrays.span<int32_t>("store.row_output");
    v.row_value = arrays.span<double>("store.row_value");
  } else {
    v.weight = arrays.span<double>("store.weight");
  }
  check_store(v, label_limit, "store");
  return v;
}

}  // namespace conjunct
