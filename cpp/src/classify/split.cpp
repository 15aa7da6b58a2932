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
