#include "conjunct/scratch.h"
#include "conjunct/classify/fstrie.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "conjunct/classify/checks.h"

namespace conjunct {

namespace {
struct FstrieScratch {
  std::vector<double> m;
};
}  // namespace

const ConjunctiveBase& conjunctive(const Classifier* base, const std::string& what) {
  const auto* b = dynamic_cast<const ConjunctiveBase*>(base);
  if (b == nullptr) throw std::invalid_argument("the " + what + " classifier's base must be a pke or split classifier");
  return *b;
}

Fstrie::Fstrie(FeatureMap map, TrieView trie, Span<double> weight, std::unique_ptr<Classifier> base)
    : Classifier(map, base->n_outputs()), trie_(trie), weight_(weight), base_owner_(std::move(base)),
      base_(conjunctive(base_owner_.get(), "fstrie")) {
  if (weight.size != trie.n_nodes() * n_outputs()) throw std::invalid_argument("fstrie: weights do not match the trie");
  if (trie.child_begin.size != trie.n_nodes() + 1) throw std::invalid_argument("fstrie: malformed trie");
}

int32_t Fstrie::walk(Span<int32_t> x, size_t* p_out) const {
  int32_t node = 0;
  size_t p = 0;
  while (p < x.size) {
    const int32_t c = trie_.child(node, x[p]);
    if (c < 0) break;
    node = c;
    ++p;
  }
  *p_out = p;
  return node;
}

size_t Fstrie::prefix_length(Span<int32_t> x) const {
  size_t p = 0;
  walk(x, &p);
  return p;
}

int64_t Fstrie::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  size_t p = 0;
  const int32_t node = walk(x, &p);
  const size_t K = n_outputs();
  std::vector<double>& m = thread_scratch<FstrieScratch>().m;
  m.assign(weight_.data + static_cast<size_t>(node) * K, weight_.data + static_cast<size_t>(node + 1) * K);
  if (!early_exit) {
    if (p < x.size) base_.add_remainder(x, p, m.data());
    return decision.decide(m.data());
  }
  return base_.decide_remainder(x, p, m.data(), decision);
}

void Fstrie::margins_internal(Span<int32_t> x, double* out) const {
  size_t p = 0;
  const int32_t node = walk(x, &p);
  const size_t K = n_outputs();
  const double* w = weight_.data + static_cast<size_t>(node) * K;
  for (size_t o = 0; o < K; ++o) out[o] = w[o];
  if (p < x.size) base_.add_remainder(x, p, out);
}

namespace {

// Computation reduction of a prefix of length L: sum_{k=2..d} C(L-1, k-1).
double delta_d(int64_t L, int degree) {
  double total = 0.0, c = 1.0;  // c = C(L-1, k-1), starting at k = 1
  for (int k = 2; k <= degree; ++k) {
    c = c * static_cast<double>(L - 1 - (k - 2)) / static_cast<double>(k - 1);
    if (c <= 0) break;
    total += c;
  }
  return total;
}

}  // namespace

FstrieArrays build_fstrie(const CsrView& events, const ConjunctiveBase& base, size_t n_outputs, int degree,
                          int32_t n_features, int64_t max_nodes, Progress* progress) {
  if (progress == nullptr) progress = current_progress();
  FstrieArrays out;
  // Map, sort and deduplicate each event; then sort events and merge duplicates.
  std::vector<int64_t> ptr{0};
  std::vector<int32_t> ids;
  for (size_t r = 0; r < events.rows(); ++r) {
    const size_t begin = ids.size();
    for (int32_t f : events.row(r))
      if (f >= 0 && f < n_features) ids.push_back(f);
    std::sort(ids.begin() + begin, ids.end());
    ids.erase(std::unique(ids.begin() + begin, ids.end()), ids.end());
    ptr.push_back(static_cast<int64_t>(ids.size()));
  }
  const size_t n_events = events.rows();
  out.stats.events = static_cast<int64_t>(n_events);
  std::vector<int64_t> order(n_events);
  std::iota(order.begin(), order.end(), 0);
  auto seq = [&](int64_t r) { return std::make_pair(ids.data() + ptr[r], ids.data() + ptr[r + 1]); };
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    auto [a0, a1] = seq(a);
    auto [b0, b1] = seq(b);
    return std::lexicographical_compare(a0, a1, b0, b1);
  });

  // Insert every prefix; nodes are created in lexicographic (preorder) order.
  std::vector<int32_t> parent{0}, label{-1}, depth{0};
  std::vector<int64_t> count{0};
  std::vector<int32_t> path{0};  // node of each prefix length of the previous event
  const int32_t* prev_begin = nullptr;
  const int32_t* prev_end = nullptr;
  for (size_t k = 0; k < n_events; ++k) {
    if (progress != nullptr) progress->tick();
    auto [b, e] = seq(order[k]);
    size_t lcp = 0;
    if (prev_begin != nullptr)
      while (prev_begin + lcp < prev_end && b + lcp < e && prev_begin[lcp] == b[lcp]) ++lcp;
    if (prev_begin == nullptr || lcp < static_cast<size_t>(e - b) || static_cast<size_t>(prev_end - prev_begin) != lcp)
      ++out.stats.distinct_events;
    path.resize(lcp + 1);
    for (const int32_t* f = b + lcp; f < e; ++f) {
      if (parent.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        throw std::length_error("fstrie: more than 2^31 nodes");
      parent.push_back(path.back());
      label.push_back(*f);
      depth.push_back(depth[path.back()] + 1);
      count.push_back(0);
      path.push_back(static_cast<int32_t>(label.size() - 1));
    }
    for (int32_t node : path) ++count[node];
    prev_begin = b;
    prev_end = e;
  }
  const size_t n_nodes = label.size();
  out.stats.nodes_before = static_cast<int64_t>(n_nodes) - 1;

  // Algorithm 1: remove the lowest-utility leaf until at most max_nodes prefixes remain.
  std::vector<uint8_t> alive(n_nodes, 1);
  int64_t n_alive = static_cast<int64_t>(n_nodes) - 1;
  if (max_nodes >= 0 && n_alive > max_nodes) {
    std::vector<int32_t> live_children(n_nodes, 0);
    for (size_t v = 1; v < n_nodes; ++v) ++live_children[parent[v]];
    // Heap of (utility, node): smallest utility first; ties: largest preorder (= node id) first.
    using Entry = std::pair<double, int32_t>;
    auto worse = [](const Entry& a, const Entry& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
    auto utility = [&](int32_t v) { return static_cast<double>(count[v]) * delta_d(depth[v], degree); };
    for (size_t v = 1; v < n_nodes; ++v)
      if (live_children[v] == 0) heap.emplace(utility(static_cast<int32_t>(v)), static_cast<int32_t>(v));
    while (n_alive > max_nodes && !heap.empty()) {
      const int32_t v = heap.top().second;
      heap.pop();
      alive[v] = 0;
      --n_alive;
      const int32_t p = parent[v];
      if (p != 0 && --live_children[p] == 0) heap.emplace(utility(p), p);
    }
  }
  out.stats.nodes = n_alive;

  // Compact the survivors and lay them out breadth-first.
  std::vector<int32_t> old_to_kept(n_nodes, -1), kept_parent, kept_label;
  for (size_t v = 0; v < n_nodes; ++v) {
    if (!alive[v]) continue;
    old_to_kept[v] = static_cast<int32_t>(kept_label.size());
    kept_parent.push_back(v == 0 ? 0 : old_to_kept[parent[v]]);
    kept_label.push_back(label[v]);
  }
  std::vector<int32_t> new_id;
  out.trie = layout_bfs(kept_parent, kept_label, n_features, new_id);

  // Margins of every prefix, parents first: W(x_c) = W(x_c-) + the base's remainder.
  const size_t n_kept = kept_label.size();
  const TrieView view = out.trie.view();
  std::vector<int32_t> bfs_parent(n_kept, 0), bfs_depth(n_kept, 0);
  for (size_t n = 0; n < n_kept; ++n)
    for (int32_t c = view.first_child(static_cast<int32_t>(n)); c < view.end_child(static_cast<int32_t>(n)); ++c) {
      bfs_parent[c] = static_cast<int32_t>(n);
      bfs_depth[c] = bfs_depth[n] + 1;
    }
  out.weight.assign(n_kept * n_outputs, 0.0);
  std::copy(base.constant(), base.constant() + n_outputs, out.weight.begin());
  std::vector<int32_t> prefix;
  for (size_t n = 1; n < n_kept; ++n) {
    if (progress != nullptr) progress->tick();
    prefix.assign(static_cast<size_t>(bfs_depth[n]), 0);
    for (int32_t v = static_cast<int32_t>(n), k = bfs_depth[n] - 1; v != 0; v = bfs_parent[v], --k) prefix[k] = view.label[v];
    double* w = out.weight.data() + n * n_outputs;
    std::copy(out.weight.begin() + static_cast<size_t>(bfs_parent[n]) * n_outputs,
              out.weight.begin() + static_cast<size_t>(bfs_parent[n] + 1) * n_outputs, w);
    base.add_remainder(Span<int32_t>(prefix), prefix.size() - 1, w);
  }
  return out;
}


TrieBase compile_trie_base(const std::string& what, const Sections& inputs, const Meta& model, const Meta& options,
                           const char* own, Compiled& out) {
  // The options not in `own` are the base's.
  Meta base_options;
  for (const auto& [key, value] : options.values())
    if (key != "base" && key != "base_params" && !is_named(own, key)) base_options.set(key, value);
  TrieBase tb;
  tb.method = options.has("base") ? options.text("base") : "pke";
  if (tb.method != "pke" && tb.method != "split")
    throw std::invalid_argument("the " + what + " classifier's base must be 'pke' or 'split', got '" + tb.method + "'");
  if (inputs.has("base.col_map")) {  // a compiled base: reused as it is
    if (!base_options.values().empty())
      throw std::invalid_argument("the options of a compiled base cannot be changed (got '" +
                                  base_options.values().begin()->first + "')");
    tb.meta = options.sub("base_params");
    tb.arrays = inputs.prefixed("base");
    for (const auto& item : tb.arrays.items()) out.arrays.pass("base." + item.first, "base." + item.first, inputs);
  } else {
    if (options.has("base_params")) throw std::invalid_argument("base_params describe a compiled base, but none was given");
    Compiled base = compile_classifier(tb.method, inputs, model, base_options);
    tb.meta = std::move(base.meta);
    out.arrays.merge("base", base.arrays);
    tb.arrays = base.arrays.resolved(inputs);
  }
  tb.classifier = open_classifier(tb.method, tb.meta, tb.arrays);
  conjunctive(tb.classifier.get(), what);
  out.meta.set("degree", tb.meta.integer("degree"));
  out.meta.set("base", tb.method);
  out.meta.set("base_params", std::make_shared<const Meta>(tb.meta));
  out.arrays.add("col_map", out.arrays.at("base.col_map"));
  return tb;
}

Compiled compile_fstrie(const Sections& inputs, const Meta& model, const Meta& options) {
  Compiled c;
  TrieBase tb = compile_trie_base("fstrie", inputs, model, options, "max_nodes max_bytes", c);
  const ConjunctiveBase& b = conjunctive(tb.classifier.get(), "fstrie");
  const size_t K = tb.classifier->n_outputs();
  std::optional<int64_t> max_nodes = options.integer_or_none("max_nodes");
  if (options.has("max_bytes")) {
    if (max_nodes) throw std::invalid_argument("give either max_nodes or max_bytes, not both");
    max_nodes = std::max<int64_t>(options.integer("max_bytes") / static_cast<int64_t>(8 + 8 * K), 0);
  }
  if (max_nodes && *max_nodes < 0) throw std::invalid_argument("max_nodes must be >= 0");
  // Events in internal ids (-1: a feature the model does not know).
  const Span<int32_t> col_map = tb.arrays.span<int32_t>("col_map");
  const CsrView events = csr_of(inputs, "events_indptr", "events_indices");
  check_csr(events, std::numeric_limits<int32_t>::max(), false, "events");
  std::vector<int32_t> internal(events.indices.size);
  for (size_t k = 0; k < internal.size(); ++k) {
    const int32_t col = events.indices[k];
    internal[k] = static_cast<size_t>(col) < col_map.size ? col_map[static_cast<size_t>(col)] : -1;
  }
  const int64_t degree = tb.meta.integer("degree"), F = tb.meta.integer("n_features");
  FstrieArrays built = build_fstrie(CsrView{events.indptr, Span<int32_t>(internal)}, b, K, static_cast<int>(degree),
                                    static_cast<int32_t>(F), max_nodes.value_or(-1));
  c.meta.set("max_nodes", max_nodes ? Meta::Value(*max_nodes) : Meta::Value());
  c.meta.set("events", built.stats.events);
  c.meta.set("distinct_events", built.stats.distinct_events);
  c.meta.set("nodes_before_pruning", built.stats.nodes_before);
  c.meta.set("nodes", built.stats.nodes);
  c.arrays.put("trie.child_begin", std::move(built.trie.child_begin));
  c.arrays.put("trie.label", std::move(built.trie.label));
  c.arrays.put("trie.root_map", std::move(built.trie.root_map));
  c.arrays.put("trie.weight", std::move(built.weight));
  return c;
}

std::unique_ptr<Classifier> open_trie_base(const std::string& what, const Meta& meta, const Sections& arrays,
                                           int32_t* n_features) {
  const std::string& base_method = meta.text("base");
  if (base_method != "pke" && base_method != "split")
    throw std::invalid_argument("the " + what + " classifier's base must be 'pke' or 'split', got '" + base_method + "'");
  const Meta& base_meta = meta.sub("base_params");
  if (meta.integer("degree") != base_meta.integer("degree"))
    throw std::invalid_argument("degree differs from the base's");
  const Sections base_arrays = arrays.prefixed("base");
  std::unique_ptr<Classifier> base = open_classifier(base_method, base_meta, base_arrays);
  conjunctive(base.get(), what);
  *n_features = static_cast<int32_t>(base_meta.integer("n_features"));  // checked by the base
  const Span<int32_t> col_map = arrays.span<int32_t>("col_map");
  const Span<int32_t> base_map = base_arrays.span<int32_t>("col_map");
  if (col_map.size != base_map.size || !std::equal(col_map.begin(), col_map.end(), base_map.begin()))
    throw std::invalid_argument("col_map differs from the base's");
  return base;
}

TrieView checked_trie(const Sections& arrays, int32_t n_features, size_t n_outputs, Span<double>* weight) {
  const TrieView trie{arrays.span<int32_t>("trie.child_begin"), arrays.span<int32_t>("trie.label"),
                      arrays.span<int32_t>("trie.root_map")};
  check_trie(trie, n_features, 0, LabelOrder::Ascending, std::max(n_features, 1), "trie");
  *weight = arrays.span<double>("trie.weight");
  if (weight->size != trie.n_nodes() * n_outputs) throw std::invalid_argument("trie.weight needs K values per node");
  check_finite(*weight, "trie.weight");
  return trie;
}

std::unique_ptr<Classifier> open_fstrie(const Meta& meta, const Sections& arrays) {
  int32_t F = 0;
  std::unique_ptr<Classifier> base = open_trie_base("fstrie", meta, arrays, &F);
  Span<double> weight;
  const TrieView trie = checked_trie(arrays, F, base->n_outputs(), &weight);
  return std::make_unique<Fstrie>(FeatureMap{arrays.span<int32_t>("col_map")}, trie, weight, std::move(base));
}

}  // namespace conjunct
