// Decision rules: K margins -> the index of the predicted class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace conjunct {

enum class DecisionKind { Sign, Argmax, Ovo };

struct Decision {
  DecisionKind kind = DecisionKind::Sign;
  size_t n_classes = 2;

  static Decision parse(const std::string& kind, size_t n_classes);
  size_t n_outputs() const;
  // Sign: 1 if margin > 0 else 0. Argmax: first maximum. Ovo (LIBSVM's pair
  // order): pair (i, j) votes i if its margin > 0, else j; first maximum wins.
  int64_t decide(const double* margins) const;
};

// The class of `margins` among those with allowed[c] != 0 (c < n_classes):
// an argmax rule's first maximum, a sign rule's class 1 iff the margin is > 0
// (its classes score -m and m); -1 when no class is allowed. Sign and argmax
// rules only (std::invalid_argument for ovo).
int64_t best_allowed(const double* margins, const Decision& d, const uint8_t* allowed);
// What best_allowed gives whatever the margins when fewer than two classes
// are allowed (the one class, or -1), else -2.
int64_t only_allowed(const Decision& d, const uint8_t* allowed);

}  // namespace conjunct
