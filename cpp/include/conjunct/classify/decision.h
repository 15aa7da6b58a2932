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

}  // namespace conjunct
