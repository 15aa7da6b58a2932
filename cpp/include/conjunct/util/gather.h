// The sum of a table's entries at a list of indices, shared by the learner's
// weight trie and the classifiers' conjunction store.
#pragma once
#include <cstddef>
#include <cstdint>

namespace conjunct {

// sum of base[x[0..n)]: four independent sums, so that the loads overlap
// instead of waiting on one chain of additions. The learner and the
// classifiers add in this same order, so the same table gives the same bits.
inline double gather_sum(const double* base, const int32_t* x, size_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += base[x[i]];
    s1 += base[x[i + 1]];
    s2 += base[x[i + 2]];
    s3 += base[x[i + 3]];
  }
  for (; i < n; ++i) s0 += base[x[i]];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace conjunct
