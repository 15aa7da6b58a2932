// Views over sparse binary data and the map from a caller's column ids to a
// compiled model's internal feature ids (frequency ranks).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
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

// Scratch space of FeatureMap::apply (one per thread).
struct MappedIds {
  static constexpr int32_t kSmall = 1024;  // ids below this are sorted through a bit set
  std::vector<int32_t> ids;
  uint64_t small[kSmall / 64] = {};  // zero between calls
};

// Column id -> internal id; -1 (or a column beyond the map) means the feature
// carries no weight in the model and is dropped.
struct FeatureMap {
  Span<int32_t> to_internal;

  // Maps `columns` into sc.ids[0, n) as sorted, duplicate-free internal ids;
  // returns n.
  size_t apply(Span<int32_t> columns, MappedIds& sc) const {
    if (sc.ids.size() < columns.size) sc.ids.resize(columns.size);
    int32_t* o = sc.ids.data();
    const int32_t* map = to_internal.data;
    const size_t width = to_internal.size;
    // Every look-up first, without branches: the loads do not wait for each
    // other, so their cache misses overlap (the map spans every column).
    size_t n = 0;
    for (int32_t c : columns) {
      const int32_t f = static_cast<uint32_t>(c) < width ? map[c] : -1;  // negative or beyond: unseen
      o[n] = f;
      n += f >= 0;
    }
    return sort_unique(o, n, sc.small);
  }

 private:
  // Sorts o[0, n) and drops duplicates; returns the new length. Zipf-aware:
  // most ids of a vector are small (frequent features), so those go through
  // the bit set `small` (left zero) and are read back in order; only the
  // others are sorted.
  static size_t sort_unique(int32_t* o, size_t n, uint64_t* small) {
    uint32_t words = 0;  // which words of `small` are set
    size_t large = 0;
    for (size_t i = 0; i < n; ++i) {
      const int32_t f = o[i];
      if (f < MappedIds::kSmall) {
        small[f >> 6] |= uint64_t{1} << (f & 63);
        words |= 1u << (f >> 6);
      } else {
        o[large++] = f;
      }
    }
    if (large > 64) {
      std::sort(o, o + large);
    } else {
      for (size_t i = 1; i < large; ++i) {
        const int32_t v = o[i];
        size_t k = i;
        for (; k > 0 && o[k - 1] > v; --k) o[k] = o[k - 1];
        o[k] = v;
      }
    }
    size_t n_large = 0;  // distinct large ids, kept in front
    for (size_t i = 0; i < large; ++i)
      if (n_large == 0 || o[i] != o[n_large - 1]) o[n_large++] = o[i];
    // The small ids, in order, go in front and the large ones after them: the
    // large ones wait at the end meanwhile (there are at most n - n_large small ones).
    if (n_large > 0) std::memmove(o + n - n_large, o, n_large * sizeof(int32_t));
    size_t m = 0;
    for (; words != 0; words &= words - 1) {
      const int w = __builtin_ctz(words);
      for (uint64_t b = small[w]; b != 0; b &= b - 1) o[m++] = w * 64 + __builtin_ctzll(b);
      small[w] = 0;
    }
    if (n_large > 0 && m != n - n_large) std::memmove(o + m, o + n - n_large, n_large * sizeof(int32_t));
    m += n_large;
    return m;
  }
};

}  // namespace conjunct
