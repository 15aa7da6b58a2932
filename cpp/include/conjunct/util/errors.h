// Exceptions the core raises on purpose besides std::invalid_argument (bad input).
#pragma once
#include <stdexcept>

namespace conjunct {

// A computation stopped because it would pass a size limit its caller set
// (max_conjunctions, max_bytes). The bindings raise it as
// _core.LimitExceededError, so Python tells a limit from bad input by type.
class LimitExceeded : public std::length_error {
 public:
  using std::length_error::length_error;
};

}  // namespace conjunct
