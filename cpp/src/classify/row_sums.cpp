#include "conjunct/classify/row_sums.h"

#include <utility>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONJUNCT_ROW_SUMS_AVX 1
#include <immintrin.h>
#endif

namespace conjunct {

namespace {

inline int64_t pair_base(int64_t a) { return a * (a - 1) / 2; }  // C(a, 2)

// One block of NB outputs, NB known at compile time so that the block's sums
// stay in registers whatever K is (a 4-output model's rows took ~10
// instructions per value through a loop of variable length).
template <size_t NB>
inline void portable_block(const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je, size_t K,
                           double* out) {
  double acc[NB];
  for (size_t b = 0; b < NB; ++b) acc[b] = out[b];
  for (size_t j = jb; j < je; ++j) {
    const int64_t a = x[j], k = static_cast<int64_t>(K);
    const double* s = single + a * k;
    for (size_t b = 0; b < NB; ++b) acc[b] += s[b];
    const double* base = pairs + pair_base(a) * k;
    for (size_t i = 0; i < j; ++i) {
      const double* row = base + static_cast<int64_t>(x[i]) * k;
      for (size_t b = 0; b < NB; ++b) acc[b] += row[b];
    }
  }
  for (size_t b = 0; b < NB; ++b) out[b] = acc[b];
}

template <size_t... NB>
inline void portable_tail(size_t nb, const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je,
                          size_t K, double* out, std::index_sequence<NB...>) {
  ((nb == NB + 1 ? portable_block<NB + 1>(single, pairs, x, jb, je, K, out) : void()), ...);
}

#ifdef CONJUNCT_ROW_SUMS_AVX
// Outputs [O, O + 4 NV) of K (O = 48 P) in NV vectors held in registers over
// every row; with Masked, the last vector holds the K % 4 outputs left
// (masked lanes load zeros and are not stored). Up to 13 vectors (52
// outputs) fit the 16 registers in one pass. Named variables, not an array:
// GCC keeps an array of more than four vectors in memory, a store per vector and row.
#define CONJUNCT_LOAD(k, p) \
  ((Masked && (k) == NV - 1) ? _mm256_maskload_pd((p) + 4 * (k), mask) : _mm256_loadu_pd((p) + 4 * (k)))
#define CONJUNCT_EACH(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12)
template <int NV, bool Masked>
__attribute__((target("avx"))) void avx_pass(const double* single, const double* pairs, const int32_t* x, size_t jb,
                                             size_t je, size_t K, double* out) {
  static_assert(NV >= 1 && NV <= 13, "one pass holds 1 to 13 vectors");
  const size_t r = K % 4;
  const __m256i mask = _mm256_set_epi64x(0, r > 2 ? -1 : 0, r > 1 ? -1 : 0, -1);
  const int64_t k = static_cast<int64_t>(K);
#define CONJUNCT_INIT(v) __m256d a##v = NV > (v) ? CONJUNCT_LOAD(v, out) : _mm256_setzero_pd();
  CONJUNCT_EACH(CONJUNCT_INIT)
  for (size_t j = jb; j < je; ++j) {
    const int64_t a = x[j];
    const double* s = single + a * k;
#define CONJUNCT_ADD_S(v) if constexpr (NV > (v)) a##v = _mm256_add_pd(a##v, CONJUNCT_LOAD(v, s));
    CONJUNCT_EACH(CONJUNCT_ADD_S)
    const double* base = pairs + pair_base(a) * k;
#define CONJUNCT_ADD_R(v) if constexpr (NV > (v)) a##v = _mm256_add_pd(a##v, CONJUNCT_LOAD(v, row));
    size_t i = 0;
    if constexpr (NV <= 2) {  // short rows: two per turn of the loop (the same order of additions)
      for (; i + 2 <= j; i += 2) {
        {
          const double* row = base + static_cast<int64_t>(x[i]) * k;
          CONJUNCT_EACH(CONJUNCT_ADD_R)
        }
        const double* row = base + static_cast<int64_t>(x[i + 1]) * k;
        CONJUNCT_EACH(CONJUNCT_ADD_R)
      }
    }
    for (; i < j; ++i) {
      const double* row = base + static_cast<int64_t>(x[i]) * k;
      CONJUNCT_EACH(CONJUNCT_ADD_R)
    }
  }
#define CONJUNCT_STORE(v)                                                        \
  if constexpr (NV > (v)) {                                                      \
    if (Masked && (v) == NV - 1) _mm256_maskstore_pd(out + 4 * (v), mask, a##v); \
    else _mm256_storeu_pd(out + 4 * (v), a##v);                                  \
  }
  CONJUNCT_EACH(CONJUNCT_STORE)
#undef CONJUNCT_STORE
#undef CONJUNCT_ADD_R
#undef CONJUNCT_ADD_S
#undef CONJUNCT_INIT
#undef CONJUNCT_EACH
#undef CONJUNCT_LOAD
}

constexpr size_t kMaxVectors = 13;

template <int... V>
constexpr auto avx_passes(std::integer_sequence<int, V...>, bool masked) {
  struct Table {
    DenseRowsFn fn[sizeof...(V)];
  };
  return masked ? Table{{&avx_pass<V + 1, true>...}} : Table{{&avx_pass<V + 1, false>...}};
}
constexpr auto kFull = avx_passes(std::make_integer_sequence<int, kMaxVectors>(), false);
constexpr auto kMasked = avx_passes(std::make_integer_sequence<int, kMaxVectors>(), true);

// Wider than one pass: passes of 12 full vectors, then one pass for the rest.
__attribute__((target("avx"))) void avx_wide(const double* single, const double* pairs, const int32_t* x, size_t jb,
                                             size_t je, size_t K, double* out) {
  size_t o = 0;
  for (; K - o > 4 * kMaxVectors; o += 48) avx_pass<12, false>(single + o, pairs + o, x, jb, je, K, out + o);
  const size_t left = K - o;  // K % 4 outputs are left over in the last vector, as avx_pass reads K
  (left % 4 == 0 ? kFull : kMasked).fn[(left + 3) / 4 - 1](single + o, pairs + o, x, jb, je, K, out + o);
}
#endif

}  // namespace

void add_dense_rows_portable(const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je,
                             size_t K, double* out) {
  constexpr size_t B = 16;
  size_t o0 = 0;
  for (; o0 + B <= K; o0 += B) portable_block<B>(single + o0, pairs + o0, x, jb, je, K, out + o0);
  if (o0 < K)
    portable_tail(K - o0, single + o0, pairs + o0, x, jb, je, K, out + o0, std::make_index_sequence<B - 1>());
}

DenseRowsFn add_dense_rows_avx(size_t K) {
#ifdef CONJUNCT_ROW_SUMS_AVX
  if (K == 0 || !__builtin_cpu_supports("avx")) return nullptr;
  if (K > 4 * kMaxVectors) return &avx_wide;
  return (K % 4 == 0 ? kFull : kMasked).fn[(K + 3) / 4 - 1];
#else
  (void)K;
  return nullptr;
#endif
}

DenseRowsFn best_dense_rows(size_t K) {
  const DenseRowsFn avx = add_dense_rows_avx(K);
  return avx != nullptr ? avx : &add_dense_rows_portable;
}

}  // namespace conjunct
