// Sums of K-wide weight rows picked by a vector's features: the degree-2
// dense levels of a conjunction store, where the feature a = x[j] at position
// j adds its single row (single + a * K) and one pair row per earlier
// feature b = x[i] (pairs + (C(a, 2) + b) * K, i < j). Every variant sums
// each output in the same order (positions ascending; per position the
// single row, then the pair rows in the order of x), so all of them give the
// same bits: the AVX one only does four outputs per instruction. The AVX
// variant is chosen at run time where the CPU has it; portable builds assume
// nothing beyond the base instruction set.
#pragma once
#include <cstddef>
#include <cstdint>

namespace conjunct {

// out[0, K) += the rows of positions [jb, je) of x (ascending ids).
using DenseRowsFn = void (*)(const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je,
                             size_t K, double* out);

// Base instruction set, any K.
void add_dense_rows_portable(const double* single, const double* pairs, const int32_t* x, size_t jb, size_t je,
                             size_t K, double* out);
// The AVX variant for width K, or nullptr when this build or this CPU has no AVX.
DenseRowsFn add_dense_rows_avx(size_t K);
// The fastest variant this CPU runs for width K.
DenseRowsFn best_dense_rows(size_t K);

}  // namespace conjunct
