// An fstrie's prefix margins (trie.weight), recomputed at load bit for bit as
// build_fstrie computed them: breadth-first, each node's K margins are its
// parent's plus the base's remainder for its own label, added by the same
// ConjunctiveBase::add_remainder. Nodes of one depth depend only on the
// depth above, so a depth's nodes are shared among threads; every value's
// additions stay one thread's, in the serial order.
#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/classify/derived.h"
#include "conjunct/classify/fstrie.h"
#include "conjunct/util/parallel.h"

namespace conjunct {

namespace {
constexpr size_t kMaxThreads = 4;
constexpr size_t kNodesPerThread = 50'000;  // below it a thread costs more than it saves
}  // namespace

Sections fstrie_derived_sections(const Meta& meta, const Sections& arrays, size_t n_threads) {
  int32_t F = 0;
  std::unique_ptr<Classifier> owner = open_trie_base("fstrie", meta, arrays, &F);  // checks the base
  const ConjunctiveBase& base = conjunctive(owner.get(), "fstrie");
  const size_t K = owner->n_outputs();
  const TrieView trie{arrays.span<int32_t>("trie.child_begin"), arrays.span<int32_t>("trie.label"),
                      arrays.span<int32_t>("trie.root_map")};
  check_trie(trie, F, 0, LabelOrder::Ascending, std::max(F, 1), "trie");
  const size_t n = trie.n_nodes();
  std::vector<int32_t> parent(n, 0), depth(n, 0);
  for (size_t v = 0; v < n; ++v)
    for (int32_t c = trie.first_child(static_cast<int32_t>(v)); c < trie.end_child(static_cast<int32_t>(v)); ++c) {
      parent[c] = static_cast<int32_t>(v);
      depth[c] = depth[v] + 1;
    }
  std::vector<size_t> level_begin;  // breadth-first: each depth's nodes are one run
  for (size_t v = 0; v < n; ++v)
    if (v == 0 || depth[v] != depth[v - 1]) {
      if (v > 0 && depth[v] < depth[v - 1]) throw std::invalid_argument("trie: nodes are not in breadth-first order");
      level_begin.push_back(v);
    }
  level_begin.push_back(n);
  std::vector<double> weight(n * K, 0.0);
  double* w = weight.data();
  std::copy(base.constant(), base.constant() + K, w);
  const size_t hw = std::max<size_t>(1, std::thread::hardware_concurrency());
  const size_t max_threads = n_threads > 0 ? n_threads : std::min(kMaxThreads, hw);
  for (size_t l = 1; l + 1 < level_begin.size(); ++l) {
    const size_t lo = level_begin[l], hi = level_begin[l + 1];
    const size_t parts = std::max<size_t>(1, std::min(max_threads, (hi - lo) / kNodesPerThread));
    run_parts(parts, [&](size_t t) {
      std::vector<int32_t> prefix;
      for (size_t v = lo + (hi - lo) * t / parts, end = lo + (hi - lo) * (t + 1) / parts; v < end; ++v) {
        prefix.assign(static_cast<size_t>(depth[v]), 0);
        for (int32_t u = static_cast<int32_t>(v), k = depth[v] - 1; u != 0; u = parent[u], --k) prefix[k] = trie.label[u];
        double* row = w + v * K;
        std::copy(w + static_cast<size_t>(parent[v]) * K, w + static_cast<size_t>(parent[v] + 1) * K, row);
        base.add_remainder(Span<int32_t>(prefix), prefix.size() - 1, row);
      }
    });
  }
  Sections out;
  out.put("trie.weight", std::move(weight));
  return out;
}

}  // namespace conjunct
