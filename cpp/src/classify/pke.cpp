#include "conjunct/scratch.h"
#include "conjunct/classify/pke.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/kernel_expansion.h"

namespace conjunct {

namespace {
struct PkeScratch {
  std::vector<double> m;
};
}  // namespace

Pke::Pke(FeatureMap map, ConjunctionStoreView store, Span<double> bias)
    : Classifier(map, bias.size), store_(store), bias_(bias) {
  if (store.n_outputs != bias.size) throw std::invalid_argument("pke: bias does not match the store's outputs");
  // The early-exit bounds at open: computed on first use, they made a process's first decision ~20 ms slower.
  store_.bounds();
}

int64_t Pke::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  double one;
  double* m = &one;
  if (n_outputs() > 1) {
    std::vector<double>& v = thread_scratch<PkeScratch>().m;
    v.resize(n_outputs());
    m = v.data();
  }
  std::copy(bias_.begin(), bias_.end(), m);
  if (!early_exit) {
    store_.add_rarest(x, 0, x.size, m);
    return decision.decide(m);
  }
  return decide_remainder(x, 0, m, decision);
}

int64_t Pke::decide_remainder(Span<int32_t> x, size_t p, double* out, const Decision& decision) const {
  const float* bounds = store_.bounds();
  const ConjunctionStore::Walk walk(store_, x);
  return decide_in_steps(
      p, x.size, out, n_outputs(), decision,
      [&](size_t j, double* lo, double* hi) { store_.add_bounds(bounds, x[j], lo, hi); },
      [&](size_t j, double* o) {
        walk.add(j, o);
        return j + 1;
      },
      store_.first_check(x, p));
}

void Pke::margins_internal(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < n_outputs(); ++o) out[o] = bias_[o];
  store_.add_rarest(x, 0, x.size, out);
}


namespace {
// The default growth factor of the dense table (see compile_store).
constexpr double kDenseGrowth = 1.25;
}  // namespace

ConjunctionStoreArrays compile_store(const ModelInput& m, const Meta& options, int32_t max_feature, double sigma,
                                     int64_t min_support) {
  const int degree = m.degree();
  const std::optional<int64_t> dense_bytes = options.integer_or_none("dense_bytes");
  const std::optional<int64_t> dense_features = options.integer_or_none("dense_features");
  const int32_t n_dense = std::min(choose_n_dense(degree, m.n_outputs, m.n_features, dense_bytes, dense_features), max_feature);
  double growth = 1.0;
  if (options.has("dense_growth")) {
    growth = options.real("dense_growth");
    if (!(growth >= 1.0)) throw std::invalid_argument("dense_growth must be >= 1");
  } else if (!dense_bytes && !dense_features && m.n_outputs == 1) {
    growth = kDenseGrowth;
  }
  if (!m.is_kernel) {
    if (sigma != 0.0 || min_support != 1)
      throw std::invalid_argument("sigma and min_support apply to kernel expansions; a conjunctive linear model is stored as is");
    return build_conjunction_store(m.rows, m.coef, m.n_outputs, m.n_features, n_dense, max_feature, growth);
  }
  ExpansionOptions opt;
  opt.sigma = sigma;
  opt.min_support = min_support;
  opt.n_dense = n_dense;
  opt.max_feature = max_feature;
  if (const auto limit = options.integer_or_none("max_conjunctions")) opt.max_nodes = std::max<int64_t>(*limit, 0);
  opt.dense_growth = growth;
  AlphaRows alpha;
  alpha.n_rows = m.rows.rows();
  alpha.n_outputs = m.n_outputs;
  alpha.dense = m.coef;
  return expand_kernel(m.kernel, m.rows, alpha, m.n_features, opt);
}

void set_store_meta(const ConjunctionStoreArrays& store, Meta& meta) {
  int64_t total = 0;
  for (int64_t c : store.count_by_size) total += c;
  meta.set("n_dense", int64_t{store.n_dense});
  meta.set("n_conjunctions", total);
  meta.set("conjunctions_by_size", store.count_by_size);
}

Compiled compile_pke(const Sections& inputs, const Meta& model, const Meta& options) {
  const ModelInput m = model_input(inputs, model);
  const double sigma = options.real_or_none("sigma").value_or(0.0);
  if (!(sigma >= 0.0) || !std::isfinite(sigma)) throw std::invalid_argument("sigma must be >= 0 and finite");
  const int64_t min_support = options.integer_or_none("min_support").value_or(1);
  if (min_support < 1) throw std::invalid_argument("min_support must be >= 1");
  ConjunctionStoreArrays store = compile_store(m, options, m.n_features, sigma, min_support);
  Compiled c;
  c.meta.set("degree", int64_t{m.degree()});
  c.meta.set("sigma", sigma);
  c.meta.set("min_support", min_support);
  c.meta.set("n_features", int64_t{m.n_features});
  set_store_meta(store, c.meta);
  c.arrays.pass("col_map", "col_map", inputs);
  c.arrays.put("bias", constant_bias(m));
  put_store(std::move(store), c.arrays);
  return c;
}

std::unique_ptr<Classifier> open_pke(const Meta& meta, const Sections& arrays) {
  const int64_t degree = meta.integer("degree"), n_dense = meta.integer("n_dense"), F = meta.integer("n_features");
  if (degree < 1 || degree > 63) throw std::invalid_argument("degree must be in [1, 63]");
  if (F < 0 || F > std::numeric_limits<int32_t>::max()) throw std::invalid_argument("n_features is out of range");
  if (n_dense < 0 || n_dense > F) throw std::invalid_argument("n_dense is outside [0, n_features]");
  const Span<double> bias = bias_of(arrays);
  const Span<int32_t> col_map = arrays.span<int32_t>("col_map");
  check_col_map(col_map, static_cast<int32_t>(F));
  const ConjunctionStoreView store =
      store_of(arrays, bias.size, static_cast<int>(degree), static_cast<int32_t>(n_dense), static_cast<int32_t>(F));
  if (store.trie.root_map.size != static_cast<size_t>(F)) throw std::invalid_argument("store: root_map does not cover n_features");
  return std::make_unique<Pke>(FeatureMap{col_map}, store, bias);
}

}  // namespace conjunct
