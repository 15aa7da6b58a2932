#include "conjunct/util/trie.h"

#include <numeric>
#include <stdexcept>

namespace conjunct {

TrieArrays layout_bfs(const std::vector<int32_t>& parent, const std::vector<int32_t>& label, int32_t n_features,
                      std::vector<int32_t>& new_id) {
  const size_t n = label.size();
  if (parent.size() != n || n == 0) throw std::invalid_argument("layout_bfs: parent and label sizes differ or the trie is empty");
  // Children lists by counting sort on the parent, then sorted by label.
  std::vector<int64_t> start(n + 1, 0);
  for (size_t v = 1; v < n; ++v) ++start[static_cast<size_t>(parent[v]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int32_t> kids(n > 0 ? n - 1 : 0);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (size_t v = 1; v < n; ++v) kids[fill[parent[v]]++] = static_cast<int32_t>(v);
  }
  for (size_t p = 0; p < n; ++p)
    std::sort(kids.begin() + start[p], kids.begin() + start[p + 1],
              [&](int32_t a, int32_t b) { return label[a] < label[b]; });

  TrieArrays out;
  out.child_begin.assign(n + 1, 0);
  out.label.assign(n, -1);
  out.root_map.assign(static_cast<size_t>(n_features), -1);
  new_id.assign(n, -1);
  std::vector<int32_t> order;  // order[new] = old
  order.reserve(n);
  order.push_back(0);
  new_id[0] = 0;
  for (size_t head = 0; head < order.size(); ++head) {
    const int32_t old = order[head];
    out.child_begin[head] = static_cast<int32_t>(order.size());
    for (int64_t k = start[old]; k < start[old + 1]; ++k) {
      const int32_t child = kids[k];
      if (k > start[old] && label[kids[k - 1]] == label[child]) throw std::invalid_argument("layout_bfs: duplicate sibling label");
      new_id[child] = static_cast<int32_t>(order.size());
      out.label[order.size()] = label[child];
      order.push_back(child);
    }
  }
  out.child_begin[n] = static_cast<int32_t>(n);
  for (int32_t c = out.child_begin[0]; c < out.child_begin[1]; ++c) {
    const int32_t f = out.label[c];
    if (f < 0 || f >= n_features) throw std::invalid_argument("layout_bfs: root label outside the feature range");
    out.root_map[f] = c;
  }
  return out;
}

}  // namespace conjunct
