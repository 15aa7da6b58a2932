// What the feature sequence trie (and early-exit prediction) needs from a
// classifier over conjunctions: the margin of the empty vector, the part of a
// margin that a prefix of x does not determine, and a decision that computes
// that part in steps and stops as soon as bounds on the steps left settle it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/classify/decision.h"
#include "conjunct/features.h"
#include "conjunct/scratch.h"

namespace conjunct {

class ConjunctiveBase {
 public:
  virtual ~ConjunctiveBase() = default;
  virtual size_t base_outputs() const = 0;
  // Margins of the empty feature vector (K values).
  virtual const double* constant() const = 0;
  // out += margin(x) - margin(x[0..p)), x ascending internal ids.
  virtual void add_remainder(Span<int32_t> x, size_t p, double* out) const = 0;
  // The decision for x given that out holds margin(x[0..p)); exact, and
  // stops adding as soon as the rest cannot change the decision.
  virtual int64_t decide_remainder(Span<int32_t> x, size_t p, double* out, const Decision& decision) const = 0;
};

// Process-wide counts of decisions settled early and of remainder positions
// they skipped (diagnostics for tests and benchmarks).
struct EarlyExitCounters {
  int64_t stops;
  int64_t positions_skipped;
};
EarlyExitCounters early_exit_counters(bool reset);
void count_early_exit(size_t positions_skipped);

// Whether every margin within [lo, hi] (per output, with room `slack` for
// summation-order rounding) gives one decision; if so, sets *label.
bool settled(const Decision& d, const double* lo, const double* hi, const double* slack, int64_t* label);
// The same for best_allowed's choice among the allowed classes (sign or
// argmax rules, at least two classes allowed).
bool settled_allowed(const Decision& d, const uint8_t* allowed, const double* lo, const double* hi, const double* slack,
                     int64_t* label);

namespace detail {
struct StepScratch {
  std::vector<double> suffix, lo, hi, slack;
};
}  // namespace detail

// The decision for x's positions p..n-1 given that out (K values) holds the
// margin of x[0..p). bounds(j, lo, hi) adds to lo / hi (K each) bounds of
// what position j adds; step(j, out) adds what positions j.. add (at least
// j) and returns the next position not added. From position `check` on
// (p <= check; positions before it are cheap, or rarely settle a decision),
// the bounds of the positions left decide before every step whether the
// decision is already settled; it is taken only when it clears by a relative
// 1e-9, so it is the full computation's.
template <class Bounds, class Step>
int64_t decide_in_steps(size_t p, size_t n, double* out, size_t K, const Decision& decision, Bounds&& bounds,
                        Step&& step, size_t check = 0) {
  if (p >= n) return decision.decide(out);
  check = std::min(std::max(check, p), n);
  if (K == 1 && decision.kind == DecisionKind::Sign && n - check <= 256) {
    double lo[257], hi[257];  // suffix sums of the position bounds from `check` on
    const size_t m = n - check;
    double l = 0.0, h = 0.0;
    lo[m] = hi[m] = 0.0;
    for (size_t k = m; k-- > 0;) {
      bounds(check + k, &l, &h);
      lo[k] = l, hi[k] = h;
    }
    for (size_t j = p; j < n;) {
      if (j >= check) {
        const double v = out[0], lj = lo[j - check], hj = hi[j - check];
        const double slack = 1e-9 * (std::fabs(v) + hj - lj) + 1e-300;
        if (v + lj > slack || v + hj < -slack) {
          count_early_exit(n - j);
          return v + lj > slack ? 1 : 0;
        }
      }
      j = step(j, out);
    }
    return decision.decide(out);
  }
  const size_t m = n - p;
  detail::StepScratch& sc = thread_scratch<detail::StepScratch>();
  // Suffix sums of the position bounds: lows at [k * 2K, ... + K), highs after them.
  sc.suffix.assign((m + 1) * 2 * K, 0.0);
  double* suf = sc.suffix.data();
  for (size_t k = m; k-- > 0;) {
    double* cur = suf + k * 2 * K;
    for (size_t o = 0; o < 2 * K; ++o) cur[o] = cur[2 * K + o];
    bounds(p + k, cur, cur + K);
  }
  sc.lo.resize(K), sc.hi.resize(K), sc.slack.resize(K);
  int64_t label = 0;
  for (size_t j = p; j < n;) {
    const double* l = suf + (j - p) * 2 * K;
    const double* h = l + K;
    for (size_t o = 0; o < K; ++o) {
      sc.lo[o] = out[o] + l[o];
      sc.hi[o] = out[o] + h[o];
      sc.slack[o] = 1e-9 * (std::fabs(out[o]) + h[o] - l[o]) + 1e-300;
    }
    if (settled(decision, sc.lo.data(), sc.hi.data(), sc.slack.data(), &label)) {
      count_early_exit(n - j);
      return label;
    }
    j = step(j, out);
  }
  return decision.decide(out);
}

}  // namespace conjunct
