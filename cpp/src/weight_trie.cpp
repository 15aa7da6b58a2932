#include "conjunct/train/weight_trie.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

WeightTrie::WeightTrie(const PolyKernel& kernel, size_t n_outputs, int32_t limit)
    : degree_(kernel.degree), K_(n_outputs), limit_(limit), coef_(kernel.subset_weights()), w_(n_outputs, 0.0) {
  if (n_outputs == 0) throw std::invalid_argument("the weight trie needs at least one output");
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
    fn(child, depth + 1);
    if (depth + 1 < degree_) descend(s, a, child, depth + 1, fn);
  }
}

template <class Fn>
void WeightTrie::for_each_subset(Span<int32_t> s, Fn&& fn) {
  // s ascending: its features below the limit are a prefix.
  const size_t n = static_cast<size_t>(std::lower_bound(s.begin(), s.end(), limit_) - s.begin());
  for (size_t j = 0; j < n; ++j) {
    const uint32_t node = node_for(HashTrie::kRoot, s[j]);
    fn(node, 1);
    if (degree_ > 1) descend(s.data, j, node, 1, fn);
  }
}

void WeightTrie::add(Span<int32_t> s, int32_t pos, int32_t neg, double tau) {
  for_each_subset(s, [&](uint32_t node, int depth) {
    const double v = coef_[depth] * tau;
    double* w = w_.data() + static_cast<size_t>(node) * K_;
    w[pos] += v;
    if (neg >= 0) w[neg] -= v;
  });
}

void WeightTrie::add_dense(Span<int32_t> s, const double* row) {
  for_each_subset(s, [&](uint32_t node, int depth) {
    double* w = w_.data() + static_cast<size_t>(node) * K_;
    for (size_t o = 0; o < K_; ++o) w[o] += coef_[depth] * row[o];
  });
}

size_t WeightTrie::partial(const int32_t* x, size_t j, double* out, Scratch& sc) const {
  const uint32_t first = trie_.child(HashTrie::kRoot, x[j]);
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
