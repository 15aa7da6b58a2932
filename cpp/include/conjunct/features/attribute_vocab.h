// One attribute's vocabulary (forms, POS, a closed set such as a distance
// bucket): its value strings and a hash table from a value to its code (the
// value's index). A feature never costs a string: a unit's attribute values
// are looked up here once per unit, and templates combine the codes.
// Immutable once built; lookups are thread-safe.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace conjunct {

class AttributeVocab {
 public:
  AttributeVocab() = default;
  // values: the concatenated UTF-8 strings; offsets: n + 1 byte offsets into
  // it (code k is values[offsets[k], offsets[k + 1])). Throws
  // std::invalid_argument on offsets that do not start at 0, decrease or end
  // past the blob, and on a value given twice.
  AttributeVocab(const char* values, size_t values_size, const int64_t* offsets, size_t n);

  // The code of value, or -1 when the vocabulary does not hold it.
  int32_t find(std::string_view value) const { return n_ == 0 ? -1 : probe(hash(value), value); }
  // The codes of n values (-1: not held), their table slots, codes and bytes
  // prefetched in stages so that the look-ups' cache misses overlap.
  void find_many(const std::string_view* values, size_t n, int32_t* out) const;
  std::string_view value(int32_t code) const {
    return std::string_view(blob_.data() + starts_[code], starts_[code + 1] - starts_[code]);
  }
  size_t size() const { return n_; }
  size_t bytes() const { return blob_.size() + starts_.size() * sizeof(uint32_t) + slots_.size() * sizeof(Slot); }

  static uint64_t hash(std::string_view s);

 private:
  struct Slot {
    uint32_t tag;  // upper hash bits | 1 (0 = empty)
    int32_t code;
  };
  static uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32) | 1u; }
  int32_t probe(uint64_t h, std::string_view value) const;
  std::string blob_;
  std::vector<uint32_t> starts_;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  size_t n_ = 0;
};

}  // namespace conjunct
