// What the feature sequence trie (and early-exit prediction) needs from a
// classifier over conjunctions: the margin of the empty vector, and the part
// of a margin that a prefix of x does not determine, computable in steps
// whose contributions can be bounded in advance.
#pragma once
#include <cstddef>
#include <cstdint>

#include "conjunct/classify/decision.h"
#include "conjunct/features.h"

namespace conjunct {

class ConjunctiveBase {
 public:
  virtual ~ConjunctiveBase() = default;
  virtual size_t base_outputs() const = 0;
  // Margins of the empty feature vector (K values).
  virtual const double* constant() const = 0;
  // out += margin(x) - margin(x[0..p)), x ascending internal ids.
  virtual void add_remainder(Span<int32_t> x, size_t p, double* out) const = 0;

  // The remainder as steps: add_step adds what positions j.. contribute given
  // that positions [p, j) are done, and returns the next unprocessed position.
  virtual size_t add_step(Span<int32_t> x, size_t p, size_t j, double* out) const = 0;
  // Whether position_bounds is available (it needs non-negative kernel increments).
  virtual bool has_bounds() const = 0;
  // lo/hi (K each) += bounds of what position j can contribute to the remainder.
  virtual void position_bounds(Span<int32_t> x, size_t j, double* lo, double* hi) const = 0;
};

// The decision for x given that out holds margin(x[0..p)), finishing the
// remainder step by step and stopping as soon as the bounds of the steps left
// settle the decision. Exact: it stops only when the decision cannot change.
int64_t decide_with_bounds(const ConjunctiveBase& base, Span<int32_t> x, size_t p, double* out, const Decision& decision);

// Process-wide counts of decisions settled early and of remainder positions
// they skipped (diagnostics for tests and benchmarks).
struct EarlyExitCounters {
  int64_t stops;
  int64_t positions_skipped;
};
EarlyExitCounters early_exit_counters(bool reset);

}  // namespace conjunct
