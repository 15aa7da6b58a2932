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
    out.resize(ids.size);
    int32_t* o = out.data();
    size_t n = 0;
    const size_t width = to_internal.size;
    for (int32_t c : ids) {
      if (static_cast<uint32_t>(c) >= width) continue;  // negative or beyond the model: unseen
      const int32_t f = to_internal[static_cast<size_t>(c)];
      if (f < 0) continue;
      // Insertion sort as we go (feature vectors are short); drop duplicates.
      size_t k = n;
      while (k > 0 && o[k - 1] > f) --k;
      if (k > 0 && o[k - 1] == f) continue;
      for (size_t m = n; m > k; --m) o[m] = o[m - 1];
      o[k] = f;
      ++n;
      if (n > 64) {  // long vectors: finish with a sort instead
        for (size_t r = static_cast<size_t>(&c - ids.data) + 1; r < ids.size; ++r) {
          const int32_t cc = ids[r];
          if (static_cast<uint32_t>(cc) >= width) continue;
          const int32_t ff = to_internal[static_cast<size_t>(cc)];
          if (ff >= 0) o[n++] = ff;
        }
        std::sort(o, o + n);
        n = static_cast<size_t>(std::unique(o, o + n) - o);
        break;
      }
    }
    out.resize(n);
  }
};

}  // namespace conjunct
