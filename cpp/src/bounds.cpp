// Early-exit prediction over conjunctive bases (seed 001 §3.2.2 style bounds).
#include "conjunct/scratch.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "conjunct/classify/conjunctive_base.h"

namespace conjunct {

namespace {

struct SignsScratch {
  std::vector<double> signs;
};
struct BoundsScratch {
  std::vector<double> suf_lo, suf_hi, lo, hi, slack;
};

std::atomic<int64_t> g_early_stops{0};
std::atomic<int64_t> g_steps_skipped{0};

// Whether margins within [lo, hi] (per output) all lead to one decision; if so, sets *label.
bool settled(const Decision& d, const double* lo, const double* hi, const double* slack, int64_t* label) {
  switch (d.kind) {
    case DecisionKind::Sign:
      if (lo[0] > slack[0]) return *label = 1, true;
      if (hi[0] < -slack[0]) return *label = 0, true;
      return false;
    case DecisionKind::Argmax: {
      size_t best = 0;
      for (size_t o = 1; o < d.n_classes; ++o)
        if (lo[o] > lo[best]) best = o;
      for (size_t o = 0; o < d.n_classes; ++o)
        if (o != best && !(lo[best] > hi[o] + slack[best] + slack[o])) return false;
      *label = static_cast<int64_t>(best);
      return true;
    }
    case DecisionKind::Ovo: {
      std::vector<double>& signs = thread_scratch<SignsScratch>().signs;
      const size_t K = d.n_outputs();
      signs.resize(K);
      for (size_t p = 0; p < K; ++p) {
        if (lo[p] > slack[p]) signs[p] = 1.0;
        else if (hi[p] < -slack[p]) signs[p] = -1.0;
        else return false;
      }
      *label = d.decide(signs.data());
      return true;
    }
  }
  return false;
}

}  // namespace

EarlyExitCounters early_exit_counters(bool reset) {
  EarlyExitCounters c{g_early_stops.load(), g_steps_skipped.load()};
  if (reset) g_early_stops = 0, g_steps_skipped = 0;
  return c;
}

int64_t decide_with_bounds(const ConjunctiveBase& base, Span<int32_t> x, size_t p, double* out, const Decision& decision) {
  const size_t K = base.base_outputs();
  const size_t n = x.size;
  if (!base.has_bounds() || p >= n) {
    if (p < n) base.add_remainder(x, p, out);
    return decision.decide(out);
  }
  // Suffix sums of the position bounds: what positions j.. can still add.
  BoundsScratch& sc = thread_scratch<BoundsScratch>();
  std::vector<double>&suf_lo = sc.suf_lo, &suf_hi = sc.suf_hi, &lo = sc.lo, &hi = sc.hi, &slack = sc.slack;
  const size_t m = n - p;
  suf_lo.assign((m + 1) * K, 0.0);
  suf_hi.assign((m + 1) * K, 0.0);
  for (size_t k = m; k-- > 0;) {
    double* l = suf_lo.data() + k * K;
    double* h = suf_hi.data() + k * K;
    std::copy(l + K, l + 2 * K, l);
    std::copy(h + K, h + 2 * K, h);
    base.position_bounds(x, p + k, l, h);
  }
  lo.resize(K);
  hi.resize(K);
  slack.resize(K);
  size_t j = p;
  int64_t label = 0;
  while (j < n) {
    const double* l = suf_lo.data() + (j - p) * K;
    const double* h = suf_hi.data() + (j - p) * K;
    for (size_t o = 0; o < K; ++o) {
      lo[o] = out[o] + l[o];
      hi[o] = out[o] + h[o];
      // Stop only with room to spare for summation-order rounding.
      slack[o] = 1e-9 * (std::fabs(out[o]) + h[o] - l[o]) + 1e-300;
    }
    if (settled(decision, lo.data(), hi.data(), slack.data(), &label)) {
      g_early_stops.fetch_add(1, std::memory_order_relaxed);
      g_steps_skipped.fetch_add(static_cast<int64_t>(n - j), std::memory_order_relaxed);
      return label;
    }
    j = base.add_step(x, p, j, out);
  }
  return decision.decide(out);
}

}  // namespace conjunct
