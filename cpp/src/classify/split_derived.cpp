// A degree-2 split classifier's derived sections, recomputed at load bit for
// bit as compile_split computed them (see split.h).
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/split.h"
#include "conjunct/util/parallel.h"

namespace conjunct {

namespace {

// A zeroed buffer of doubles from calloc: large ones come as fresh pages, so
// nothing is written before the sums are; shrink() gives back its tail.
struct Zeroed {
  double* p = nullptr;
  size_t n = 0;
  explicit Zeroed(size_t count) : n(count) {
    p = static_cast<double*>(std::calloc(std::max<size_t>(count, 1), sizeof(double)));
    if (p == nullptr) throw std::bad_alloc();
  }
  Zeroed(const Zeroed&) = delete;
  Zeroed& operator=(const Zeroed&) = delete;
  ~Zeroed() { std::free(p); }
  void shrink(size_t count) {
    if (void* q = std::realloc(p, std::max<size_t>(count, 1) * sizeof(double))) p = static_cast<double*>(q);
    n = count;
  }
  // Hands the buffer to an Array (the numpy array it becomes frees it).
  void put(Sections& out, const std::string& name) {
    Array a;
    a.dtype = DType::Float64;
    a.data = p;
    a.shape = {n};
    a.owner = std::shared_ptr<const void>(p, [](const void* q) { std::free(const_cast<void*>(q)); });
    p = nullptr;
    out.add(name, std::move(a));
  }
};

using Dropped = std::vector<std::pair<int64_t, double>>;

// Whether every (node, output) sum a sparse row left out comes to exactly zero: the positive alpha summed
// in support-vector order, then the negative ones, as the compiler summed them before it dropped the value.
bool sums_to_zero(Dropped& p, Dropped& n) {
  std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(n.begin(), n.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto* list : {&p, &n}) {
    Dropped sums;
    for (const auto& [k, a] : *list) {
      if (sums.empty() || sums.back().first != k) sums.emplace_back(k, 0.0);
      sums.back().second += a;
    }
    list->swap(sums);
  }
  size_t a = 0, b = 0;
  while (a < p.size() || b < n.size()) {
    const int64_t k = a < p.size() && (b >= n.size() || p[a].first <= n[b].first) ? p[a].first : n[b].first;
    const double sp = a < p.size() && p[a].first == k ? p[a++].second : 0.0;
    const double sn = b < n.size() && n[b].first == k ? n[b++].second : 0.0;
    if (sp + sn != 0.0) return false;
  }
  return true;
}

// At most this many threads, and one per this many additions: below it a thread costs more than it saves.
constexpr size_t kMaxThreads = 4;
constexpr int64_t kWorkPerThread = 4'000'000;

// The store trie of a degree-2 split classifier's common features as expand_kernel lays it out (breadth-first,
// node 0 the root, labelled -1): the root's children are the common features f >= n_dense that occur in a support
// vector, ascending; f's children are the features g < f that share a support vector with it, ascending (every
// conjunction a support vector holds is stored, whatever its weight). root_map has F entries.
void store_trie(const CsrView& svs, int64_t F, int64_t n_common, int64_t n_dense, size_t n_threads,
                std::vector<int32_t>& child_begin, std::vector<int32_t>& label, std::vector<int32_t>& root_map) {
  const size_t nc = static_cast<size_t>(n_common), n_sv = svs.rows();
  std::vector<int64_t> ptr(nc + 1, 0);
  for (size_t sv = 0; sv < n_sv; ++sv) {
    const Span<int32_t> row = svs.row(sv);
    for (size_t j = 0; j < row.size && row[j] < n_common; ++j) ++ptr[static_cast<size_t>(row[j]) + 1];
  }
  for (size_t f = 0; f < nc; ++f) ptr[f + 1] += ptr[f];
  std::vector<std::pair<int32_t, int32_t>> occ(static_cast<size_t>(ptr[nc]));  // (support vector, position)
  {
    std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
    for (size_t sv = 0; sv < n_sv; ++sv) {
      const Span<int32_t> row = svs.row(sv);
      for (size_t j = 0; j < row.size && row[j] < n_common; ++j)
        occ[static_cast<size_t>(fill[static_cast<size_t>(row[j])]++)] = {static_cast<int32_t>(sv), static_cast<int32_t>(j)};
    }
  }
  root_map.assign(static_cast<size_t>(F), -1);
  label.assign(1, -1);
  std::vector<int64_t> work(nc + 1, 0);  // running additions of the children's search, to share the features
  for (int64_t f = n_dense; f < n_common; ++f) {
    if (ptr[static_cast<size_t>(f)] < ptr[static_cast<size_t>(f) + 1]) {
      root_map[static_cast<size_t>(f)] = static_cast<int32_t>(label.size());
      label.push_back(static_cast<int32_t>(f));
    }
    int64_t w = 0;
    for (int64_t e = ptr[static_cast<size_t>(f)]; e < ptr[static_cast<size_t>(f) + 1]; ++e) w += occ[static_cast<size_t>(e)].second;
    work[static_cast<size_t>(f) + 1] = work[static_cast<size_t>(f)] + w;
  }
  for (int64_t f = 0; f < n_dense; ++f) work[static_cast<size_t>(f) + 1] = work[static_cast<size_t>(f)];
  const size_t R = label.size() - 1;
  // Root children [kb, ke) of each part, of about equal work; each part lists its children in order.
  const int64_t total = work[nc];
  const size_t hw = std::max<size_t>(1, std::thread::hardware_concurrency());
  const size_t T = std::max<size_t>(
      1, n_threads > 0 ? n_threads : std::min<size_t>({kMaxThreads, hw, static_cast<size_t>(total / kWorkPerThread)}));
  std::vector<size_t> cut{1};
  for (size_t k = 1; k <= R && cut.size() < T; ++k)
    if (work[static_cast<size_t>(label[k]) + 1] * static_cast<int64_t>(T) >= total * static_cast<int64_t>(cut.size()))
      cut.push_back(k + 1);
  cut.push_back(R + 1);
  const size_t parts = cut.size() - 1;
  std::vector<std::vector<int32_t>> kids(parts), counts(parts);
  run_parts(parts, [&](size_t t) {
    std::vector<int32_t> stamp(nc, -1);
    for (size_t k = std::min(cut[t], R + 1); k < cut[t + 1]; ++k) {
      const int32_t f = label[k];
      const size_t first = kids[t].size();
      for (int64_t e = ptr[static_cast<size_t>(f)]; e < ptr[static_cast<size_t>(f) + 1]; ++e) {
        const auto [sv, j] = occ[static_cast<size_t>(e)];
        const int32_t* row = svs.row(static_cast<size_t>(sv)).data;
        for (int32_t i = 0; i < j; ++i)
          if (stamp[static_cast<size_t>(row[i])] != f) stamp[static_cast<size_t>(row[i])] = f, kids[t].push_back(row[i]);
      }
      std::sort(kids[t].begin() + static_cast<int64_t>(first), kids[t].end());
      counts[t].push_back(static_cast<int32_t>(kids[t].size() - first));
    }
  });
  size_t n_total = label.size();
  for (const auto& v : kids) n_total += v.size();
  if (n_total >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) throw std::length_error("store: more than 2^31 conjunctions");
  child_begin.assign(1, 1);
  int32_t at = static_cast<int32_t>(R + 1);  // node ids are label indices: f's children start where the last ended
  for (const auto& part : counts)
    for (int32_t c : part) child_begin.push_back(at), at += c;
  label.reserve(n_total);
  for (const auto& part : kids) label.insert(label.end(), part.begin(), part.end());
  const int32_t n = static_cast<int32_t>(label.size());
  child_begin.resize(static_cast<size_t>(n) + 1, n);
}

}  // namespace

Sections split_derived_sections(const Meta& meta, const Sections& arrays, size_t n_threads) {
  const PolyKernel kernel = kernel_of(meta);
  if (kernel.degree != 2) throw std::invalid_argument("only a degree-2 split store is recomputed at load");
  const int64_t F = meta.integer("n_features"), n_common = meta.integer("n_common"), n_dense = meta.integer("n_dense");
  if (F < 0 || F > std::numeric_limits<int32_t>::max()) throw std::invalid_argument("n_features is out of range");
  if (n_common < 0 || n_common > F) throw std::invalid_argument("n_common is outside [0, n_features]");
  if (n_dense < 0 || n_dense > n_common) throw std::invalid_argument("n_dense is outside [0, n_common]");
  const size_t K = bias_of(arrays).size;
  const CsrView svs = csr_of(arrays, "sv_indptr", "sv_indices");
  check_csr(svs, F, true, "support vectors");
  const size_t n_sv = svs.rows();
  const AlphaRows alpha = alpha_of(arrays, n_sv, K);
  alpha.validate();
  const bool sparse = arrays.has("store.row_begin");
  // A file may leave out the trie as well: it is every conjunction the support vectors hold (store_trie).
  const int n_trie = arrays.has("store.child_begin") + arrays.has("store.label") + arrays.has("store.root_map");
  if (n_trie != 0 && n_trie != 3) throw std::invalid_argument("store: the trie's sections are given in part");
  std::vector<int32_t> own_begin, own_label, own_root;
  if (n_trie == 0) {
    // Each internal id is one column's (checked when the classifier opens): no more ids than columns, before
    // the root map of n_features entries is allocated.
    if (F > static_cast<int64_t>(arrays.span<int32_t>("col_map").size))
      throw std::invalid_argument("n_features is more than the column map's length");
    store_trie(svs, F, n_common, n_dense, n_threads, own_begin, own_label, own_root);
  }
  const TrieView trie = n_trie == 0 ? TrieView{Span<int32_t>(own_begin), Span<int32_t>(own_label), Span<int32_t>(own_root)}
                                    : TrieView{arrays.span<int32_t>("store.child_begin"), arrays.span<int32_t>("store.label"),
                                               arrays.span<int32_t>("store.root_map")};
  const size_t n_nodes = trie.n_nodes();
  const Span<int64_t> row_begin = sparse ? arrays.span<int64_t>("store.row_begin") : Span<int64_t>();
  const Span<int32_t> row_output = sparse ? arrays.span<int32_t>("store.row_output") : Span<int32_t>();
  const size_t n_values = sparse ? row_output.size : n_nodes * K;
  const int64_t entries = dense_table_entries(n_dense, 2);
  const size_t n_dense_values = static_cast<size_t>(entries) * K;
  // Per value, the sum of the positive and of the negative alpha, side by side: a dense row's K positive
  // sums, then its K negative ones; a sparse row's values as (positive, negative) pairs. The weights are
  // then written over the first half in place, and the buffers become the sections.
  Zeroed acc_dense(2 * n_dense_values), acc(2 * n_values);
  {  // The store with zero weights: check_store checks its trie (and sparse rows) before any walk.
    ConjunctionStoreView v;
    v.n_outputs = K;
    v.degree = 2;
    v.n_dense = static_cast<int32_t>(n_dense);
    v.dense = Span<double>(acc_dense.p, n_dense_values);
    v.trie = trie;
    if (sparse) v.row_begin = row_begin, v.row_output = row_output, v.row_value = Span<double>(acc.p, n_values);
    else v.weight = Span<double>(acc.p, n_values);
    check_store(v, static_cast<int32_t>(n_common), "store");
    if (trie.root_map.size != static_cast<size_t>(F)) throw std::invalid_argument("store: root_map does not cover n_features");
  }
  std::vector<uint8_t> level(n_nodes, 0);  // 1 or 2 (the root's children are level 1)
  for (int32_t c = trie.child_begin[0]; c < trie.child_begin[1]; ++c) {
    level[static_cast<size_t>(c)] = 1;
    for (int32_t g = trie.child_begin[c]; g < trie.child_begin[c + 1]; ++g) level[static_cast<size_t>(g)] = 2;
  }
  // Every support vector's non-zero alpha (outputs ascending): output, value, and its slot in a dense
  // row (o, or K + o), rows [a_ptr[s], a_ptr[s + 1]).
  std::vector<int64_t> a_ptr(n_sv + 1, 0);
  std::vector<int32_t> outs;
  std::vector<double> vals;
  std::vector<size_t> slots;
  for (size_t sv = 0; sv < n_sv; ++sv) {
    auto take = [&](int32_t o, double a) {
      if (a == 0.0) return;
      outs.push_back(o), vals.push_back(a), slots.push_back(static_cast<size_t>(o) + (a < 0 ? K : 0));
    };
    const size_t from = outs.size();
    if (alpha.sparse()) {
      for (int64_t e = alpha.ptr[sv]; e < alpha.ptr[sv + 1]; ++e) take(alpha.output[e], alpha.value[e]);
      if (!std::is_sorted(outs.begin() + static_cast<int64_t>(from), outs.end()))
        throw std::invalid_argument("alpha: a row's outputs are not ascending");
    } else {
      for (size_t o = 0; o < K; ++o) take(static_cast<int32_t>(o), alpha.dense[sv * K + o]);
    }
    a_ptr[sv + 1] = static_cast<int64_t>(outs.size());
  }
  // The occurrences of each common feature f as (support vector, position), support vectors ascending: the
  // conjunctions whose rarest member is f are summed f by f, so each one's additions come in support-vector
  // order (as the compiler's), and f's rows and trie children stay in cache while they do. work[f]: the
  // additions summing f's conjunctions takes, to share the features among threads.
  const size_t nc = static_cast<size_t>(n_common);
  std::vector<int64_t> occ_ptr(nc + 1, 0), work(nc, 0);
  for (size_t sv = 0; sv < n_sv; ++sv) {
    const int64_t nv = a_ptr[sv + 1] - a_ptr[sv];
    if (nv == 0) continue;
    const Span<int32_t> row = svs.row(sv);
    for (size_t j = 0; j < row.size && row[j] < n_common; ++j) {
      ++occ_ptr[static_cast<size_t>(row[j]) + 1];
      work[static_cast<size_t>(row[j])] += static_cast<int64_t>(j + 1) * nv;
    }
  }
  for (size_t f = 0; f < nc; ++f) occ_ptr[f + 1] += occ_ptr[f];
  std::vector<std::pair<int32_t, int32_t>> occ(static_cast<size_t>(occ_ptr[nc]));
  {
    std::vector<int64_t> fill(occ_ptr.begin(), occ_ptr.end() - 1);
    for (size_t sv = 0; sv < n_sv; ++sv) {
      if (a_ptr[sv] == a_ptr[sv + 1]) continue;
      const Span<int32_t> row = svs.row(sv);
      for (size_t j = 0; j < row.size && row[j] < n_common; ++j)
        occ[static_cast<size_t>(fill[static_cast<size_t>(row[j])]++)] = {static_cast<int32_t>(sv), static_cast<int32_t>(j)};
    }
  }
  const size_t nd = static_cast<size_t>(n_dense);
  // Sums the conjunctions of the common features [fb, fe). Each feature writes only its own rows (its
  // dense rows, or its trie node and that node's children), so disjoint ranges run in parallel, and
  // every value's additions are those, in that order, of one serial pass. Out-of-row (node, output)
  // sums are collected in `pos` / `neg` in f order: they must come to exactly zero (a value
  // compile_split dropped).
  auto sum_range = [&](int32_t fb, int32_t fe, Dropped& pos, Dropped& neg) {
    size_t nv = 0;
    const int32_t* O = nullptr;
    const double* V = nullptr;
    const size_t* S = nullptr;
    auto add_row = [&](double* row) {  // a dense row (2K sums)
      for (size_t k = 0; k < nv; ++k) row[S[k]] += V[k];
    };
    auto add_node = [&](int32_t node) {
      if (!sparse) return add_row(acc.p + static_cast<size_t>(node) * 2 * K);
      const int64_t first = row_begin[static_cast<size_t>(node)], last = row_begin[static_cast<size_t>(node) + 1];
      int64_t at = first;
      for (size_t k = 0; k < nv; ++k) {  // outputs ascending, as the row's
        while (at < last && row_output[at] < O[k]) ++at;
        if (at < last && row_output[at] == O[k]) acc.p[2 * static_cast<size_t>(at) + (V[k] < 0)] += V[k];
        else (V[k] > 0 ? pos : neg).emplace_back(static_cast<int64_t>(node) * static_cast<int64_t>(K) + O[k], V[k]);
      }
    };
    std::vector<int32_t> child_of(nc, -1);  // f's children by label, while f is summed
    for (int32_t f = fb; f < fe; ++f) {
      const int64_t ob = occ_ptr[static_cast<size_t>(f)], oe = occ_ptr[static_cast<size_t>(f) + 1];
      if (ob == oe) continue;
      int32_t node = -1, cb = 0, ce = 0;
      if (f >= n_dense) {
        node = trie.root_child(f);
        if (node <= 0 || level[static_cast<size_t>(node)] != 1)
          throw std::invalid_argument("store: the trie lacks a common feature of the support vectors");
        cb = trie.child_begin[node], ce = trie.child_begin[node + 1];
        for (int32_t c = cb; c < ce; ++c) child_of[static_cast<size_t>(trie.label[c])] = c;
      }
      double* level2 = acc_dense.p + (nd + static_cast<size_t>(f) * static_cast<size_t>(f - 1) / 2) * 2 * K;
      for (int64_t k = ob; k < oe; ++k) {
        const auto [sv, j] = occ[static_cast<size_t>(k)];
        const int32_t* row = svs.row(static_cast<size_t>(sv)).data;
        const int64_t ab = a_ptr[static_cast<size_t>(sv)];
        nv = static_cast<size_t>(a_ptr[static_cast<size_t>(sv) + 1] - ab);
        O = outs.data() + ab, V = vals.data() + ab, S = slots.data() + ab;
        if (f < n_dense) {
          add_row(acc_dense.p + static_cast<size_t>(f) * 2 * K);
          for (int32_t i = 0; i < j; ++i) add_row(level2 + static_cast<size_t>(row[i]) * 2 * K);
          continue;
        }
        add_node(node);
        for (int32_t i = 0; i < j; ++i) {
          const int32_t c = child_of[static_cast<size_t>(row[i])];
          if (c < 0) throw std::invalid_argument("store: the trie lacks a conjunction of the support vectors");
          add_node(c);
        }
      }
      for (int32_t c = cb; c < ce; ++c) child_of[static_cast<size_t>(trie.label[c])] = -1;
    }
  };
  // Contiguous feature ranges of about equal work, one per thread.
  int64_t total = 0;
  for (int64_t w : work) total += w;
  const size_t hw = std::max<size_t>(1, std::thread::hardware_concurrency());
  const size_t T = std::max<size_t>(1, n_threads > 0 ? n_threads
                                                     : std::min<size_t>({kMaxThreads, hw, static_cast<size_t>(total / kWorkPerThread)}));
  std::vector<int32_t> bounds{0};
  for (int64_t f = 0, done = 0; f < n_common && bounds.size() < T; ++f) {
    done += work[static_cast<size_t>(f)];
    if (done * static_cast<int64_t>(T) >= total * static_cast<int64_t>(bounds.size())) bounds.push_back(static_cast<int32_t>(f + 1));
  }
  bounds.push_back(static_cast<int32_t>(n_common));
  const size_t parts = bounds.size() - 1;
  std::vector<Dropped> pos(parts), neg(parts);
  // The first range's error is the one a serial pass meets first.
  run_parts(parts, [&](size_t t) { sum_range(bounds[t], bounds[t + 1], pos[t], neg[t]); });
  Dropped dropped_pos, dropped_neg;
  for (size_t t = 0; t < parts; ++t) {
    dropped_pos.insert(dropped_pos.end(), pos[t].begin(), pos[t].end());
    dropped_neg.insert(dropped_neg.end(), neg[t].begin(), neg[t].end());
  }
  if (!sums_to_zero(dropped_pos, dropped_neg))
    throw std::invalid_argument("store: a sparse row leaves out an output the support vectors give weight");
  // The weights, written over the sums in place: value i goes to i (a dense row e's output o to e*K + o),
  // at or before where its sums were (2i, 2i + 1; 2eK + o, 2eK + K + o), which are read first.
  const std::vector<double> c = kernel.subset_weights();
  for (size_t e = 0; e < static_cast<size_t>(entries); ++e) {
    const double cr = e < nd ? c[1] : c[2];
    const double* sums = acc_dense.p + e * 2 * K;
    for (size_t o = 0; o < K; ++o) acc_dense.p[e * K + o] = cr * (sums[o] + sums[K + o]);
  }
  if (!sparse && n_nodes > 0)  // the root's row holds no weight
    for (size_t o = 0; o < K; ++o) acc.p[o] = 0.0;
  for (size_t n = 1; n < n_nodes; ++n) {
    if (level[n] == 0) throw std::invalid_argument("store: a degree-2 trie is two levels deep");
    const double cr = c[level[n]];
    if (!sparse) {
      const double* sums = acc.p + n * 2 * K;
      for (size_t o = 0; o < K; ++o) acc.p[n * K + o] = cr * (sums[o] + sums[K + o]);
      continue;
    }
    for (size_t i = static_cast<size_t>(row_begin[n]); i < static_cast<size_t>(row_begin[n + 1]); ++i) {
      acc.p[i] = cr * (acc.p[2 * i] + acc.p[2 * i + 1]);
      if (acc.p[i] == 0.0) throw std::invalid_argument("store: a sparse row holds a zero weight");
    }
  }
  acc_dense.shrink(n_dense_values);
  acc.shrink(n_values);
  Sections out;
  acc_dense.put(out, "store.dense");
  acc.put(out, sparse ? "store.row_value" : "store.weight");
  std::vector<int64_t> rare_indptr;
  std::vector<int32_t> rare_indices;
  transpose(svs, static_cast<int32_t>(n_common), static_cast<int32_t>(F), rare_indptr, rare_indices);
  out.put("rare_indptr", std::move(rare_indptr));
  out.put("rare_indices", std::move(rare_indices));
  if (n_trie == 0) {
    out.put("store.child_begin", std::move(own_begin));
    out.put("store.label", std::move(own_label));
    out.put("store.root_map", std::move(own_root));
  }
  return out;
}

}  // namespace conjunct
