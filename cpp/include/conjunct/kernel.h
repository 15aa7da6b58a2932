// The polynomial kernel k(s, x) = (gamma * |s ∩ x| + coef0)^degree over binary
// feature vectors, and the quantities every algorithm derives from it.
#pragma once
#include <cstdint>
#include <vector>

namespace conjunct {

// b^e for a non-negative integer e, by repeated squaring (exact for small ints).
double ipow(double base, int exponent);

struct PolyKernel {
  double gamma = 1.0;
  double coef0 = 1.0;
  int degree = 2;

  PolyKernel() = default;
  PolyKernel(double g, double c, int d);

  // k for an overlap of m shared features.
  double value(int64_t m) const { return ipow(gamma * static_cast<double>(m) + coef0, degree); }
  // Sliced increment: k(m + 1) - k(m), the change when one more shared feature is added.
  double increment(int64_t m) const { return value(m + 1) - value(m); }
  // Kernel norm k(x, x) of a vector with n active features.
  double norm(int64_t n) const { return value(n); }
  // Subset weights c_d(r), r = 0..degree: k(m) = sum_r c_d(r) * C(m, r)
  // (Kudo & Matsumoto's Lemma 1, generalised to gamma and coef0).
  std::vector<double> subset_weights() const;
  // value(m) for m = 0..max_overlap, for table lookups in the hot loops.
  std::vector<double> table(int64_t max_overlap) const;
};

}  // namespace conjunct
