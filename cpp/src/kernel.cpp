#include "conjunct/kernel.h"

#include <stdexcept>

namespace conjunct {

double ipow(double base, int exponent) {
  double result = 1.0;
  while (exponent > 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

PolyKernel::PolyKernel(double g, double c, int d) : gamma(g), coef0(c), degree(d) {
  if (d < 1) throw std::invalid_argument("kernel degree must be >= 1");
}

std::vector<double> PolyKernel::subset_weights() const {
  const int d = degree;
  // Stirling numbers of the second kind S(l, r), 0 <= r <= l <= d.
  std::vector<std::vector<double>> stirling(d + 1, std::vector<double>(d + 1, 0.0));
  stirling[0][0] = 1.0;
  for (int l = 1; l <= d; ++l)
    for (int r = 1; r <= l; ++r)
      stirling[l][r] = r * stirling[l - 1][r] + stirling[l - 1][r - 1];
  std::vector<double> binom(d + 1, 1.0);  // C(d, l)
  for (int l = 1; l <= d; ++l) binom[l] = binom[l - 1] * (d - l + 1) / l;
  std::vector<double> weights(d + 1, 0.0);
  double factorial = 1.0;  // r!
  for (int r = 0; r <= d; ++r) {
    if (r > 0) factorial *= r;
    double sum = 0.0;
    for (int l = r; l <= d; ++l)
      sum += binom[l] * ipow(gamma, l) * ipow(coef0, d - l) * stirling[l][r];
    weights[r] = sum * factorial;
  }
  return weights;
}

std::vector<double> PolyKernel::table(int64_t max_overlap) const {
  std::vector<double> t(static_cast<size_t>(max_overlap) + 1);
  for (int64_t m = 0; m <= max_overlap; ++m) t[m] = value(m);
  return t;
}

}  // namespace conjunct
