#include "conjunct/decode/viterbi.h"

#include <algorithm>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct ViterbiScratch {
  std::vector<double> alpha;
};
}  // namespace

DecodeStats viterbi(const Lattice& lat, int32_t* path) {
  const size_t N = lat.N, L = lat.L();
  const Transitions& T = *lat.T;
  if (N == 0) return {};
  std::vector<double>& alpha = thread_scratch<ViterbiScratch>().alpha;
  alpha.resize(N * L);
  std::copy(lat.row(0), lat.row(0) + L, alpha.begin());
  for (size_t n = 1; n < N; ++n) {
    const double* prev = alpha.data() + (n - 1) * L;
    double* cur = alpha.data() + n * L;
    const double* e = lat.row(n);
    for (size_t y = 0; y < L; ++y) cur[y] = e[y] + max_plus(prev, T.into(y), L);
  }
  const double* last = alpha.data() + (N - 1) * L;
  path[N - 1] = static_cast<int32_t>(std::max_element(last, last + L) - last);
  for (size_t n = N - 1; n > 0; --n) {
    double best;
    path[n - 1] = static_cast<int32_t>(argmax_plus(alpha.data() + (n - 1) * L, T.into(path[n]), L, &best));
  }
  return {path_score(lat, path), 1};
}

}  // namespace conjunct
