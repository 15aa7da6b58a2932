#include "conjunct/classify/checks.h"

#include <algorithm>
#include <cmath>
#include <climits>
#include <stdexcept>
#include <vector>

namespace conjunct {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& problem) {
  throw std::invalid_argument(what + ": " + problem);
}
}  // namespace

void check_csr(const CsrView& m, int64_t n_columns, bool ascending, const std::string& what) {
  const Span<int64_t> p = m.indptr;
  if (p.size == 0) fail(what, "row pointers are empty (need rows + 1 entries)");
  if (p[0] != 0) fail(what, "row pointers do not start at 0");
  for (size_t r = 1; r < p.size; ++r)
    if (p[r] < p[r - 1]) fail(what, "row pointers decrease at row " + std::to_string(r - 1));
  if (static_cast<uint64_t>(p[p.size - 1]) != m.indices.size)
    fail(what, "row pointers end at " + std::to_string(p[p.size - 1]) + " but there are " +
                   std::to_string(m.indices.size) + " indices");
  for (size_t r = 0; r + 1 < p.size; ++r) {
    const Span<int32_t> row = m.row(r);
    for (size_t k = 0; k < row.size; ++k) {
      if (row[k] < 0 || row[k] >= n_columns)
        fail(what, "row " + std::to_string(r) + " holds id " + std::to_string(row[k]) + ", outside [0, " +
                       std::to_string(n_columns) + ")");
      if (ascending && k > 0 && row[k] <= row[k - 1])
        fail(what, "row " + std::to_string(r) + " is not strictly ascending");
    }
  }
}

void check_col_map(Span<int32_t> col_map, int32_t n_features) {
  for (size_t c = 0; c < col_map.size; ++c)
    if (col_map[c] < -1 || col_map[c] >= n_features)
      fail("col_map", "column " + std::to_string(c) + " maps to " + std::to_string(col_map[c]) + ", outside [-1, " +
                          std::to_string(n_features) + ")");
}

void check_finite(Span<double> values, const std::string& what) {
  for (size_t i = 0; i < values.size; ++i)
    if (!std::isfinite(values[i])) fail(what, "value " + std::to_string(i) + " is not finite");
}

void check_alpha(const AlphaRows& a, const std::string& what) {
  if (a.sparse()) {
    if (a.ptr.size != a.n_rows + 1) fail(what, "sparse row pointers need one entry per support vector + 1");
    if (a.ptr[0] != 0) fail(what, "sparse row pointers do not start at 0");
    for (size_t r = 0; r < a.n_rows; ++r)
      if (a.ptr[r + 1] < a.ptr[r]) fail(what, "sparse row pointers decrease");
    if (static_cast<uint64_t>(a.ptr[a.n_rows]) != a.output.size || a.output.size != a.value.size)
      fail(what, "sparse rows do not match their outputs and values");
    for (int32_t o : a.output)
      if (o < 0 || static_cast<size_t>(o) >= a.n_outputs) fail(what, "names output " + std::to_string(o));
    check_finite(a.value, what);
  } else {
    if (a.dense.size != a.n_rows * a.n_outputs)
      fail(what, "has " + std::to_string(a.dense.size) + " values, expected " + std::to_string(a.n_rows) + " x " +
                     std::to_string(a.n_outputs));
    check_finite(a.dense, what);
  }
}

void check_trie(const TrieView& t, int32_t n_features, int32_t min_root_label, LabelOrder order, int max_depth,
                const std::string& what) {
  const size_t n = t.label.size;
  if (n == 0) fail(what, "has no root");
  if (n > static_cast<size_t>(INT32_MAX)) fail(what, "has too many nodes");
  if (t.child_begin.size != n + 1) fail(what, "child_begin needs one entry per node + 1");
  if (t.root_map.size != static_cast<size_t>(n_features))
    fail(what, "root_map has " + std::to_string(t.root_map.size) + " entries, expected " + std::to_string(n_features));
  if (t.child_begin[0] != 1 || t.child_begin[n] != static_cast<int32_t>(n))
    fail(what, "child_begin does not cover the nodes");
  // Breadth-first: the children of v are a run after v, runs follow each other.
  std::vector<int32_t> depth(n, 0);
  for (size_t v = 0; v < n; ++v) {
    const int32_t b = t.child_begin[v], e = t.child_begin[v + 1];
    if (e < b || b <= static_cast<int32_t>(v)) fail(what, "child_begin is not a breadth-first layout at node " + std::to_string(v));
    for (int32_t c = b; c < e; ++c) {
      const int32_t l = t.label[c];
      if (l < 0 || l >= n_features) fail(what, "node " + std::to_string(c) + " has label " + std::to_string(l));
      if (c > b && l <= t.label[c - 1]) fail(what, "the children of node " + std::to_string(v) + " are not ascending");
      if (v == 0) {
        if (l < min_root_label) fail(what, "root child " + std::to_string(c) + " has label " + std::to_string(l));
      } else if (order == LabelOrder::Descending ? l >= t.label[v] : l <= t.label[v]) {
        fail(what, "node " + std::to_string(c) + " breaks the label order along its path");
      }
      if (depth[v] + 1 > max_depth) fail(what, "a path is deeper than " + std::to_string(max_depth));
      depth[c] = depth[v] + 1;
    }
  }
  int64_t mapped = 0;
  for (size_t f = 0; f < t.root_map.size; ++f) {
    const int32_t c = t.root_map[f];
    if (c == -1) continue;
    if (c < t.child_begin[0] || c >= t.child_begin[1] || t.label[c] != static_cast<int32_t>(f))
      fail(what, "root_map entry " + std::to_string(f) + " is not the root's child labelled " + std::to_string(f));
    ++mapped;
  }
  if (mapped != t.child_begin[1] - t.child_begin[0]) fail(what, "root_map misses children of the root");
}

void check_store(const ConjunctionStoreView& s, int32_t label_limit, const std::string& what) {
  if (s.degree < 1 || s.degree > 63) fail(what, "degree must be in [1, 63]");
  if (s.n_outputs == 0) fail(what, "has no outputs");
  const int32_t F = static_cast<int32_t>(s.trie.root_map.size);
  if (s.n_dense < 0 || s.n_dense > F) fail(what, "n_dense is outside [0, n_features]");
  if (s.n_dense > 0 && s.degree > kMaxDenseDegree) fail(what, "a dense table needs degree <= 4");
  check_trie(s.trie, F, s.n_dense, LabelOrder::Descending, s.degree, what + " trie");
  for (int32_t c = s.trie.child_begin[0]; c < s.trie.child_begin[1]; ++c)
    if (s.trie.label[c] >= label_limit) fail(what, "a conjunction's rarest member is outside the expanded features");
  if (s.sparse()) {
    if (s.n_outputs < 2) fail(what, "sparse rows need K >= 2 outputs");
    if (s.weight.size != 0) fail(what, "has both dense and sparse rows");
    const size_t n = s.trie.n_nodes();
    if (s.row_begin.size != n + 1) fail(what, "row_begin needs one entry per trie node, plus one");
    if (s.row_begin[0] != 0) fail(what, "row_begin must start at 0");
    if (s.row_output.size != s.row_value.size) fail(what, "row_output and row_value differ in length");
    if (s.row_begin[n] != static_cast<int64_t>(s.row_value.size)) fail(what, "row_begin must end at the number of values");
    // Monotone from 0 to the number of values first: then every row is in bounds.
    for (size_t v = 0; v < n; ++v)
      if (s.row_begin[v + 1] < s.row_begin[v]) fail(what, "row_begin must not decrease");
    for (size_t v = 0; v < n; ++v) {
      const int64_t b = s.row_begin[v], e = s.row_begin[v + 1];
      for (int64_t i = b; i < e; ++i) {
        const int32_t o = s.row_output[i];
        if (o < 0 || static_cast<size_t>(o) >= s.n_outputs) fail(what, "row_output outside [0, K)");
        if (i > b && o <= s.row_output[i - 1]) fail(what, "row_output must ascend within a row");
      }
    }
    check_finite(s.row_value, what + " row_value");
  } else if (s.weight.size != s.trie.n_nodes() * s.n_outputs) {
    fail(what, "weight needs K values per trie node");
  }
  const int64_t entries = dense_table_entries(s.n_dense, std::min(s.degree, kMaxDenseDegree));
  if (s.dense.size != static_cast<size_t>(entries) * s.n_outputs)
    fail(what, "dense has " + std::to_string(s.dense.size) + " values, expected " + std::to_string(entries) + " x K");
  if (!s.sparse()) check_finite(s.weight, what + " weight");
  check_finite(s.dense, what + " dense");
}

}  // namespace conjunct
