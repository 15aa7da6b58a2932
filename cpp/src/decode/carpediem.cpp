#include "conjunct/decode/carpediem.h"

#include <algorithm>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct Node {
  double score;
  int32_t label;
};
bool by_score(const Node& a, const Node& b) { return a.score > b.score || (a.score == b.score && a.label < b.label); }
struct CarpeDiemScratch {
  std::vector<Node> next, bound, all;
  std::vector<size_t> alive_ptr;
  std::vector<int32_t> back;
};
}  // namespace

DecodeStats carpediem(const Lattice& lat, int32_t* path) {
  const size_t N = lat.N, L = lat.L();
  const Transitions& T = *lat.T;
  if (N == 0) return {};
  const double max_t = T.max_all(), min_t = T.min_all();
  // Per column: the surviving nodes sorted by score (desc), and back-pointers.
  CarpeDiemScratch& w = thread_scratch<CarpeDiemScratch>();
  std::vector<Node>&next = w.next, &bound = w.bound, &all = w.all;
  std::vector<size_t>& alive_ptr = w.alive_ptr;
  std::vector<int32_t>& back = w.back;
  back.resize(N * L);
  all.clear();
  alive_ptr.assign(1, 0);

  // Keeps the nodes of `cur` that are not dominated by its best node.
  auto survivors = [&](std::vector<Node>& cur) {
    std::sort(cur.begin(), cur.end(), by_score);
    const double cut = cur.front().score + min_t;
    for (const Node& v : cur)
      if (!(v.score + T.max_from(v.label) < cut)) all.push_back(v);
    alive_ptr.push_back(all.size());
  };

  next.clear();
  const double* e0 = lat.row(0);
  for (size_t y = 0; y < L; ++y) next.push_back({e0[y], static_cast<int32_t>(y)});
  if (N == 1) {
    const size_t y = static_cast<size_t>(std::max_element(e0, e0 + L) - e0);
    path[0] = static_cast<int32_t>(y);
    return {path_score(lat, path), 1};
  }
  survivors(next);

  int32_t best_last = 0;
  for (size_t n = 1; n < N; ++n) {
    const Node* prev = all.data() + alive_ptr[n - 1];
    const size_t n_prev = alive_ptr[n] - alive_ptr[n - 1];
    const double top = prev[0].score;
    const double* e = lat.row(n);
    bound.resize(L);
    for (size_t y = 0; y < L; ++y) bound[y] = {top + T.max_into(y) + e[y], static_cast<int32_t>(y)};
    std::sort(bound.begin(), bound.end(), by_score);
    const bool last = n + 1 == N;
    double G = kNegInf;
    next.clear();
    for (const Node& u : bound) {
      if (last ? !(u.score > G) : u.score + max_t < G + min_t) break;
      if (!last && u.score + T.max_from(u.label) < G + min_t) continue;
      const size_t y = static_cast<size_t>(u.label);
      const double* into = T.into(y);
      const double cap = T.max_into(y);
      double best = kNegInf;
      int32_t arg = prev[0].label;
      for (size_t i = 0; i < n_prev; ++i) {
        if (prev[i].score + cap <= best) break;
        const double v = prev[i].score + into[prev[i].label];
        if (v > best) best = v, arg = prev[i].label;
      }
      const double g = best + e[y];
      back[n * L + y] = arg;
      next.push_back({g, u.label});
      if (g > G) G = g, best_last = u.label;
    }
    if (!last) survivors(next);
  }
  path[N - 1] = best_last;
  for (size_t n = N - 1; n > 0; --n) path[n - 1] = back[n * L + path[n]];
  return {path_score(lat, path), 1};
}

}  // namespace conjunct
