// How an online learner gets the margin of an example: the interface the
// margin modes (kernel / expanded / split / slicing) implement.
//
// Every mode computes the same number,
//   m(x) = c_d(0) * sum_i alpha_i + sum over t ⊆ x, 1 <= |t| <= d of w(t)
//        = sum_i alpha_i * k(s_i, x)
// (the bias is the learner's), only in a different order of summation.
#pragma once
#include <cstddef>
#include <cstdint>

#include "conjunct/features.h"
#include "conjunct/train/support_set.h"

namespace conjunct {

// What the learner will do with the margin, so that a mode may stop as soon
// as it has proved that the example causes no update (Yoshinaga & Kitsuregawa 2010, §3.2.2).
struct MarginGoal {
  bool enabled = false;
  int32_t label = 0;           // binary: +1 / -1; multi-class: the true class
  double threshold = 0.0;      // no update iff the decision value exceeds this
  const double* bias = nullptr;
  int64_t row = -1;            // the example's row in the training data (a hint for caches; -1: none)
};

// Counters every mode fills in (zeros where a mode has no such thing).
struct MarginStats {
  int64_t margins = 0;          // margin computations started
  int64_t terminated = 0;       // ... stopped early by the bounds of Eq. 8-9
  int64_t skipped_steps = 0;    // partial margins those stops left out
  int64_t kernel_steps = 0;     // partial margins by Eq. 4 / 6 (support vectors)
  int64_t expanded_steps = 0;   // partial margins by Eq. 5 (weight trie)
  int64_t reused = 0;           // Eq. 6 steps that started from a stored partial margin
  int64_t remembered = 0;       // partial-margin trie nodes found from their row's memory, not by a walk
  int64_t postings = 0;         // support vectors / events visited
  int64_t trie_lookups = 0;     // weight-trie nodes visited
  int64_t prunes = 0;           // halvings of N under the memory budget
  int64_t adaptive_blocks = 0;  // blocks of margins timed by adaptive termination
  int64_t plain_blocks = 0;     // ... of which ran without termination
  int64_t limit = -1;           // current N (features with internal id < N are common); -1: none
  int64_t weight_nodes = 0;
  int64_t partial_nodes = 0;
  int64_t postings_bytes = 0;
  int64_t weight_bytes = 0;
  int64_t partial_bytes = 0;
  int64_t bounds_bytes = 0;
};

class MarginEngine {
 public:
  virtual ~MarginEngine() = default;
  // Features 0 .. n_features-1 may occur from now on.
  virtual void ensure_features(size_t n_features) = 0;
  // x: internal ids, strictly ascending. Writes m(x) (without the bias) to
  // out[0..K) and returns true, or returns false when the goal proved that x
  // needs no update; then *bound is the proven lower bound of the decision value.
  virtual bool margins(Span<int32_t> x, const MarginGoal& goal, double* out, double* bound) = 0;
  // Training rows to come: `rows` rows of `nnz` features in all (for caches
  // kept per row, sized once rather than grown by doubling).
  virtual void expect_rows(size_t rows, size_t nnz) { (void)rows, (void)nnz; }
  // The support set has just recorded event `e` (on a new support vector or not).
  virtual void on_update(const SupportSet& S, size_t e, bool new_sv) = 0;
  virtual void stats(MarginStats& s) const = 0;
};

}  // namespace conjunct
