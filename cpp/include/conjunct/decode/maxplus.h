// The inner loop every exact decoder shares: max_i (a[i] + b[i]) over two
// contiguous arrays. Written with SSE2 (the x86-64 baseline, so no
// -march=native is needed) and four independent accumulators, with AVX when
// the build targets it (CONJUNCT_NATIVE); a scalar loop elsewhere. Compilers
// do not vectorise a double max-reduction on their own without -ffast-math,
// which would also license unsafe rewrites elsewhere.
#pragma once
#include <cstddef>
#include <limits>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define CONJUNCT_MAXPLUS_SSE2 1
#endif
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace conjunct {

// The vector instructions the max-plus loops were built with.
#if defined(__AVX__)
constexpr const char* kMaxPlusSimd = "avx";
#elif defined(CONJUNCT_MAXPLUS_SSE2)
constexpr const char* kMaxPlusSimd = "sse2";
#else
constexpr const char* kMaxPlusSimd = "scalar";
#endif

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kPosInf = std::numeric_limits<double>::infinity();

// max_{0 <= i < n} a[i] + b[i]; -inf when n == 0. Inputs must not hold NaN
// (+inf is never stored in a score table, so -inf + finite stays -inf).
inline double max_plus(const double* a, const double* b, size_t n) {
  size_t i = 0;
  double m = kNegInf;
#if defined(__AVX__)
  // Only in builds for the build machine's CPU (CONJUNCT_NATIVE).
  if (n >= 16) {
    __m256d m0 = _mm256_set1_pd(kNegInf), m1 = m0, m2 = m0, m3 = m0;
    for (; i + 16 <= n; i += 16) {
      m0 = _mm256_max_pd(m0, _mm256_add_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i)));
      m1 = _mm256_max_pd(m1, _mm256_add_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4)));
      m2 = _mm256_max_pd(m2, _mm256_add_pd(_mm256_loadu_pd(a + i + 8), _mm256_loadu_pd(b + i + 8)));
      m3 = _mm256_max_pd(m3, _mm256_add_pd(_mm256_loadu_pd(a + i + 12), _mm256_loadu_pd(b + i + 12)));
    }
    m0 = _mm256_max_pd(_mm256_max_pd(m0, m1), _mm256_max_pd(m2, m3));
    __m128d h = _mm_max_pd(_mm256_castpd256_pd128(m0), _mm256_extractf128_pd(m0, 1));
    const double lo = _mm_cvtsd_f64(h), hi = _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
    m = lo > hi ? lo : hi;
  }
#endif
#ifdef CONJUNCT_MAXPLUS_SSE2
  if (n - i >= 8) {
    __m128d m0 = _mm_set1_pd(m), m1 = m0, m2 = m0, m3 = m0;
    for (; i + 8 <= n; i += 8) {
      m0 = _mm_max_pd(m0, _mm_add_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i)));
      m1 = _mm_max_pd(m1, _mm_add_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2)));
      m2 = _mm_max_pd(m2, _mm_add_pd(_mm_loadu_pd(a + i + 4), _mm_loadu_pd(b + i + 4)));
      m3 = _mm_max_pd(m3, _mm_add_pd(_mm_loadu_pd(a + i + 6), _mm_loadu_pd(b + i + 6)));
    }
    m0 = _mm_max_pd(_mm_max_pd(m0, m1), _mm_max_pd(m2, m3));
    const double lo = _mm_cvtsd_f64(m0), hi = _mm_cvtsd_f64(_mm_unpackhi_pd(m0, m0));
    m = lo > hi ? lo : hi;
  }
#endif
  for (; i < n; ++i) {
    const double v = a[i] + b[i];
    if (v > m) m = v;
  }
  return m;
}

// Index of the first maximum of a[i] + b[i] (backtracking, greedy steps); n > 0.
// Blocks of 16 are reduced with max_plus; only the winning block is scanned.
inline size_t argmax_plus(const double* a, const double* b, size_t n, double* best) {
  double m = kNegInf;
  size_t block = n, i = 0;
  for (; i + 16 <= n; i += 16) {
    const double v = max_plus(a + i, b + i, 16);
    if (v > m) m = v, block = i;
  }
  size_t arg = 0;
  for (size_t j = i; j < n; ++j) {
    const double v = a[j] + b[j];
    if (v > m) m = v, block = n, arg = j;
  }
  if (block < n)
    for (arg = block; !(a[arg] + b[arg] == m); ++arg) {
    }
  if (m == kNegInf) arg = 0;
  *best = m;
  return arg;
}

// max_{0 <= i < n} a[i]; -inf when n == 0.
inline double max_of(const double* a, size_t n) {
  size_t i = 0;
  double m = kNegInf;
#ifdef CONJUNCT_MAXPLUS_SSE2
  if (n >= 8) {
    __m128d m0 = _mm_set1_pd(kNegInf), m1 = m0, m2 = m0, m3 = m0;
    for (; i + 8 <= n; i += 8) {
      m0 = _mm_max_pd(m0, _mm_loadu_pd(a + i));
      m1 = _mm_max_pd(m1, _mm_loadu_pd(a + i + 2));
      m2 = _mm_max_pd(m2, _mm_loadu_pd(a + i + 4));
      m3 = _mm_max_pd(m3, _mm_loadu_pd(a + i + 6));
    }
    m0 = _mm_max_pd(_mm_max_pd(m0, m1), _mm_max_pd(m2, m3));
    const double lo = _mm_cvtsd_f64(m0), hi = _mm_cvtsd_f64(_mm_unpackhi_pd(m0, m0));
    m = lo > hi ? lo : hi;
  }
#endif
  for (; i < n; ++i)
    if (a[i] > m) m = a[i];
  return m;
}

}  // namespace conjunct
