#include "conjunct/decode/staggered.h"

#include <algorithm>

#include "conjunct/decode/beam.h"
#include "conjunct/decode/viterbi.h"

namespace conjunct {

namespace {

constexpr int32_t kDegenerate = -1;

// Per-call state; one instance per thread, reused across calls.
struct State {
  size_t N = 0, L = 0, K = 0;
  const Lattice* lat = nullptr;
  const Transitions* T = nullptr;
  std::vector<uint8_t> level;     // k_n: column n keeps [0, a_{k_n}) active
  std::vector<double> ez;         // N x K: Eq. 1, max_{y >= a_k} E[n][y]
  std::vector<int32_t> ez_arg;    // N x K: the label attaining it (-1 until needed)
  std::vector<double> alpha, beta;  // N x L: forward / backward bounds of active labels
  std::vector<double> az, bz;     // N: the same for the degenerate label
  std::vector<int32_t> best, incumbent, repaired;
  std::vector<int32_t> alive_label;  // the unpruned active labels of one column
  std::vector<double> alive_score;   // and their bounds
  double lower = kNegInf;

  size_t active(size_t n) const { return T->active(level[n]); }
  bool has_degenerate(size_t n) const { return level[n] < K; }

  void init(const Lattice& l) {
    lat = &l, T = l.T, N = l.N, L = l.L(), K = l.T->n_levels();
    level.assign(N, 0);
    ez.resize(N * K);
    ez_arg.assign(N * K, -1);  // found on demand by repair()
    for (size_t n = 0; n < N; ++n) {
      const double* e = l.row(n);
      double m = kNegInf;
      for (size_t k = K; k-- > 0;) {  // suffix maxima, one level segment at a time
        const size_t lo = T->active(k);
        m = std::max(m, max_of(e + lo, T->active(k + 1) - lo));
        ez[n * K + k] = m;
      }
    }
    alpha.resize(N * L), beta.resize(N * L);
    az.assign(N, kPosInf), bz.assign(N, kPosInf);
    for (size_t n = 0; n < N; ++n) alpha[n * L] = beta[n * L] = kPosInf;
    best.resize(N), incumbent.resize(N), repaired.resize(N);
    greedy(l, incumbent.data());
    lower = path_score(l, incumbent.data());
  }

  // max over the active labels of a neighbouring column of score[y] + t[y].
  // Once pruning has removed most of them, a gather over the survivors is
  // cheaper than the vectorised pass over all of them (-inf included).
  size_t gather(const double* score, size_t n) {
    alive_label.clear(), alive_score.clear();
    for (size_t y = 0; y < n; ++y)
      if (score[y] != kNegInf) alive_label.push_back(static_cast<int32_t>(y)), alive_score.push_back(score[y]);
    return alive_label.size();
  }
  double max_over(const double* score, const double* t, size_t n, bool sparse) const {
    if (!sparse) return max_plus(score, t, n);
    double m = kNegInf;
    for (size_t i = 0; i < alive_label.size(); ++i) {
      const double v = alive_score[i] + t[alive_label[i]];
      if (v > m) m = v;
    }
    return m;
  }

  // Stores `v` unless the node is pruned (its bound through both directions
  // cannot beat the lower bound); returns what was stored.
  double keep(double v, double other, double e) const {
    return v + other - e < lower ? kNegInf : v;
  }

  double forward() {
    for (size_t n = 0; n < N; ++n) {
      const size_t a = active(n), k = level[n];
      const double* e = lat->row(n);
      double* al = alpha.data() + n * L;
      const double* be = beta.data() + n * L;
      if (n == 0) {
        for (size_t y = 0; y < a; ++y) al[y] = keep(e[y], be[y], e[y]);
        if (has_degenerate(0)) az[0] = keep(ez[k], bz[0], ez[k]);
        continue;
      }
      const size_t p = n - 1, ap = active(p), kp = level[p];
      const double* pa = alpha.data() + p * L;
      const bool pdeg = has_degenerate(p);
      const double pz = pdeg ? az[p] : kNegInf;
      const double* from_z = pdeg ? T->in(T->suffix(kp)) : nullptr;
      const bool sparse = ap >= 16 && gather(pa, ap) * 4 < ap;
      for (size_t y = 0; y < a; ++y) {
        if (be[y] == kNegInf) {  // pruned from the other side already
          al[y] = kNegInf;
          continue;
        }
        double m = max_over(pa, T->into(y), ap, sparse);
        if (pdeg) m = std::max(m, pz + from_z[y]);
        al[y] = keep(m + e[y], be[y], e[y]);
      }
      if (has_degenerate(n)) {
        const double z = ez[n * K + k];
        if (bz[n] == kNegInf) {
          az[n] = kNegInf;
        } else {
          double m = max_over(pa, T->out(T->suffix(k)), ap, sparse);
          if (pdeg) m = std::max(m, pz + T->between(T->suffix(kp), T->suffix(k)));
          az[n] = keep(m + z, bz[n], z);
        }
      }
    }
    // The best final node, then back through the columns.
    const size_t last = N - 1;
    const double* al = alpha.data() + last * L;
    double top = kNegInf;
    int32_t node = 0;
    for (size_t y = 0; y < active(last); ++y)
      if (al[y] > top) top = al[y], node = static_cast<int32_t>(y);
    if (has_degenerate(last) && az[last] > top) top = az[last], node = kDegenerate;
    if (top == kNegInf) return top;
    best[last] = node;
    for (size_t n = last; n > 0; --n) {
      const size_t p = n - 1, ap = active(p);
      const double* pa = alpha.data() + p * L;
      const double* t = node >= 0 ? T->into(node) : T->out(T->suffix(level[n]));
      double v;
      int32_t arg = static_cast<int32_t>(argmax_plus(pa, t, ap, &v));
      if (has_degenerate(p)) {
        const double tz = node >= 0 ? T->in(T->suffix(level[p]))[node] : T->between(T->suffix(level[p]), T->suffix(level[n]));
        if (az[p] + tz > v) arg = kDegenerate;
      }
      best[p] = node = arg;
    }
    return top;
  }

  double backward() {
    for (size_t n = N; n-- > 0;) {
      const size_t a = active(n), k = level[n];
      const double* e = lat->row(n);
      double* be = beta.data() + n * L;
      const double* al = alpha.data() + n * L;
      if (n == N - 1) {
        for (size_t y = 0; y < a; ++y) be[y] = keep(e[y], al[y], e[y]);
        if (has_degenerate(n)) bz[n] = keep(ez[n * K + k], az[n], ez[n * K + k]);
        continue;
      }
      const size_t q = n + 1, aq = active(q), kq = level[q];
      const double* qb = beta.data() + q * L;
      const bool qdeg = has_degenerate(q);
      const double qz = qdeg ? bz[q] : kNegInf;
      const double* to_z = qdeg ? T->out(T->suffix(kq)) : nullptr;
      const bool sparse = aq >= 16 && gather(qb, aq) * 4 < aq;
      for (size_t y = 0; y < a; ++y) {
        if (al[y] == kNegInf) {
          be[y] = kNegInf;
          continue;
        }
        double m = max_over(qb, T->from(y), aq, sparse);
        if (qdeg) m = std::max(m, qz + to_z[y]);
        be[y] = keep(m + e[y], al[y], e[y]);
      }
      if (has_degenerate(n)) {
        const double z = ez[n * K + k];
        if (az[n] == kNegInf) {
          bz[n] = kNegInf;
        } else {
          double m = max_over(qb, T->in(T->suffix(k)), aq, sparse);
          if (qdeg) m = std::max(m, qz + T->between(T->suffix(k), T->suffix(kq)));
          bz[n] = keep(m + z, az[n], z);
        }
      }
    }
    const double* be = beta.data();
    double top = kNegInf;
    int32_t node = 0;
    for (size_t y = 0; y < active(0); ++y)
      if (be[y] > top) top = be[y], node = static_cast<int32_t>(y);
    if (has_degenerate(0) && bz[0] > top) top = bz[0], node = kDegenerate;
    if (top == kNegInf) return top;
    best[0] = node;
    for (size_t q = 1; q < N; ++q) {
      const size_t p = q - 1, aq = active(q);
      const double* qb = beta.data() + q * L;
      const double* t = node >= 0 ? T->from(node) : T->in(T->suffix(level[p]));
      double v;
      int32_t arg = static_cast<int32_t>(argmax_plus(qb, t, aq, &v));
      if (has_degenerate(q)) {
        const double tz = node >= 0 ? T->out(T->suffix(level[q]))[node] : T->between(T->suffix(level[p]), T->suffix(level[q]));
        if (bz[q] + tz > v) arg = kDegenerate;
      }
      best[q] = node = arg;
    }
    return top;
  }

  // A real path from the best degenerate one: each degenerate label becomes
  // the inactive label with the largest emission. It raises the lower bound.
  void repair() {
    for (size_t n = 0; n < N; ++n) {
      if (best[n] != kDegenerate) {
        repaired[n] = best[n];
        continue;
      }
      int32_t& arg = ez_arg[n * K + level[n]];
      if (arg < 0) {  // the first inactive label attaining Eq. 1's maximum
        const double* e = lat->row(n);
        const double m = ez[n * K + level[n]];
        size_t y = active(n);
        while (y + 1 < L && !(e[y] == m)) ++y;
        arg = static_cast<int32_t>(y);
      }
      repaired[n] = arg;
    }
    const double s = path_score(*lat, repaired.data());
    if (s > lower) lower = s, incumbent.swap(repaired);
  }

  void expand(Expansion how) {
    for (size_t n = 0; n < N; ++n) {
      if (!has_degenerate(n) || (how == Expansion::column_wise && best[n] != kDegenerate)) continue;
      const size_t from = active(n);
      ++level[n];
      const size_t to = active(n);
      // New active labels inherit the bounds of the degenerate label they left.
      std::fill(alpha.begin() + n * L + from, alpha.begin() + n * L + to, az[n]);
      std::fill(beta.begin() + n * L + from, beta.begin() + n * L + to, bz[n]);
    }
  }
};

}  // namespace

DecodeStats staggered(const Lattice& lat, int32_t* path, Expansion expansion) {
  if (lat.N == 0) return {};
  if (lat.T->n_levels() == 0) return viterbi(lat, path);  // one label
  thread_local State s;
  s.init(lat);
  for (int iteration = 1;; ++iteration) {
    const double top = (iteration % 2) ? s.forward() : s.backward();
    if (!(top > s.lower)) {  // nothing beats the path that set the lower bound
      std::copy(s.incumbent.begin(), s.incumbent.end(), path);
      return {path_score(lat, path), iteration};
    }
    if (std::find(s.best.begin(), s.best.end(), kDegenerate) == s.best.end()) {  // Lemma 1
      std::copy(s.best.begin(), s.best.end(), path);
      return {path_score(lat, path), iteration};
    }
    s.repair();
    s.expand(expansion);
  }
}

}  // namespace conjunct
