#include "conjunct/scratch.h"
#include "conjunct/classify/split.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/pke.h"

namespace conjunct {

namespace {
struct SplitMargins {
  std::vector<double> m;
};
struct SplitScratch {
  std::vector<int32_t> count, touched;
  std::vector<uint8_t> marker;
};
}  // namespace

Split::Split(FeatureMap map, SplitView view, Span<double> bias)
    : Classifier(map, bias.size), v_(view), store_(view.common), bias_(bias) {
  if (view.common.n_outputs != bias.size || view.alpha.n_outputs != bias.size)
    throw std::invalid_argument("split: outputs do not match");
  if (view.alpha.n_rows != view.support_vectors.rows()) throw std::invalid_argument("split: alpha rows do not match");
  view.alpha.validate();
  for (int32_t s : view.rare_postings.indices)
    if (s < 0 || static_cast<size_t>(s) >= view.support_vectors.rows())
      throw std::invalid_argument("split: postings name an unknown support vector");
  ktable_ = view.kernel.table(view.max_sv_length);
  bounded_ = view.kernel.gamma >= 0 && view.kernel.coef0 >= 0;
  // The early-exit bounds at open: computed on first use, they made a process's first decision ~20 ms slower.
  if (bounded_) store_.bounds();
}

size_t Split::common_end(Span<int32_t> x) const {
  return static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v_.n_common) - x.begin());
}

int64_t Split::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  std::vector<double>& m = thread_scratch<SplitMargins>().m;
  m.assign(bias_.begin(), bias_.end());
  if (!early_exit) {
    add_remainder(x, 0, m.data());
    return decision.decide(m.data());
  }
  return decide_remainder(x, 0, m.data(), decision);
}

int64_t Split::decide_remainder(Span<int32_t> x, size_t p, double* out, const Decision& decision) const {
  if (!bounded_) {
    add_remainder(x, p, out);
    return decision.decide(out);
  }
  const size_t q = common_end(x);
  const size_t K = n_outputs();
  if (q >= x.size) {  // common features only: the store decides step by step, as PKE's does
    const float* common = store_.bounds();
    const ConjunctionStore::Walk walk(store_, x);
    return decide_in_steps(
        p, x.size, out, K, decision, [&](size_t j, double* lo, double* hi) { store_.add_bounds(common, x[j], lo, hi); },
        [&](size_t j, double* o) {
          walk.add(j, o);
          return j + 1;
        },
        store_.first_check(x, p));
  }
  // With rare features: the common part step by step as above, then the rare
  // features' kernel terms in one step; every check bounds what is left, the
  // rare block included.
  const double* rare = rare_sums();
  // Each vector sharing a rare feature gains one sliced increment, between
  // k(1)-k(0) and k(L)-k(L-1) (L bounds the overlap).
  const int64_t L = std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(x.size), v_.max_sv_length));
  const double inc_lo = ktable_.size() > 1 ? ktable_[1] - ktable_[0] : 0.0;
  const double inc_hi = static_cast<size_t>(L) < ktable_.size() ? ktable_[L] - ktable_[L - 1] : inc_lo;
  const size_t n_rare = v_.rare_postings.rows();
  const float* common = store_.bounds();
  const Span<int32_t> xc(x.data, q);
  const ConjunctionStore::Walk walk(store_, xc);
  return decide_in_steps(
      p, x.size, out, K, decision,
      [&](size_t j, double* lo, double* hi) {
        if (j < q) {
          store_.add_bounds(common, x[j], lo, hi);
          return;
        }
        const size_t r = static_cast<size_t>(x[j] - v_.n_common);
        if (r >= n_rare) return;
        const double* sums = rare + r * 2 * K;  // sums of the positive, then negative alpha
        for (size_t o = 0; o < K; ++o) {
          lo[o] += inc_lo * sums[o] + inc_hi * sums[K + o];
          hi[o] += inc_hi * sums[o] + inc_lo * sums[K + o];
        }
      },
      [&](size_t j, double* o) {
        if (j < q) {
          walk.add(j, o);
          return j + 1;
        }
        add_rare(x, j, o);  // the rare features' kernel terms, all at once
        return x.size;
      },
      store_.first_check(xc, p));
}

const double* Split::rare_sums() const {
  std::call_once(bounds_once_, [&] {
    const size_t K = n_outputs(), n_rare = v_.rare_postings.rows();
    rare_sums_.assign(n_rare * 2 * K, 0.0);
    std::vector<double> row(K);
    for (size_t r = 0; r < n_rare; ++r)
      for (int32_t s : v_.rare_postings.row(r)) {
        std::fill(row.begin(), row.end(), 0.0);
        v_.alpha.add_scaled(static_cast<size_t>(s), 1.0, row.data());
        for (size_t o = 0; o < K; ++o) rare_sums_[r * 2 * K + (row[o] > 0 ? o : K + o)] += row[o];
      }
  });
  return rare_sums_.data();
}

void Split::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  add_remainder(x, 0, out);
}

void Split::add_remainder(Span<int32_t> x, size_t p, double* out) const {
  const size_t q = common_end(x);
  if (p < q) store_.add_rarest(x, p, q, out);
  // Rare features beyond both the prefix and the common part go through the kernel.
  add_rare(x, std::max(p, q), out);
}

void Split::add_rare(Span<int32_t> x, size_t P, double* out) const {
  if (P >= x.size) return;
  SplitScratch& sc = thread_scratch<SplitScratch>();
  std::vector<int32_t>&count = sc.count, &touched = sc.touched;
  std::vector<uint8_t>& marker = sc.marker;
  const size_t n_sv = v_.support_vectors.rows();
  if (count.size() < n_sv) count.resize(n_sv, 0);
  touched.clear();
  const size_t n_rare_rows = v_.rare_postings.rows();
  for (size_t j = P; j < x.size; ++j) {
    const size_t r = static_cast<size_t>(x[j] - v_.n_common);
    if (r >= n_rare_rows) continue;
    for (int32_t s : v_.rare_postings.row(r))
      if (count[s]++ == 0) touched.push_back(s);
  }
  if (touched.empty()) return;
  // |s ∩ x[0..P)| by a marker over the prefix: s is ascending, so stop past its last id.
  const int32_t last = P > 0 ? x[P - 1] : -1;
  if (marker.size() < static_cast<size_t>(last + 1)) marker.resize(static_cast<size_t>(last + 1), 0);
  for (size_t j = 0; j < P; ++j) marker[x[j]] = 1;
  for (int32_t s : touched) {
    int64_t m = 0;
    for (int32_t g : v_.support_vectors.row(static_cast<size_t>(s))) {
      if (g > last) break;
      m += marker[g];
    }
    v_.alpha.add_scaled(static_cast<size_t>(s), ktable_[m + count[s]] - ktable_[m], out);
    count[s] = 0;
  }
  for (size_t j = 0; j < P; ++j) marker[x[j]] = 0;
}


Compiled compile_split(const Sections& inputs, const Meta& model, const Meta& options) {
  const ModelInput m = model_input(inputs, model);
  if (!m.is_kernel) throw std::invalid_argument("method 'split' needs a kernel model (support vectors)");
  const std::optional<int64_t> common = options.integer_or_none("common_features");
  const std::optional<double> min_support = options.real_or_none("min_support");
  if (common && min_support) throw std::invalid_argument("give either common_features or min_support, not both");
  const int32_t F = m.n_features;
  const size_t n_sv = m.rows.rows();
  int32_t n_common = F;
  if (common) {
    if (*common < 0) throw std::invalid_argument("common_features must be >= 0");
    n_common = static_cast<int32_t>(std::min<int64_t>(*common, F));
  } else if (m.kernel.degree > 1 || min_support) {
    // Goldberg & Elhadad: a feature is common when it occurs in at least
    // min_support support vectors (or that share of them when < 1); the common
    // set is then the top ranks of that size. (At d = 1 the expansion is the
    // weight vector, never larger than the support vectors: every feature.)
    double threshold = min_support.value_or(0.005);
    if (!(threshold >= 0.0)) throw std::invalid_argument("min_support must be >= 0");
    if (threshold < 1) threshold *= static_cast<double>(n_sv);
    threshold = std::max(threshold, 1.0);
    std::vector<int64_t> support(static_cast<size_t>(F), 0);
    for (int32_t f : m.rows.indices) ++support[static_cast<size_t>(f)];
    n_common = 0;
    for (int64_t s : support) n_common += static_cast<double>(s) >= threshold;
  }
  ConjunctionStoreArrays store = compile_store(m, options, n_common, 0.0, 1);
  std::vector<int64_t> rare_indptr;
  std::vector<int32_t> rare_indices;
  transpose(m.rows, n_common, F, rare_indptr, rare_indices);
  int64_t longest = 0;
  for (size_t i = 0; i < n_sv; ++i) longest = std::max<int64_t>(longest, static_cast<int64_t>(m.rows.row(i).size));
  Compiled c;
  c.meta.set("degree", int64_t{m.kernel.degree});
  c.meta.set("gamma", m.kernel.gamma);
  c.meta.set("coef0", m.kernel.coef0);
  c.meta.set("n_common", int64_t{n_common});
  c.meta.set("n_features", int64_t{F});
  c.meta.set("max_sv_length", longest);
  set_store_meta(store, c.meta);
  c.arrays.pass("col_map", "col_map", inputs);
  c.arrays.put("bias", constant_bias(m));
  put_store(std::move(store), c.arrays);
  c.arrays.pass("sv_indptr", "sv_indptr", inputs);
  c.arrays.pass("sv_indices", "sv_indices", inputs);
  c.arrays.put("rare_indptr", std::move(rare_indptr));
  c.arrays.put("rare_indices", std::move(rare_indices));
  put_alpha(m, c.arrays);
  return c;
}

Sections split_derived_sections(const Meta& meta, const Sections& arrays) {
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
  const TrieView trie{arrays.span<int32_t>("store.child_begin"), arrays.span<int32_t>("store.label"),
                      arrays.span<int32_t>("store.root_map")};
  const size_t n_nodes = trie.n_nodes();
  const Span<int64_t> row_begin = sparse ? arrays.span<int64_t>("store.row_begin") : Span<int64_t>();
  const Span<int32_t> row_output = sparse ? arrays.span<int32_t>("store.row_output") : Span<int32_t>();
  const size_t n_values = sparse ? row_output.size : n_nodes * K;
  const int64_t entries = dense_table_entries(n_dense, 2);
  // The store with zero weights: check_store checks its trie (and sparse rows) before any walk.
  {
    std::vector<double> zeros_dense(static_cast<size_t>(entries) * K, 0.0), zeros(n_values, 0.0);
    ConjunctionStoreView v;
    v.n_outputs = K;
    v.degree = 2;
    v.n_dense = static_cast<int32_t>(n_dense);
    v.dense = Span<double>(zeros_dense);
    v.trie = trie;
    if (sparse) v.row_begin = row_begin, v.row_output = row_output, v.row_value = Span<double>(zeros);
    else v.weight = Span<double>(zeros);
    check_store(v, static_cast<int32_t>(n_common), "store");
    if (trie.root_map.size != static_cast<size_t>(F)) throw std::invalid_argument("store: root_map does not cover n_features");
  }
  // Per value, the sum of the positive and of the negative alpha, side by side: a dense row's K positive
  // sums, then its K negative ones; a sparse row's values as (positive, negative) pairs.
  const size_t n_dense_values = static_cast<size_t>(entries) * K;
  std::vector<double> acc_dense(2 * n_dense_values, 0.0), acc(2 * n_values, 0.0);
  std::vector<uint8_t> level(n_nodes, 0);  // 1 or 2 (the root's children are level 1)
  for (int32_t c = trie.child_begin[0]; c < trie.child_begin[1]; ++c) {
    level[static_cast<size_t>(c)] = 1;
    for (int32_t g = trie.child_begin[c]; g < trie.child_begin[c + 1]; ++g) level[static_cast<size_t>(g)] = 2;
  }
  // out-of-row (node, output) sums: they must come to exactly zero (a value compile_split dropped).
  std::vector<std::pair<int64_t, double>> dropped_pos, dropped_neg;
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
  // order (as the compiler's), and f's rows and trie children stay in cache while they do.
  std::vector<int64_t> occ_ptr(static_cast<size_t>(n_common) + 1, 0);
  for (size_t sv = 0; sv < n_sv; ++sv) {
    if (a_ptr[sv] == a_ptr[sv + 1]) continue;
    for (int32_t f : svs.row(sv)) {
      if (f >= n_common) break;
      ++occ_ptr[static_cast<size_t>(f) + 1];
    }
  }
  for (size_t f = 0; f < static_cast<size_t>(n_common); ++f) occ_ptr[f + 1] += occ_ptr[f];
  std::vector<std::pair<int32_t, int32_t>> occ(static_cast<size_t>(occ_ptr[static_cast<size_t>(n_common)]));
  {
    std::vector<int64_t> fill(occ_ptr.begin(), occ_ptr.end() - 1);
    for (size_t sv = 0; sv < n_sv; ++sv) {
      if (a_ptr[sv] == a_ptr[sv + 1]) continue;
      const Span<int32_t> row = svs.row(sv);
      for (size_t j = 0; j < row.size && row[j] < n_common; ++j)
        occ[static_cast<size_t>(fill[static_cast<size_t>(row[j])]++)] = {static_cast<int32_t>(sv), static_cast<int32_t>(j)};
    }
  }
  size_t nv = 0;
  const int32_t* O = nullptr;
  const double* V = nullptr;
  const size_t* S = nullptr;
  auto add_row = [&](double* row) {  // a dense row (2K sums)
    for (size_t k = 0; k < nv; ++k) row[S[k]] += V[k];
  };
  auto add_node = [&](int32_t node) {
    if (!sparse) return add_row(acc.data() + static_cast<size_t>(node) * 2 * K);
    const int64_t first = row_begin[static_cast<size_t>(node)], last = row_begin[static_cast<size_t>(node) + 1];
    int64_t at = first;
    for (size_t k = 0; k < nv; ++k) {  // outputs ascending, as the row's
      while (at < last && row_output[at] < O[k]) ++at;
      if (at < last && row_output[at] == O[k]) acc[2 * static_cast<size_t>(at) + (V[k] < 0)] += V[k];
      else (V[k] > 0 ? dropped_pos : dropped_neg).emplace_back(static_cast<int64_t>(node) * static_cast<int64_t>(K) + O[k], V[k]);
    }
  };
  const size_t nd = static_cast<size_t>(n_dense);
  std::vector<int32_t> child_of(static_cast<size_t>(n_common), -1);  // f's children by label, while f is summed
  for (int32_t f = 0; f < n_common; ++f) {
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
    double* level2 = acc_dense.data() + (nd + static_cast<size_t>(f) * static_cast<size_t>(f - 1) / 2) * 2 * K;
    for (int64_t k = ob; k < oe; ++k) {
      const auto [sv, j] = occ[static_cast<size_t>(k)];
      const int32_t* row = svs.row(static_cast<size_t>(sv)).data;
      const int64_t ab = a_ptr[static_cast<size_t>(sv)];
      nv = static_cast<size_t>(a_ptr[static_cast<size_t>(sv) + 1] - ab);
      O = outs.data() + ab, V = vals.data() + ab, S = slots.data() + ab;
      if (f < n_dense) {
        add_row(acc_dense.data() + static_cast<size_t>(f) * 2 * K);
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
  auto sum_zero = [](std::vector<std::pair<int64_t, double>>& p, std::vector<std::pair<int64_t, double>>& n) {
    std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::stable_sort(n.begin(), n.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto* list : {&p, &n}) {
      std::vector<std::pair<int64_t, double>> sums;
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
  };
  if (!sum_zero(dropped_pos, dropped_neg))
    throw std::invalid_argument("store: a sparse row leaves out an output the support vectors give weight");
  const std::vector<double> c = kernel.subset_weights();
  std::vector<double> dense(n_dense_values), values(n_values);
  for (size_t e = 0; e < static_cast<size_t>(entries); ++e) {
    const double cr = e < nd ? c[1] : c[2];
    const double* sums = acc_dense.data() + e * 2 * K;
    for (size_t o = 0; o < K; ++o) dense[e * K + o] = cr * (sums[o] + sums[K + o]);
  }
  for (size_t n = 1; n < n_nodes; ++n) {
    if (level[n] == 0) throw std::invalid_argument("store: a degree-2 trie is two levels deep");
    const double cr = c[level[n]];
    if (!sparse) {
      const double* sums = acc.data() + n * 2 * K;
      for (size_t o = 0; o < K; ++o) values[n * K + o] = cr * (sums[o] + sums[K + o]);
      continue;
    }
    for (size_t i = static_cast<size_t>(row_begin[n]); i < static_cast<size_t>(row_begin[n + 1]); ++i) {
      values[i] = cr * (acc[2 * i] + acc[2 * i + 1]);
      if (values[i] == 0.0) throw std::invalid_argument("store: a sparse row holds a zero weight");
    }
  }
  Sections out;
  out.put("store.dense", std::move(dense));
  out.put(sparse ? "store.row_value" : "store.weight", std::move(values));
  std::vector<int64_t> rare_indptr;
  std::vector<int32_t> rare_indices;
  transpose(svs, static_cast<int32_t>(n_common), static_cast<int32_t>(F), rare_indptr, rare_indices);
  out.put("rare_indptr", std::move(rare_indptr));
  out.put("rare_indices", std::move(rare_indices));
  return out;
}

std::unique_ptr<Classifier> open_split(const Meta& meta, const Sections& arrays) {
  SplitView v;
  v.kernel = kernel_of(meta);
  const int64_t F = meta.integer("n_features"), n_common = meta.integer("n_common"), n_dense = meta.integer("n_dense");
  if (F < 0 || F > std::numeric_limits<int32_t>::max()) throw std::invalid_argument("n_features is out of range");
  if (n_common < 0 || n_common > F) throw std::invalid_argument("n_common is outside [0, n_features]");
  if (n_dense < 0 || n_dense > n_common) throw std::invalid_argument("n_dense is outside [0, n_common]");
  const Span<double> bias = bias_of(arrays);
  const Span<int32_t> col_map = arrays.span<int32_t>("col_map");
  check_col_map(col_map, static_cast<int32_t>(F));
  v.n_common = static_cast<int32_t>(n_common);
  v.common = store_of(arrays, bias.size, v.kernel.degree, static_cast<int32_t>(n_dense), v.n_common);
  if (v.common.trie.root_map.size != static_cast<size_t>(F)) throw std::invalid_argument("store: root_map does not cover n_features");
  v.support_vectors = csr_of(arrays, "sv_indptr", "sv_indices");
  check_csr(v.support_vectors, F, true, "support vectors");
  const size_t n_sv = v.support_vectors.rows();
  v.rare_postings = csr_of(arrays, "rare_indptr", "rare_indices");
  if (v.rare_postings.rows() != static_cast<size_t>(F - n_common))
    throw std::invalid_argument("rare postings: need one row per rare feature");
  check_csr(v.rare_postings, static_cast<int64_t>(n_sv), true, "rare postings");
  // The kernel of a vector counts its postings among x's rare features on top
  // of its overlap with x's prefix: both must be its own features.
  std::vector<int64_t> expected_ptr;
  std::vector<int32_t> expected;
  transpose(v.support_vectors, v.n_common, static_cast<int32_t>(F), expected_ptr, expected);
  if (!std::equal(expected_ptr.begin(), expected_ptr.end(), v.rare_postings.indptr.begin()) ||
      !std::equal(expected.begin(), expected.end(), v.rare_postings.indices.begin()))
    throw std::invalid_argument("rare postings do not match the support vectors");
  v.alpha = alpha_of(arrays, n_sv, bias.size);
  v.max_sv_length = 0;
  for (size_t i = 0; i < n_sv; ++i)
    v.max_sv_length = std::max<int64_t>(v.max_sv_length, static_cast<int64_t>(v.support_vectors.row(i).size));
  return std::make_unique<Split>(FeatureMap{col_map}, v, bias);
}

}  // namespace conjunct
