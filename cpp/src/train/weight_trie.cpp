#include "conjunct/train/weight_trie.h"

#include <algorithm>
#include <stdexcept>

#include "conjunct/util/gather.h"

namespace conjunct {

namespace {

// C(n, r) for the dense tables' sizes (at most dense_bytes / 8, so no overflow).
uint64_t binomial(int64_t n, int r) {
  if (r < 0 || n < r) return 0;
  uint64_t c = 1;
  for (int i = 1; i <= r; ++i) c = c * static_cast<uint64_t>(n - i + 1) / static_cast<uint64_t>(i);
  return c;
}


// sum of base[idx[0..n)], four running sums as gather_sum's.
inline double gather_sum_u32(const double* base, const uint32_t* idx, size_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += base[idx[i]];
    s1 += base[idx[i + 1]];
    s2 += base[idx[i + 2]];
    s3 += base[idx[i + 3]];
  }
  for (; i < n; ++i) s0 += base[idx[i]];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

void WeightTrie::pair_indices(const int32_t* s, size_t from, size_t n, std::vector<uint32_t>& out) const {
  // Rows from..n-1 (y = s[a]) after the from * (from - 1) / 2 entries there.
  // C(y, 2) + z < C(D, 2) fits 32 bits for any D whose triples fit memory.
  // The list only grows (no zero-filling of what is rewritten), and the
  // row loop is a vector add (no aliasing between s and the list).
  const size_t need = n * (n - 1) / 2;
  if (out.size() < need) out.resize(need);
  uint32_t* __restrict o = out.data() + from * (from - 1) / 2;
  const int32_t* __restrict in = s;
  const uint64_t* __restrict c2 = binom_.data() + 2 * (static_cast<size_t>(binom_size_) + 1);  // C(., 2)
  for (size_t a = from; a < n; ++a) {
    const uint32_t base = static_cast<uint32_t>(c2[in[a]]);
    for (size_t b = 0; b < a; ++b) o[b] = base + static_cast<uint32_t>(in[b]);
    o += a;
  }
}

int32_t WeightTrie::dense_capacity(int degree, size_t n_outputs, int32_t limit, size_t dense_bytes) {
  if (degree > kMaxDenseDegree || degree < 1) return 0;
  if (dense_bytes == kDegreeDefault) dense_bytes = default_dense_bytes(degree);
  auto bytes = [&](double D) {  // sum_r C(D, r) rows of K doubles
    double total = 0.0, c = 1.0;
    for (int r = 1; r <= degree; ++r) total += (c = c * (D - r + 1) / r);
    return total * static_cast<double>(n_outputs) * sizeof(double);
  };
  int64_t lo = 0, hi = std::min<int64_t>(limit, int64_t{1} << 26);
  while (lo < hi) {  // the largest D with bytes(D) <= dense_bytes
    const int64_t mid = (lo + hi + 1) / 2;
    if (bytes(static_cast<double>(mid)) <= static_cast<double>(dense_bytes)) lo = mid;
    else hi = mid - 1;
  }
  return static_cast<int32_t>(lo);
}

WeightTrie::WeightTrie(const PolyKernel& kernel, size_t n_outputs, int32_t limit, size_t dense_bytes)
    : degree_(kernel.degree), K_(n_outputs), limit_(limit),
      dense_(dense_capacity(kernel.degree, n_outputs, limit, dense_bytes)), coef_(kernel.subset_weights()),
      dense_w_(static_cast<size_t>(kernel.degree) + 1), w_(n_outputs, 0.0) {
  if (n_outputs == 0) throw std::invalid_argument("the weight trie needs at least one output");
}

void WeightTrie::grow_dense(int32_t size) {
  // Tables cover the conjunctions whose rarest feature is below dense_size_;
  // the combinatorial index is prefix-stable, so growing appends rows.
  if (size <= dense_size_) return;
  if (size > binom_size_) {
    const int32_t cap = std::min<int64_t>(dense_, std::max<int64_t>(size, int64_t{2} * binom_size_));
    const size_t stride = static_cast<size_t>(cap) + 1;
    std::vector<uint64_t> binom(static_cast<size_t>(degree_ + 1) * stride, 0);
    for (size_t a = 0; a < stride; ++a) {
      binom[a] = 1;
      for (int r = 1; r <= degree_; ++r) {
        const size_t i = static_cast<size_t>(r) * stride + a;
        binom[i] = a == 0 ? 0 : binom[i - 1] + binom[i - stride - 1];
      }
    }
    binom_.swap(binom);
    binom_size_ = cap;
  }
  dense_size_ = size;
  for (int r = 1; r <= degree_; ++r) {
    auto& table = dense_w_[static_cast<size_t>(r)];
    // Reserve the tables' final size at once: growth by doubling would leave
    // up to half of each table's capacity unused (resident after a copy), and
    // the reserved tail is not touched before it is used.
    if (table.capacity() == 0) table.reserve(binomial(dense_, r) * K_);
    table.resize(C(size, r) * K_, 0.0);
  }
}

size_t WeightTrie::n_conjunctions() const {
  size_t n = trie_.n_nodes() - 1;
  for (int r = 1; r <= degree_; ++r) n += dense_w_[static_cast<size_t>(r)].size() / K_;
  return n;
}

size_t WeightTrie::memory_bytes() const {
  size_t bytes = trie_.memory_bytes() + w_.capacity() * sizeof(double) + binom_.capacity() * sizeof(uint64_t);
  // The dense tables' used part: their reserved tail is untouched memory.
  for (const auto& t : dense_w_) bytes += t.size() * sizeof(double);
  return bytes;
}

uint32_t WeightTrie::node_for(uint32_t parent, int32_t f) {
  bool created = false;
  const uint32_t node = trie_.child_or_add(parent, f, created);
  if (created) w_.resize(w_.size() + K_, 0.0);
  return node;
}

template <class Fn>
void WeightTrie::descend(const int32_t* s, size_t limit_pos, uint32_t node, int depth, Fn& fn) {
  // `node` holds a conjunction of `depth` features whose most frequent one is
  // s[limit_pos]; extend it by each more frequent feature of s.
  for (size_t a = limit_pos; a-- > 0;) {
    const uint32_t child = node_for(node, s[a]);
    fn(w_.data() + static_cast<size_t>(child) * K_, depth + 1);
    if (depth + 1 < degree_) descend(s, a, child, depth + 1, fn);
  }
}

template <class Fn>
void WeightTrie::dense_descend(const int32_t* s, size_t limit_pos, int depth, const uint64_t* index, Fn& fn) {
  // index[r]: the part of the index of size-r extensions fixed by the
  // `depth` features chosen so far (C(y1, r) + C(y2, r - 1) + ...).
  uint64_t next[kMaxDenseDegree + 1];
  for (size_t a = limit_pos; a-- > 0;) {
    const int32_t y = s[a];
    for (int r = depth + 1; r <= degree_; ++r) next[r] = index[r] + C(y, r - depth);
    fn(dense_row(depth + 1, next[depth + 1]), depth + 1);
    if (depth + 1 < degree_) dense_descend(s, a, depth + 1, next, fn);
  }
}

template <class Fn>
void WeightTrie::for_each_subset(Span<int32_t> s, Fn&& fn, bool skip_dense) {
  // s ascending: its features below the limit are a prefix, and below D a shorter one.
  const size_t n = static_cast<size_t>(std::lower_bound(s.begin(), s.end(), limit_) - s.begin());
  const size_t n_dense = static_cast<size_t>(std::lower_bound(s.begin(), s.begin() + n, dense_) - s.begin());
  if (n_dense) grow_dense(s[n_dense - 1] + 1);
  uint64_t index[kMaxDenseDegree + 1];
  for (size_t j = skip_dense ? n_dense : 0; j < n_dense; ++j) {
    for (int r = 1; r <= degree_; ++r) index[r] = C(s[j], r);
    fn(dense_row(1, index[1]), 1);
    if (degree_ > 1) dense_descend(s.data, j, 1, index, fn);
  }
  for (size_t j = n_dense; j < n; ++j) {
    const uint32_t node = node_for(HashTrie::kRoot, s[j]);
    fn(w_.data() + static_cast<size_t>(node) * K_, 1);
    if (degree_ > 1) descend(s.data, j, node, 1, fn);
  }
}

bool WeightTrie::add_dense_unrolled(Span<int32_t> s, double tau) {
  if (K_ != 1 || degree_ > 3) return false;
  const size_t n = static_cast<size_t>(std::lower_bound(s.begin(), s.end(), std::min(limit_, dense_)) - s.begin());
  if (n == 0) return true;
  grow_dense(s[n - 1] + 1);
  // Each conjunction's weight gets the value the generic walk adds to it
  // (coef_[size] * tau, once), so the weights are the same.
  const double v1 = coef_[1] * tau, v2 = degree_ > 1 ? coef_[2] * tau : 0.0, v3 = degree_ > 2 ? coef_[3] * tau : 0.0;
  double* w1 = dense_w_[1].data();
  for (size_t j = 0; j < n; ++j) {
    const int32_t f = s[j];
    w1[f] += v1;
    if (degree_ == 1) continue;
    double* t2 = dense_w_[2].data() + C(f, 2);
    for (size_t a = 0; a < j; ++a) t2[s[a]] += v2;
  }
  if (degree_ < 3) return true;
  // The triples {z, y, f} of f = s[j]: entries of f's run at the indices of
  // the pairs of s's first j features, the first j (j - 1) / 2 of one list.
  pair_indices(s.data, 0, n, update_pairs_);
  const uint32_t* pairs = update_pairs_.data();
  for (size_t j = 2; j < n; ++j) {
    double* t3 = dense_w_[3].data() + C(s[j], 3);
    const size_t m = j * (j - 1) / 2;
    size_t i = 0;
    for (; i + 4 <= m; i += 4) {
      t3[pairs[i]] += v3;
      t3[pairs[i + 1]] += v3;
      t3[pairs[i + 2]] += v3;
      t3[pairs[i + 3]] += v3;
    }
    for (; i < m; ++i) t3[pairs[i]] += v3;
  }
  return true;
}

void WeightTrie::add(Span<int32_t> s, int32_t pos, int32_t neg, double tau) {
  const bool unrolled = pos == 0 && neg < 0 && add_dense_unrolled(s, tau);
  for_each_subset(
      s,
      [&](double* w, int depth) {
        const double v = coef_[depth] * tau;
        w[pos] += v;
        if (neg >= 0) w[neg] -= v;
      },
      unrolled);
}

void WeightTrie::add_dense(Span<int32_t> s, const double* row) {
  for_each_subset(s, [&](double* w, int depth) {
    for (size_t o = 0; o < K_; ++o) w[o] += coef_[depth] * row[o];
  });
}

size_t WeightTrie::dense_partial(const int32_t* x, size_t limit_pos, int depth, const uint64_t* index, double* out) const {
  const int last = depth + 1 == degree_;
  const double* table = dense_w_[static_cast<size_t>(depth) + 1].data();
  if (last && K_ == 1) {
    // The innermost level: C(y, 1) = y, a gather from one short run.
    // One sum in x's order, as opal's (whose model step="opal" reproduces:
    // its step amplifies any rounding difference).
    const double* base = table + index[depth + 1];
    double sum = 0.0;
    for (size_t a = 0; a < limit_pos; ++a) sum += base[x[a]];
    out[0] += sum;
    return limit_pos;
  }
  size_t visited = limit_pos;
  uint64_t next[kMaxDenseDegree + 1];
  for (size_t a = limit_pos; a-- > 0;) {
    const int32_t y = x[a];
    for (int r = depth + 1; r <= degree_; ++r) next[r] = index[r] + C(y, r - depth);
    const double* w = table + next[depth + 1] * K_;
    for (size_t o = 0; o < K_; ++o) out[o] += w[o];
    if (!last) visited += dense_partial(x, a, depth + 1, next, out);
  }
  return visited;
}

size_t WeightTrie::partial_general(const int32_t* x, size_t j, double* out, Scratch& sc) const {
  const int32_t f = x[j];
  if (f < dense_) {
    if (f >= dense_size_) return 1;  // no support vector holds f yet
    if (degree_ == 3 && K_ == 1) {
      // The common case of slicing at d = 3, unrolled: pairs {y, f} and
      // triples {z, y, f} (z < y < f) are runs of the tables at C(f, 2) and
      // C(f, 3) + C(y, 2), read by x's earlier features; no recursion.
      // The triples are one gather through the pairs' indices, which
      // depend on x alone and are built once per example (as far as it is
      // read) instead of once per (f, y).
      if (sc.pair_rows < j) {
        pair_indices(x, sc.pair_rows, j, sc.pairs);
        sc.pair_rows = j;
      }
      const size_t m = j * (j - 1) / 2;
      const double pairs = gather_sum(dense_w_[2].data() + C(f, 2), x, j);
      const double triples = gather_sum_u32(dense_w_[3].data() + C(f, 3), sc.pairs.data(), m);
      out[0] += dense_w_[1][static_cast<size_t>(f)] + pairs + triples;
      return 1 + j + m;
    }
    uint64_t index[kMaxDenseDegree + 1] = {};
    for (int r = 1; r <= degree_; ++r) index[r] = C(f, r);
    const double* w = dense_w_[1].data() + index[1] * K_;
    for (size_t o = 0; o < K_; ++o) out[o] += w[o];
    return 1 + (degree_ > 1 ? dense_partial(x, j, 1, index, out) : 0);
  }
  const uint32_t first = trie_.child(HashTrie::kRoot, f);
  if (first == HashTrie::kNone) return 1;
  const double* w = w_.data() + static_cast<size_t>(first) * K_;
  for (size_t o = 0; o < K_; ++o) out[o] += w[o];
  size_t visited = 1;
  // Breadth first, one level (conjunction size) at a time: every probe of a
  // level is independent, so all of them are issued (prefetched) before any
  // is resolved, and the weights of the nodes found likewise.
  sc.frontier.assign(1, Scratch::Probe{first, static_cast<uint32_t>(j), 0});
  for (int depth = 1; depth < degree_ && !sc.frontier.empty(); ++depth) {
    sc.probes.clear();
    for (const auto& f : sc.frontier)
      for (uint32_t a = 0; a < f.pos; ++a) sc.probes.push_back(Scratch::Probe{f.node, a, trie_.slot(f.node, x[a])});
    visited += sc.probes.size();
    size_t found = 0;
    for (auto& p : sc.probes) {
      const uint32_t child = trie_.child_at(p.slot, p.node, x[p.pos]);
      if (child == HashTrie::kNone) continue;
      __builtin_prefetch(w_.data() + static_cast<size_t>(child) * K_);
      sc.probes[found++] = Scratch::Probe{child, p.pos, 0};
    }
    sc.probes.resize(found);
    if (K_ == 1) {
      double sum = 0.0;
      for (const auto& p : sc.probes) sum += w_[p.node];
      out[0] += sum;
    } else {
      for (const auto& p : sc.probes) {
        const double* wc = w_.data() + static_cast<size_t>(p.node) * K_;
        for (size_t o = 0; o < K_; ++o) out[o] += wc[o];
      }
    }
    sc.frontier.swap(sc.probes);
  }
  return visited;
}

void WeightTrie::prune(int32_t new_limit) {
  if (new_limit >= limit_) return;
  if (new_limit < dense_) {
    dense_ = new_limit;
    if (dense_size_ > dense_) {
      // The conjunctions of features below the new limit are a prefix of each table.
      dense_size_ = dense_;
      for (int r = 1; r <= degree_; ++r) {
        auto& t = dense_w_[static_cast<size_t>(r)];
        t.resize(C(dense_size_, r) * K_);
        t.shrink_to_fit();
      }
    }
  }
  std::vector<uint32_t> parent;
  std::vector<int32_t> label;
  trie_.edges(parent, label);
  const size_t n = trie_.n_nodes();
  // Parents precede children in id order, so one pass decides every node.
  std::vector<char> keep(n, 0);
  keep[HashTrie::kRoot] = 1;
  for (size_t id = 1; id < n; ++id)
    keep[id] = parent[id] == HashTrie::kRoot ? label[id] < new_limit : keep[parent[id]];
  const std::vector<uint32_t> renum = trie_.retain(keep);
  std::vector<double> w(trie_.n_nodes() * K_, 0.0);
  for (size_t id = 1; id < n; ++id)
    if (keep[id]) std::copy_n(w_.data() + id * K_, K_, w.data() + static_cast<size_t>(renum[id]) * K_);
  w_.swap(w);
  w_.shrink_to_fit();
  limit_ = new_limit;
}

void WeightTrie::export_all(std::vector<int64_t>& indptr, std::vector<int32_t>& indices,
                            std::vector<double>& weights) const {
  std::vector<uint32_t> parent;
  std::vector<int32_t> label;
  trie_.edges(parent, label);
  const size_t n = trie_.n_nodes();
  indptr.assign(1, 0);
  indices.clear();
  weights.clear();
  // Dense entries with a non-zero weight, unranked from their index.
  std::vector<int32_t> t;
  for (int r = 1; r <= degree_; ++r) {
    const auto& table = dense_w_[static_cast<size_t>(r)];
    for (uint64_t index = 0; index * K_ < table.size(); ++index) {
      const double* w = table.data() + index * K_;
      if (std::all_of(w, w + K_, [](double v) { return v == 0.0; })) continue;
      t.assign(static_cast<size_t>(r), 0);
      uint64_t rest = index;
      int32_t top = dense_size_;
      for (int i = r; i >= 1; --i) {  // the largest a < top with C(a, i) <= rest (C(., i) grows with a)
        int32_t lo = i - 1, hi = top - 1;
        while (lo < hi) {
          const int32_t mid = lo + (hi - lo + 1) / 2;
          if (C(mid, i) <= rest) lo = mid;
          else hi = mid - 1;
        }
        t[static_cast<size_t>(i - 1)] = lo;
        rest -= C(lo, i);
        top = lo;
      }
      indices.insert(indices.end(), t.begin(), t.end());
      indptr.push_back(static_cast<int64_t>(indices.size()));
      weights.insert(weights.end(), w, w + K_);
    }
  }
  std::vector<int32_t> path;
  for (size_t id = 1; id < n; ++id) {
    path.clear();
    for (size_t v = id; v != HashTrie::kRoot; v = parent[v]) path.push_back(label[v]);
    // Walking up from the node gives most frequent first: ascending ids.
    indices.insert(indices.end(), path.begin(), path.end());
    indptr.push_back(static_cast<int64_t>(indices.size()));
    weights.insert(weights.end(), w_.begin() + static_cast<std::ptrdiff_t>(id * K_),
                   w_.begin() + static_cast<std::ptrdiff_t>((id + 1) * K_));
  }
}

}  // namespace conjunct
