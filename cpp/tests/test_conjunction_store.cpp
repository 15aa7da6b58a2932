// The conjunction store (classify/conjunction_store.h): every stored t ⊆ x is
// summed once whatever the dense table's size, position by position; dense
// growth moves weights without changing a sum; the rarest-member bounds hold;
// the kernel expansion stores what the kernel computes; the checks of a
// file's store accept built stores and reject broken ones.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "conjunct/classify/checks.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/kernel_expansion.h"
#include "conjunct/kernel.h"

#include "check.h"

using namespace conjunct;

static bool close(double a, double b, double scale) { return std::fabs(a - b) <= 1e-9 * (1.0 + scale); }

using Weights = std::map<std::vector<int32_t>, std::vector<double>>;  // ascending conjunction -> K weights

// Sum of w(t) over stored t ⊆ x with x[j] as rarest member (j = -1: all of them), by enumeration.
static std::vector<double> brute(const Weights& w, const std::vector<int32_t>& x, size_t K, int j = -1) {
  std::vector<double> out(K, 0.0);
  for (const auto& [t, row] : w) {
    if (j >= 0 && t.back() != x[static_cast<size_t>(j)]) continue;
    if (std::includes(x.begin(), x.end(), t.begin(), t.end()))
      for (size_t o = 0; o < K; ++o) out[o] += row[o];
  }
  return out;
}

static std::vector<int32_t> random_set(std::mt19937& rng, int32_t F, double p) {
  std::vector<int32_t> x;
  std::bernoulli_distribution pick(p);
  for (int32_t f = 0; f < F; ++f)
    if (pick(rng)) x.push_back(f);
  return x;
}

static void check_sums(const ConjunctionStore& store, const Weights& w, std::mt19937& rng, int32_t F, size_t K,
                       const char* what) {
  double scale = 0.0;
  for (const auto& kv : w)
    for (double v : kv.second) scale += std::fabs(v);
  const float* bounds = store.bounds();
  for (int trial = 0; trial < 30; ++trial) {
    const std::vector<int32_t> x = random_set(rng, F, 0.3);
    const Span<int32_t> xs(x);
    std::vector<double> got(K, 0.0);
    store.add_rarest(xs, 0, x.size(), got.data());
    const std::vector<double> want = brute(w, x, K);
    bool ok = true;
    for (size_t o = 0; o < K; ++o) ok &= close(got[o], want[o], scale);
    if (!ok) std::fprintf(stderr, "%s: sum differs (|x| = %zu): %g vs %g\n", what, x.size(), got[0], want[0]);
    CHECK(ok);
    // Position by position, in one walk, and within the position's bounds.
    const ConjunctionStore::Walk walk(store, xs);
    for (size_t j = 0; j < x.size(); ++j) {
      std::vector<double> pos(K, 0.0), lo(K, 0.0), hi(K, 0.0);
      walk.add(j, pos.data());
      store.add_bounds(bounds, x[j], lo.data(), hi.data());
      const std::vector<double> expect = brute(w, x, K, static_cast<int>(j));
      for (size_t o = 0; o < K; ++o) {
        CHECK(close(pos[o], expect[o], scale));
        CHECK(lo[o] <= pos[o] + 1e-9 * scale && pos[o] <= hi[o] + 1e-9 * scale);
      }
    }
  }
}

static void test_explicit_conjunctions(uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t F = 2 + static_cast<int32_t>(rng() % 30);
  const int degree = 1 + static_cast<int>(rng() % 4);
  const size_t K = seed % 3 == 0 ? (seed % 2 == 0 ? 3 : 7) : 1;
  // With K = 7 a row has one non-zero output (as a multi-class support vector
  // moves a few of its K rows): the store keeps its rows sparse.
  const bool one_output = K == 7;
  Weights w;
  std::normal_distribution<double> normal;
  const int n = static_cast<int>(rng() % 80);
  for (int k = 0; k < n; ++k) {
    std::vector<int32_t> t = random_set(rng, F, 0.15);
    if (t.empty()) t.push_back(static_cast<int32_t>(rng() % F));
    if (t.size() > static_cast<size_t>(degree)) t.resize(static_cast<size_t>(degree));
    std::vector<double>& row = w[t];
    row.assign(K, 0.0);
    if (one_output) row[rng() % K] = normal(rng);
    else
      for (double& v : row) v = normal(rng);
  }
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  std::vector<double> weights;
  for (const auto& [t, row] : w) {
    indices.insert(indices.end(), t.begin(), t.end());
    indptr.push_back(static_cast<int64_t>(indices.size()));
    weights.insert(weights.end(), row.begin(), row.end());
  }
  const CsrView conj{Span<int64_t>(indptr), Span<int32_t>(indices)};
  for (int32_t n_dense : {0, 1, F / 2, F}) {
    ConjunctionStoreArrays a = build_conjunction_store(conj, Span<double>(weights), K, F, n_dense);
    check_store(a.view(), F, "store");
    if (one_output) CHECK(a.view().sparse() && a.weight.empty());
    if (K < 3) CHECK(!a.view().sparse());
    int64_t stored = 0;
    for (int64_t c : a.count_by_size) stored += c;
    int64_t nonzero = 0;
    for (const auto& kv : w) nonzero += std::any_of(kv.second.begin(), kv.second.end(), [](double v) { return v != 0; });
    CHECK(stored == nonzero);
    check_sums(ConjunctionStore(a.view()), w, rng, F, K, "explicit");
    // Growing the dense table moves conjunctions, and changes no sum.
    ConjunctionStoreArrays grown = build_conjunction_store(conj, Span<double>(weights), K, F, n_dense, F, 1e9);
    check_store(grown.view(), F, "grown");
    if (a.degree >= 3 && a.degree <= 4) CHECK(grown.n_dense == F && grown.trie.label.size() == 1);
    else CHECK(grown.n_dense == a.n_dense);
    int64_t grown_stored = 0;
    for (int64_t c : grown.count_by_size) grown_stored += c;
    CHECK(grown_stored == stored);
    check_sums(ConjunctionStore(grown.view()), w, rng, F, K, "grown");
  }
}

// The expansion of a kernel model stores w(t) = c_d(|t|) * sum_{i: t ⊆ s_i} alpha_i:
// the store's sum plus c_d(0) * sum(alpha) is the kernel margin.
static void test_kernel_expansion(uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t F = 2 + static_cast<int32_t>(rng() % 20);
  const int degree = 1 + static_cast<int>(rng() % 4);
  const PolyKernel kernel(1.0 + (rng() % 3) * 0.5, static_cast<double>(rng() % 3), degree);
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  std::vector<double> alpha;
  std::normal_distribution<double> normal;
  const int n_sv = 1 + static_cast<int>(rng() % 25);
  for (int i = 0; i < n_sv; ++i) {
    const std::vector<int32_t> s = random_set(rng, F, 0.3);
    indices.insert(indices.end(), s.begin(), s.end());
    indptr.push_back(static_cast<int64_t>(indices.size()));
    alpha.push_back(normal(rng));
  }
  const CsrView svs{Span<int64_t>(indptr), Span<int32_t>(indices)};
  AlphaRows rows;
  rows.n_rows = static_cast<size_t>(n_sv);
  rows.n_outputs = 1;
  rows.dense = Span<double>(alpha);
  const double c0 = kernel.subset_weights()[0];
  double sum_alpha = 0.0, scale = 0.0;
  for (double a : alpha) sum_alpha += a, scale += std::fabs(a) * kernel.value(F);
  for (int32_t n_dense : {0, F / 3}) {
    ExpansionOptions opt;
    opt.n_dense = degree <= kMaxDenseDegree ? n_dense : 0;
    opt.dense_growth = seed % 2 ? 1.25 : 1.0;
    const ConjunctionStoreArrays a = expand_kernel(kernel, svs, rows, F, opt);
    check_store(a.view(), F, "expansion");
    const ConjunctionStore store(a.view());
    for (int trial = 0; trial < 20; ++trial) {
      const std::vector<int32_t> x = random_set(rng, F, 0.35);
      double got = c0 * sum_alpha;
      store.add_rarest(Span<int32_t>(x), 0, x.size(), &got);
      double want = 0.0;
      for (int i = 0; i < n_sv; ++i) {
        const Span<int32_t> s = svs.row(static_cast<size_t>(i));
        int64_t m = 0;
        for (int32_t f : s) m += std::binary_search(x.begin(), x.end(), f);
        want += alpha[static_cast<size_t>(i)] * kernel.value(m);
      }
      if (!close(got, want, scale)) std::fprintf(stderr, "expansion (seed %u, d = %d): %g vs %g\n", seed, degree, got, want);
      CHECK(close(got, want, scale));
    }
  }
}

static void test_store_checks() {
  std::vector<int64_t> indptr{0, 1, 3, 5, 8};
  std::vector<int32_t> indices{0, 1, 4, 2, 5, 1, 3, 6};
  std::vector<double> weights{1, 2, 3, 4};
  const CsrView conj{Span<int64_t>(indptr), Span<int32_t>(indices)};
  const ConjunctionStoreArrays good = build_conjunction_store(conj, Span<double>(weights), 1, 7, 2);
  check_store(good.view(), 7, "store");
  auto with = [&](auto edit) {
    ConjunctionStoreArrays a = good;
    edit(a);
    return a;
  };
  const ConjunctionStoreArrays short_dense = with([](ConjunctionStoreArrays& a) { a.dense.pop_back(); });
  CHECK(throws([&] { check_store(short_dense.view(), 7, "store"); }, "dense has"));
  const ConjunctionStoreArrays nan = with([](ConjunctionStoreArrays& a) { a.weight[1] = std::nan(""); });
  CHECK(throws([&] { check_store(nan.view(), 7, "store"); }, "not finite"));
  const ConjunctionStoreArrays short_weight = with([](ConjunctionStoreArrays& a) { a.weight.pop_back(); });
  CHECK(throws([&] { check_store(short_weight.view(), 7, "store"); }, "weight needs"));
  CHECK(throws([&] { check_store(good.view(), 5, "store"); }, "outside the expanded features"));
  ConjunctionStoreView deep = good.view();
  deep.degree = 1;
  CHECK(throws([&] { check_store(deep, 7, "store"); }, "deeper"));
  ConjunctionStoreView too_dense = good.view();
  too_dense.n_dense = 8;
  CHECK(throws([&] { check_store(too_dense, 7, "store"); }, "n_dense"));
  // Unordered or repeated members are refused when building.
  std::vector<int64_t> bad_ptr{0, 2};
  std::vector<int32_t> bad_idx{3, 1};
  std::vector<double> one{1.0};
  CHECK(throws([&] { build_conjunction_store(CsrView{Span<int64_t>(bad_ptr), Span<int32_t>(bad_idx)}, Span<double>(one), 1, 7, 0); },
               "ascending"));
}

// Sparse rows are checked like dense ones: a crafted file cannot index past K
// or past the values.
static void test_sparse_store_checks() {
  std::vector<int64_t> indptr{0, 1, 3, 5, 8};
  std::vector<int32_t> indices{0, 1, 4, 2, 5, 1, 3, 6};
  std::vector<double> weights{1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 4, 0, 0};  // K = 4, one value a row
  const CsrView conj{Span<int64_t>(indptr), Span<int32_t>(indices)};
  const ConjunctionStoreArrays good = build_conjunction_store(conj, Span<double>(weights), 4, 7, 0);
  CHECK(good.view().sparse() && good.row_value.size() == 4);
  check_store(good.view(), 7, "store");
  auto with = [&](auto edit) {
    ConjunctionStoreArrays a = good;
    edit(a);
    return a;
  };
  auto refused = [&](auto edit, const char* message) {
    const ConjunctionStoreArrays a = with(edit);
    return throws([&] { check_store(a.view(), 7, "store"); }, message);
  };
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_output.back() = 4; }, "outside [0, K)"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_output.back() = -1; }, "outside [0, K)"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_begin.back() += 1; }, "end at the number"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_begin.pop_back(); }, "one entry per trie node"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_begin[0] = 1; }, "start at 0"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_begin[1] = a.row_begin[2] + 1; }, "decrease"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_value.pop_back(); }, "differ in length"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.row_value[0] = std::nan(""); }, "not finite"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.weight.assign((a.row_begin.size() - 1) * 4, 0.0); }, "both dense and sparse"));
  CHECK(refused([](ConjunctionStoreArrays& a) { a.n_outputs = 1; }, "K >= 2"));
  // Two values of one row out of order.
  const std::vector<double> two{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  ConjunctionStoreArrays pair = build_conjunction_store(conj, Span<double>(two), 4, 7, 0);
  CHECK(pair.view().sparse());
  check_store(pair.view(), 7, "store");
  std::swap(pair.row_output[0], pair.row_output[1]);
  CHECK(throws([&] { check_store(pair.view(), 7, "store"); }, "ascend"));
}

static void test_dense_sizes() {
  CHECK(dense_table_entries(10, 2) == 10 + 45);
  CHECK(dense_table_entries(10, 4) == 10 + 45 + 120 + 210);
  CHECK(dense_table_entries(0, 3) == 0);
  CHECK(throws([] { dense_table_entries(int64_t{1} << 30, 4); }, "too large"));
  CHECK(choose_n_dense(2, 1, 100, std::nullopt, int64_t{7}) == 7);
  CHECK(choose_n_dense(2, 1, 5, std::nullopt, int64_t{7}) == 5);
  CHECK(choose_n_dense(5, 1, 100, std::nullopt, std::nullopt) == 0);  // no table beyond degree 4
  // The largest table within the budget: 1,023 features at d = 2 in 4 MiB of doubles.
  const int32_t n = choose_n_dense(2, 1, 100000, std::nullopt, std::nullopt);
  CHECK(n == 1023);
  CHECK(dense_table_entries(n, 2) * 8 <= kDefaultDenseBytes && dense_table_entries(n + 1, 2) * 8 > kDefaultDenseBytes);
  CHECK(throws([] { choose_n_dense(2, 1, 10, int64_t{64}, int64_t{3}); }, "either"));
}

int main() {
  for (uint32_t seed = 0; seed < 150; ++seed) test_explicit_conjunctions(seed);
  for (uint32_t seed = 0; seed < 150; ++seed) test_kernel_expansion(seed);
  test_store_checks();
  test_sparse_store_checks();
  test_dense_sizes();
  return report("test_conjunction_store");
}
