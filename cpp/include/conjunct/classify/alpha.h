// Rows of K coefficients per support vector, dense or sparse. One-vs-one
// models are mostly zeros (a vector takes part in n-1 of n(n-1)/2 pairs), so
// their rows are stored sparse and cost O(n) instead of O(n^2) per vector.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "conjunct/features.h"

namespace conjunct {

struct AlphaRows {
  size_t n_rows = 0;
  size_t n_outputs = 0;
  Span<double> dense;    // n_rows x n_outputs, row-major; empty when sparse
  Span<int64_t> ptr;     // sparse: row i is entries ptr[i] .. ptr[i+1)
  Span<int32_t> output;  // sparse: output index of each entry
  Span<double> value;    // sparse: coefficient of each entry

  bool sparse() const { return dense.empty() && ptr.size > 0; }

  void validate() const {
    if (sparse()) {
      if (ptr.size != n_rows + 1 || static_cast<size_t>(ptr[n_rows]) != output.size || output.size != value.size)
        throw std::invalid_argument("sparse alpha rows are inconsistent");
      for (int32_t o : output)
        if (o < 0 || static_cast<size_t>(o) >= n_outputs) throw std::invalid_argument("alpha names an unknown output");
    } else if (dense.size != n_rows * n_outputs) {
      throw std::invalid_argument("alpha must have n_sv x n_outputs values");
    }
  }

  // out += k * alpha[row]
  void add_scaled(size_t row, double k, double* out) const {
    if (sparse()) {
      for (int64_t e = ptr[row]; e < ptr[row + 1]; ++e) out[output[e]] += k * value[e];
    } else {
      const double* a = dense.data + row * n_outputs;
      for (size_t o = 0; o < n_outputs; ++o) out[o] += k * a[o];
    }
  }
};

}  // namespace conjunct
