#include "conjunct/decode/staggered.h"

#include <algorithm>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {

constexpr int32_t kDegenerate = -1;
constexpr size_t kMaxSegments = 8;
constexpr size_t kTops = ColumnScores::kTop;

// Per-call state; one instance per thread, reused across calls.
struct Search {
  size_t N = 0, L = 0, K = 0, S = 1;
  ColumnScores* cs = nullptr;
  const Transitions* T = nullptr;
  std::vector<uint8_t> level;          // k_n: the prefix [0, a_{k_n}) is active
  std::vector<int32_t> extra;          // N x kTops: active top labels outside the prefix
  std::vector<uint8_t> n_extra;
  std::vector<uint8_t> range, n_deg;   // N x S: the ranges the degenerate labels stand for
  std::vector<double> za, zb;          // N x S: their forward / backward bounds
  std::vector<double> alpha, beta;     // N x L: forward / backward bounds of active labels
  std::vector<int32_t> best, best_deg, incumbent, repaired;
  std::vector<double> emission;        // scores along a path
  double lower = kNegInf, incumbent_score = kNegInf;
  std::vector<int32_t> g_label;        // the unpruned active labels of a neighbouring column
  std::vector<double> g_score;         // and their bounds
  size_t g_first_extra = 0;            // where the extras start in g_label
  bool g_dense = false;                // most of the prefix survives: max_plus over it

  size_t prefix(size_t n) const { return T->active(level[n]); }
  const int32_t* extras(size_t n) const { return extra.data() + n * kTops; }

  void set_degenerate(size_t n) {
    const size_t k = level[n];
    if (k >= K) {
      n_deg[n] = 0;
      return;
    }
    const size_t s = std::min(S, K - k);
    uint8_t* r = range.data() + n * S;
    for (size_t i = 0; i + 1 < s; ++i) r[i] = static_cast<uint8_t>(T->segment(k + i));
    r[s - 1] = static_cast<uint8_t>(T->suffix(k + s - 1));
    n_deg[n] = static_cast<uint8_t>(s);
  }

  void init(ColumnScores& scores, const Transitions& t, size_t segments) {
    cs = &scores, T = &t, N = scores.size(), L = t.n_labels(), K = t.n_levels();
    S = std::max<size_t>(1, std::min(segments, kMaxSegments));
    level.assign(N, 0), n_extra.assign(N, 0), n_deg.assign(N, 0);
    if (extra.size() < N * kTops) extra.resize(N * kTops);
    if (range.size() < N * S) range.resize(N * S);
    za.assign(N * S, kPosInf), zb.assign(N * S, kPosInf);
    if (alpha.size() < N * L) alpha.resize(N * L), beta.resize(N * L);
    for (size_t n = 0; n < N; ++n) {
      const size_t a = prefix(n);
      cs->fill(n, a);
      std::fill(alpha.begin() + n * L, alpha.begin() + n * L + a, kPosInf);
      std::fill(beta.begin() + n * L, beta.begin() + n * L + a, kPosInf);
      size_t ne = 0;
      for (size_t i = 0; i < cs->n_top(n); ++i) {
        const int32_t y = cs->top(n)[i];
        if (static_cast<size_t>(y) < a) continue;
        extra[n * kTops + ne++] = y;
        alpha[n * L + y] = beta[n * L + y] = kPosInf;
      }
      n_extra[n] = static_cast<uint8_t>(ne);
      set_degenerate(n);
    }
    best.resize(N), best_deg.resize(N), incumbent.resize(N), repaired.resize(N);
    lower = incumbent_score = kNegInf;
  }

  // Stores `v` unless the node is pruned (its bound through both directions
  // cannot beat the lower bound); returns what was stored.
  double keep(double v, double other, double e) const { return v + other - e < lower ? kNegInf : v; }

  // Collects the unpruned active labels of column m (bounds v).
  void gather(size_t m, const double* v) {
    g_label.clear(), g_score.clear();
    const size_t a = prefix(m);
    for (size_t y = 0; y < a; ++y)
      if (v[y] != kNegInf) g_label.push_back(static_cast<int32_t>(y)), g_score.push_back(v[y]);
    g_first_extra = g_label.size();
    // A prefix that mostly survives is cheaper as one vectorised pass over it.
    g_dense = a >= 16 && g_first_extra * 4 >= a * 3;
    const int32_t* ex = extras(m);
    for (size_t i = 0; i < n_extra[m]; ++i)
      if (v[ex[i]] != kNegInf) g_label.push_back(ex[i]), g_score.push_back(v[ex[i]]);
  }
  // max over the gathered labels y' of v[y'] + t[y'].
  // Four independent maxima keep the gather from waiting on one chain.
  double best_over(const double* v, size_t a, const double* t) const {
    double m0 = kNegInf, m1 = kNegInf, m2 = kNegInf, m3 = kNegInf;
    size_t i = 0;
    if (g_dense) m0 = max_plus(v, t, a), i = g_first_extra;
    const size_t n = g_label.size();
    const int32_t* lab = g_label.data();
    const double* sc = g_score.data();
    for (; i + 4 <= n; i += 4) {
      m0 = std::max(m0, sc[i] + t[lab[i]]);
      m1 = std::max(m1, sc[i + 1] + t[lab[i + 1]]);
      m2 = std::max(m2, sc[i + 2] + t[lab[i + 2]]);
      m3 = std::max(m3, sc[i + 3] + t[lab[i + 3]]);
    }
    for (; i < n; ++i) m0 = std::max(m0, sc[i] + t[lab[i]]);
    return std::max(std::max(m0, m1), std::max(m2, m3));
  }

  // The best node of column m by the bounds v / z (labels before degenerate ones).
  double best_node(size_t m, const double* v, const double* z, int32_t* node, int32_t* deg) const {
    double top = kNegInf;
    *node = 0, *deg = -1;
    for (size_t y = 0; y < prefix(m); ++y)
      if (v[y] > top) top = v[y], *node = static_cast<int32_t>(y);
    for (size_t i = 0; i < n_extra[m]; ++i)
      if (v[extras(m)[i]] > top) top = v[extras(m)[i]], *node = extras(m)[i];
    for (size_t c = 0; c < n_deg[m]; ++c)
      if (z[c] > top) top = z[c], *node = kDegenerate, *deg = static_cast<int32_t>(c);
    return top;
  }

  // argmax over the active labels y' and degenerate labels of column m of
  // v[y'] + t[y'] (resp. z[c] + tz(c)); returns the node, sets *deg.
  template <class TZ>
  int32_t argmax(size_t m, const double* v, const double* t, const double* z, TZ tz, int32_t* deg) const {
    double best_v;
    int32_t arg = static_cast<int32_t>(argmax_plus(v, t, prefix(m), &best_v));
    for (size_t i = 0; i < n_extra[m]; ++i) {
      const int32_t y = extras(m)[i];
      if (v[y] + t[y] > best_v) best_v = v[y] + t[y], arg = y;
    }
    *deg = -1;
    for (size_t c = 0; c < n_deg[m]; ++c) {
      const double s = z[c] + tz(range[m * S + c]);
      if (s > best_v) best_v = s, arg = kDegenerate, *deg = static_cast<int32_t>(c);
    }
    return arg;
  }

  // The best bound of column n's active labels in the current pass.
  double best_active(size_t n, const double* v) const {
    double top = kNegInf;
    for (size_t y = 0; y < prefix(n); ++y) top = std::max(top, v[y]);
    for (size_t i = 0; i < n_extra[n]; ++i) top = std::max(top, v[extras(n)[i]]);
    return top;
  }
  // The emission bound of range r of column n for a degenerate node whose
  // transitions give m: a bound that is not attained (lazy scores) is made
  // exact first if with it the node would lead its column (v: the active
  // labels' bounds in this pass); such a node would likely be on the best
  // path, and finding out would cost a search step.
  double tighten(size_t n, size_t r, double m, const double* v) {
    const double z = cs->bound(n, r);
    if (z == kNegInf || cs->exact(n, r) || m + z < best_active(n, v)) return z;
    cs->witness(n, r);
    return cs->bound(n, r);
  }

  double forward() {
    for (size_t n = 0; n < N; ++n) {
      const size_t a = prefix(n), ne = n_extra[n], nd = n_deg[n];
      const double* e = cs->scores(n);
      double* al = alpha.data() + n * L;
      const double* be = beta.data() + n * L;
      double* zal = za.data() + n * S;
      const double* zbe = zb.data() + n * S;
      const int32_t* ex = extras(n);
      const uint8_t* rg = range.data() + n * S;
      if (n == 0) {
        for (size_t y = 0; y < a; ++y) al[y] = keep(e[y], be[y], e[y]);
        for (size_t i = 0; i < ne; ++i) al[ex[i]] = keep(e[ex[i]], be[ex[i]], e[ex[i]]);
        for (size_t c = 0; c < nd; ++c) {
          const double z = tighten(n, rg[c], 0.0, al);
          zal[c] = z == kNegInf ? kNegInf : keep(z, zbe[c], z);
        }
        continue;
      }
      const size_t p = n - 1, ap = prefix(p), pd = n_deg[p];
      const double* pa = alpha.data() + p * L;
      const double* pz = za.data() + p * S;
      const uint8_t* pr = range.data() + p * S;
      gather(p, pa);
      auto label = [&](size_t y) {
        if (be[y] == kNegInf) {  // pruned from the other side already
          al[y] = kNegInf;
          return;
        }
        double m = best_over(pa, ap, T->into(y));
        for (size_t c = 0; c < pd; ++c) m = std::max(m, pz[c] + T->in(pr[c])[y]);
        al[y] = keep(m + e[y], be[y], e[y]);
      };
      for (size_t y = 0; y < a; ++y) label(y);
      for (size_t i = 0; i < ne; ++i) label(static_cast<size_t>(ex[i]));
      for (size_t c = 0; c < nd; ++c) {
        const size_t r = rg[c];
        if (zbe[c] == kNegInf || cs->bound(n, r) == kNegInf) {
          zal[c] = kNegInf;
          continue;
        }
        double m = best_over(pa, ap, T->out(r));
        for (size_t c2 = 0; c2 < pd; ++c2) m = std::max(m, pz[c2] + T->between(pr[c2], r));
        const double z = tighten(n, r, m, al);
        zal[c] = z == kNegInf ? kNegInf : keep(m + z, zbe[c], z);
      }
    }
    // The best final node, then back through the columns.
    const size_t last = N - 1;
    int32_t node, deg;
    const double top = best_node(last, alpha.data() + last * L, za.data() + last * S, &node, &deg);
    if (top == kNegInf) return top;
    best[last] = node, best_deg[last] = deg;
    for (size_t n = last; n > 0; --n) {
      const size_t p = n - 1;
      const size_t r = node >= 0 ? 0 : range[n * S + deg];
      const double* t = node >= 0 ? T->into(static_cast<size_t>(node)) : T->out(r);
      const int32_t y = node;
      node = argmax(p, alpha.data() + p * L, t, za.data() + p * S,
                    [&](size_t rp) { return y >= 0 ? T->in(rp)[y] : T->between(rp, r); }, &deg);
      best[p] = node, best_deg[p] = deg;
    }
    return top;
  }

  double backward() {
    for (size_t n = N; n-- > 0;) {
      const size_t a = prefix(n), ne = n_extra[n], nd = n_deg[n];
      const double* e = cs->scores(n);
      double* be = beta.data() + n * L;
      const double* al = alpha.data() + n * L;
      double* zbe = zb.data() + n * S;
      const double* zal = za.data() + n * S;
      const int32_t* ex = extras(n);
      const uint8_t* rg = range.data() + n * S;
      if (n == N - 1) {
        for (size_t y = 0; y < a; ++y) be[y] = keep(e[y], al[y], e[y]);
        for (size_t i = 0; i < ne; ++i) be[ex[i]] = keep(e[ex[i]], al[ex[i]], e[ex[i]]);
        for (size_t c = 0; c < nd; ++c) {
          const double z = tighten(n, rg[c], 0.0, be);
          zbe[c] = z == kNegInf ? kNegInf : keep(z, zal[c], z);
        }
        continue;
      }
      const size_t q = n + 1, aq = prefix(q), qd = n_deg[q];
      const double* qb = beta.data() + q * L;
      const double* qz = zb.data() + q * S;
      const uint8_t* qr = range.data() + q * S;
      gather(q, qb);
      auto label = [&](size_t y) {
        if (al[y] == kNegInf) {
          be[y] = kNegInf;
          return;
        }
        double m = best_over(qb, aq, T->from(y));
        for (size_t c = 0; c < qd; ++c) m = std::max(m, qz[c] + T->out(qr[c])[y]);
        be[y] = keep(m + e[y], al[y], e[y]);
      };
      for (size_t y = 0; y < a; ++y) label(y);
      for (size_t i = 0; i < ne; ++i) label(static_cast<size_t>(ex[i]));
      for (size_t c = 0; c < nd; ++c) {
        const size_t r = rg[c];
        if (zal[c] == kNegInf || cs->bound(n, r) == kNegInf) {
          zbe[c] = kNegInf;
          continue;
        }
        double m = best_over(qb, aq, T->in(r));
        for (size_t c2 = 0; c2 < qd; ++c2) m = std::max(m, qz[c2] + T->between(r, qr[c2]));
        const double z = tighten(n, r, m, be);
        zbe[c] = z == kNegInf ? kNegInf : keep(m + z, zal[c], z);
      }
    }
    int32_t node, deg;
    const double top = best_node(0, beta.data(), zb.data(), &node, &deg);
    if (top == kNegInf) return top;
    best[0] = node, best_deg[0] = deg;
    for (size_t q = 1; q < N; ++q) {
      const size_t p = q - 1;
      const size_t r = node >= 0 ? 0 : range[p * S + deg];
      const double* t = node >= 0 ? T->from(static_cast<size_t>(node)) : T->in(r);
      const int32_t y = node;
      node = argmax(q, beta.data() + q * L, t, zb.data() + q * S,
                    [&](size_t rq) { return y >= 0 ? T->out(rq)[y] : T->between(r, rq); }, &deg);
      best[q] = node, best_deg[q] = deg;
    }
    return top;
  }

  // The score of `path` (labels all active or bound labels), in path_score's order.
  double score_of(const int32_t* path, const double* e) const {
    double s = e[0];
    for (size_t n = 1; n < N; ++n) s += (*T)(path[n - 1], path[n]) + e[n];
    return s;
  }

  // A real path from the best degenerate one: each degenerate label becomes
  // the best-scoring label it stands for (a bound not attained is made exact
  // first, ColumnScores::witness). It raises the lower bound.
  void repair() {
    emission.resize(N);
    for (size_t n = 0; n < N; ++n) {
      if (best[n] >= 0) {
        repaired[n] = best[n], emission[n] = cs->scores(n)[best[n]];
        continue;
      }
      const size_t r = range[n * S + best_deg[n]];
      repaired[n] = cs->witness(n, r), emission[n] = cs->bound(n, r);
    }
    const double s = score_of(repaired.data(), emission.data());
    if (s > lower) lower = incumbent_score = s, incumbent.swap(repaired);
  }

  // Raises column n to level k2; new active labels and degenerate labels
  // inherit the bounds of the degenerate label that stood for them.
  void raise(size_t n, size_t k2) {
    const size_t from = prefix(n), nd = n_deg[n];
    uint8_t old_range[kMaxSegments];
    double old_a[kMaxSegments], old_b[kMaxSegments];
    for (size_t c = 0; c < nd; ++c)
      old_range[c] = range[n * S + c], old_a[c] = za[n * S + c], old_b[c] = zb[n * S + c];
    int32_t* ex = extra.data() + n * kTops;
    double ex_a[kTops], ex_b[kTops];
    for (size_t i = 0; i < n_extra[n]; ++i) ex_a[i] = alpha[n * L + ex[i]], ex_b[i] = beta[n * L + ex[i]];
    level[n] = static_cast<uint8_t>(k2);
    const size_t to = prefix(n);
    cs->fill(n, to);
    double* al = alpha.data() + n * L;
    double* be = beta.data() + n * L;
    for (size_t c = 0; c < nd; ++c) {
      const size_t lo = std::max(from, T->range_begin(old_range[c])), hi = std::min(to, T->range_end(old_range[c]));
      if (lo < hi) std::fill(al + lo, al + hi, old_a[c]), std::fill(be + lo, be + hi, old_b[c]);
    }
    size_t kept = 0;
    for (size_t i = 0; i < n_extra[n]; ++i) {
      al[ex[i]] = ex_a[i], be[ex[i]] = ex_b[i];
      if (static_cast<size_t>(ex[i]) >= to) ex[kept++] = ex[i];
    }
    n_extra[n] = static_cast<uint8_t>(kept);
    set_degenerate(n);
    for (size_t c = 0; c < n_deg[n]; ++c) {
      const size_t start = T->range_begin(range[n * S + c]);
      for (size_t o = 0; o < nd; ++o)
        if (start >= T->range_begin(old_range[o]) && start < T->range_end(old_range[o])) {
          za[n * S + c] = old_a[o], zb[n * S + c] = old_b[o];
          break;
        }
    }
  }

  void expand(Expansion how) {
    for (size_t n = 0; n < N; ++n) {
      if (!n_deg[n]) continue;
      if (how == Expansion::all_columns) {
        raise(n, level[n] + 1u);
      } else if (best[n] == kDegenerate) {  // activate the labels the best path's node stood for
        const size_t r = range[n * S + best_deg[n]];
        raise(n, (r < K ? r : r - K) + 1);
      }
    }
  }
};

// The column scores of a table given directly.
struct TableScores {
  ColumnScores scores;
};

}  // namespace

DecodeStats staggered(ColumnScores& scores, const Transitions& T, int32_t* path, Expansion expansion,
                      const StaggeredOptions& options) {
  const size_t N = scores.size();
  if (N == 0) return {};
  Search& s = thread_scratch<Search>();
  std::vector<double>& emission = s.emission;
  s.init(scores, T, options.segments);
  for (int iteration = 1;; ++iteration) {
    const double top = (iteration % 2) ? s.forward() : s.backward();
    if (!(top > s.lower)) {  // nothing beats the path that set the lower bound
      std::copy(s.incumbent.begin(), s.incumbent.begin() + N, path);
      return {s.incumbent_score, iteration};
    }
    if (std::find(s.best.begin(), s.best.begin() + N, kDegenerate) == s.best.begin() + N) {  // Lemma 1
      emission.resize(N);
      for (size_t n = 0; n < N; ++n) path[n] = s.best[n], emission[n] = scores.scores(n)[s.best[n]];
      return {s.score_of(path, emission.data()), iteration};
    }
    s.repair();
    s.expand(expansion);
  }
}

DecodeStats staggered(const Lattice& lat, int32_t* path, Expansion expansion, const StaggeredOptions& options) {
  ColumnScores& scores = thread_scratch<TableScores>().scores;
  scores.from_table(lat.E, lat.N, *lat.T);
  return staggered(scores, *lat.T, path, expansion, options);
}

}  // namespace conjunct
