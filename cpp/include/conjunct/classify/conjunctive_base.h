// What the feature sequence trie needs from the classifier it accelerates:
// the margin of the empty vector, and the part of a margin that a prefix of x
// does not determine.
#pragma once
#include <cstddef>

#include "conjunct/features.h"

namespace conjunct {

class ConjunctiveBase {
 public:
  virtual ~ConjunctiveBase() = default;
  // Margins of the empty feature vector (K values).
  virtual const double* constant() const = 0;
  // out += margin(x) - margin(x[0..p)), x ascending internal ids.
  virtual void add_remainder(Span<int32_t> x, size_t p, double* out) const = 0;
};

}  // namespace conjunct
