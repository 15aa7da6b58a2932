#include "conjunct/decode/beam.h"

#include <algorithm>
#include <numeric>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct BeamScratch {
  std::vector<int32_t> label, back, order, from;
  std::vector<double> score, cand;
};
}  // namespace

DecodeStats greedy(const Lattice& lat, int32_t* path) {
  const size_t N = lat.N, L = lat.L();
  if (N == 0) return {};
  const double* e0 = lat.row(0);
  path[0] = static_cast<int32_t>(std::max_element(e0, e0 + L) - e0);
  for (size_t n = 1; n < N; ++n) {
    double best;
    path[n] = static_cast<int32_t>(argmax_plus(lat.T->from(path[n - 1]), lat.row(n), L, &best));
  }
  return {path_score(lat, path), 1};
}

DecodeStats beam(const Lattice& lat, int32_t* path, size_t width) {
  const size_t N = lat.N, L = lat.L();
  if (N == 0) return {};
  if (width <= 1) return greedy(lat, path);
  const size_t B = std::min(width, L);
  const Transitions& T = *lat.T;
  BeamScratch& w = thread_scratch<BeamScratch>();
  std::vector<int32_t>&label = w.label, &back = w.back, &order = w.order, &from = w.from;
  std::vector<double>&score = w.score, &cand = w.cand;
  label.resize(N * B), back.resize(N * B), score.resize(N * B);
  order.resize(L), cand.resize(L), from.resize(L);
  auto keep_top = [&](size_t n, const double* s) {
    std::iota(order.begin(), order.end(), 0);
    std::nth_element(order.begin(), order.begin() + (B - 1), order.end(),
                     [s](int32_t a, int32_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
    for (size_t i = 0; i < B; ++i) label[n * B + i] = order[i], score[n * B + i] = s[order[i]];
  };
  keep_top(0, lat.row(0));
  for (size_t n = 1; n < N; ++n) {
    std::fill(cand.begin(), cand.end(), kNegInf);
    for (size_t i = 0; i < B; ++i) {
      const double s = score[(n - 1) * B + i];
      const double* r = T.from(label[(n - 1) * B + i]);
      const int32_t ii = static_cast<int32_t>(i);
      for (size_t y = 0; y < L; ++y) {
        const double v = s + r[y];
        const bool better = v > cand[y];
        cand[y] = better ? v : cand[y];
        from[y] = better ? ii : from[y];
      }
    }
    const double* e = lat.row(n);
    for (size_t y = 0; y < L; ++y) cand[y] += e[y];
    keep_top(n, cand.data());
    for (size_t i = 0; i < B; ++i) back[n * B + i] = from[label[n * B + i]];
  }
  const double* last = score.data() + (N - 1) * B;
  size_t i = static_cast<size_t>(std::max_element(last, last + B) - last);
  for (size_t n = N; n-- > 0;) {
    path[n] = label[n * B + i];
    if (n > 0) i = static_cast<size_t>(back[n * B + i]);
  }
  return {path_score(lat, path), 1};
}

}  // namespace conjunct
