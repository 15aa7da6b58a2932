// A static trie over feature ids in breadth-first layout: node 0 is the root,
// the children of node n are the nodes [child_begin[n], child_begin[n+1]),
// sorted by label, and the root's children are also reachable in O(1) through
// a dense map from feature id to node. Flat arrays, so a trie is a few file
// sections and can be memory-mapped.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "conjunct/features.h"

namespace conjunct {

struct TrieView {
  Span<int32_t> child_begin;  // n_nodes + 1
  Span<int32_t> label;        // n_nodes; label[0] (the root) is unused
  Span<int32_t> root_map;     // feature id -> child of the root, or -1

  size_t n_nodes() const { return label.size; }
  int32_t first_child(int32_t n) const { return child_begin[n]; }
  int32_t end_child(int32_t n) const { return child_begin[n + 1]; }
  bool has_children(int32_t n) const { return child_begin[n] < child_begin[n + 1]; }

  int32_t root_child(int32_t f) const {
    return static_cast<size_t>(f) < root_map.size ? root_map[f] : -1;
  }
  // The child of n labelled f, or -1.
  int32_t child(int32_t n, int32_t f) const {
    if (n == 0) return root_child(f);
    const int32_t b = child_begin[n], e = child_begin[n + 1];
    if (e - b <= 8) {  // most nodes have few children: a short scan beats a search
      for (int32_t c = b; c < e; ++c) {
        const int32_t l = label[c];
        if (l >= f) return l == f ? c : -1;
      }
      return -1;
    }
    const int32_t* it = std::lower_bound(label.data + b, label.data + e, f);
    return (it != label.data + e && *it == f) ? static_cast<int32_t>(it - label.data) : -1;
  }

  // Calls fn(child, i) for every child of n whose label is xs[i], i < n_xs
  // (xs ascending). Merges when the two lists are of similar length and
  // binary-searches the longer one otherwise.
  template <class Fn>
  void for_each_child_in(int32_t n, const int32_t* xs, size_t n_xs, Fn&& fn) const {
    int32_t c = child_begin[n];
    const int32_t ce = child_begin[n + 1];
    if (c == ce || n_xs == 0) return;
    const size_t n_children = static_cast<size_t>(ce - c);
    if (n_children <= 4 * n_xs) {
      size_t i = 0;
      while (c < ce && i < n_xs) {
        const int32_t lc = label[c], lx = xs[i];
        if (lc < lx) ++c;
        else if (lx < lc) ++i;
        else { fn(c, i); ++c; ++i; }
      }
    } else {
      const int32_t* base = label.data;
      const int32_t* lo = base + c;
      const int32_t* end = base + ce;
      for (size_t i = 0; i < n_xs && lo != end; ++i) {
        lo = std::lower_bound(lo, end, xs[i]);
        if (lo != end && *lo == xs[i]) fn(static_cast<int32_t>(lo - base), i);
      }
    }
  }
};

// Owned arrays of a trie laid out by layout_bfs.
struct TrieArrays {
  std::vector<int32_t> child_begin, label, root_map;
  TrieView view() const { return TrieView{Span<int32_t>(child_begin), Span<int32_t>(label), Span<int32_t>(root_map)}; }
};

// Lays out a trie given per node its parent (parent[n] < n; node 0 is the
// root, its parent ignored) and its label; siblings must have distinct labels.
// Returns the arrays and fills new_id[old] = breadth-first id. `n_features`
// sizes the root map.
TrieArrays layout_bfs(const std::vector<int32_t>& parent, const std::vector<int32_t>& label, int32_t n_features,
                      std::vector<int32_t>& new_id);

}  // namespace conjunct
