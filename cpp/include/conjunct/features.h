// Views over sparse binary data and the map from a caller's column ids to a
// compiled model's internal feature ids (frequency ranks).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace conjunct {

// A read-only view of a contiguous array owned elsewhere (numpy, mmap, vector).
template <class T>
struct Span {
  const T* data = nullptr;
  size_t size = 0;
  Span() = default;
  Span(const T* d, size_t n) : data(d), size(n) {}
  Span(const std::vector<T>& v) : data(v.data()), size(v.size()) {}  // NOLINT
  const T& operator[](size_t i) const { return data[i]; }
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
  bool empty() const { return size == 0; }
};

// Rows of binary feature vectors in CSR layout: row i holds
// indices[indptr[i] .. indptr[i+1]).
struct CsrView {
  Span<int64_t> indptr;
  Span<int32_t> indices;
  size_t rows() const { return indptr.size ? indptr.size - 1 : 0; }
  Span<int32_t> row(size_t i) const {
    return Span<int32_t>(indices.data + indptr[i], static_cast<size_t>(indptr[i + 1] - indptr[i]));
  }
};

// Column id -> internal id; -1 (or a column beyond the map) means the feature
// carries no weight in the model and is dropped.
struct FeatureMap {
  Span<int32_t> to_internal;

  // Maps `ids` into `out` as sorted, duplicate-free internal ids.
  void apply(Span<int32_t> ids, std::vector<int32_t>& out) const {
    out.clear();
    for (int32_t c : ids) {
      if (c < 0 || static_cast<size_t>(c) >= to_internal.size) continue;
      const int32_t f = to_internal[static_cast<size_t>(c)];
      if (f >= 0) out.push_back(f);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
};

}  // namespace conjunct
