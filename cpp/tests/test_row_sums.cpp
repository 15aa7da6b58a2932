// The dense rows of a degree-2 conjunction store (classify/row_sums.h): every
// variant gives the bits of the plain loop (positions ascending; per position
// its single row, then its pair rows in the order of x; per output), for
// every width K (one pass, several passes, a partial last vector), any range
// of positions, and writes nothing outside out[0, K).
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "conjunct/classify/row_sums.h"

#include "check.h"

using namespace conjunct;

static void reference(const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je, size_t K,
                      double* out) {
  for (size_t o = 0; o < K; ++o) {
    double s = out[o];
    for (size_t j = jb; j < je; ++j) {
      const size_t a = static_cast<size_t>(x[j]);
      s += single[a * K + o];
      for (size_t i = 0; i < j; ++i) s += pairs[(a * (a - 1) / 2 + static_cast<size_t>(x[i])) * K + o];
    }
    out[o] = s;
  }
}

static bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

int main() {
  std::mt19937 rng(7);
  // Values of very different scales, so that another order of additions gives other bits.
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double scales[3] = {1e-8, 1.0, 1e8};
  auto value = [&] { return unit(rng) * scales[rng() % 3]; };
  const size_t F = 30;  // features of the dense table
  for (size_t K = 1; K <= 110; ++K) {
    const DenseRowsFn avx = add_dense_rows_avx(K);
    if (K == 1 && avx == nullptr) std::printf("no AVX on this CPU or build: the portable variant only\n");
    CHECK(best_dense_rows(K) == (avx != nullptr ? avx : &add_dense_rows_portable));
    std::vector<double> single(F * K), pairs(F * (F - 1) / 2 * K);
    for (double& w : single) w = value();
    for (double& w : pairs) w = value();
    for (size_t n : {size_t{1}, size_t{2}, size_t{5}, size_t{17}}) {
      // n distinct ascending features.
      std::vector<int32_t> x;
      for (int32_t f = 0; f < static_cast<int32_t>(F) && x.size() < n; ++f)
        if (rng() % 2 || F - static_cast<size_t>(f) <= n - x.size()) x.push_back(f);
      for (size_t jb : {size_t{0}, n / 2})
        for (size_t je : {jb, jb + 1, n}) {
          if (je > n || je < jb) continue;
          // Guard values on both sides of the K outputs.
          std::vector<double> start(K + 8);
          for (double& w : start) w = value();
          std::vector<double> want = start, got = start;
          reference(single.data(), pairs.data(), x.data(), jb, je, K, want.data() + 4);
          add_dense_rows_portable(single.data(), pairs.data(), x.data(), jb, je, K, got.data() + 4);
          CHECK(same_bits(want, got));
          if (avx != nullptr) {
            got = start;
            avx(single.data(), pairs.data(), x.data(), jb, je, K, got.data() + 4);
            CHECK(same_bits(want, got));
          }
        }
    }
  }
  return report("row_sums");
}
