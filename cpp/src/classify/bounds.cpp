// Early-exit prediction over conjunctive bases (Yoshinaga & Kitsuregawa 2010 §3.2.2 style bounds):
// when bounds settle a decision, and how often they did.
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

std::atomic<int64_t> g_early_stops{0};
std::atomic<int64_t> g_steps_skipped{0};

}  // namespace

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

bool settled_allowed(const Decision& d, const uint8_t* allowed, const double* lo, const double* hi, const double* slack,
                     int64_t* label) {
  if (d.kind == DecisionKind::Sign) return settled(d, lo, hi, slack, label);
  if (d.kind != DecisionKind::Argmax) return false;
  int64_t best = -1;
  for (size_t o = 0; o < d.n_classes; ++o)
    if (allowed[o] && (best < 0 || lo[o] > lo[best])) best = static_cast<int64_t>(o);
  if (best < 0) return false;
  for (size_t o = 0; o < d.n_classes; ++o)
    if (allowed[o] && o != static_cast<size_t>(best) && !(lo[best] > hi[o] + slack[best] + slack[o])) return false;
  *label = best;
  return true;
}

EarlyExitCounters early_exit_counters(bool reset) {
  EarlyExitCounters c{g_early_stops.load(), g_steps_skipped.load()};
  if (reset) g_early_stops = 0, g_steps_skipped = 0;
  return c;
}

void count_early_exit(size_t positions_skipped) {
  g_early_stops.fetch_add(1, std::memory_order_relaxed);
  g_steps_skipped.fetch_add(static_cast<int64_t>(positions_skipped), std::memory_order_relaxed);
}

}  // namespace conjunct
