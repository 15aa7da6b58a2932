#include "conjunct/features/attribute_vocab.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "conjunct/util/mix.h"

namespace conjunct {

uint64_t AttributeVocab::hash(std::string_view s) {
  // Eight bytes at a time, then mixed so that the low bits (the slot) depend on every byte.
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x243f6a8885a308d3ull ^ n;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
  }
  return mix64(h);
}

AttributeVocab::AttributeVocab(const char* values, size_t values_size, const int64_t* offsets, size_t n)
    : blob_(values, values_size), n_(n) {
  if (values_size > UINT32_MAX || n > static_cast<size_t>(INT32_MAX) - 1)
    throw std::invalid_argument("too many values for an attribute vocabulary");
  if (offsets[0] != 0) throw std::invalid_argument("value offsets must start at 0");
  for (size_t k = 0; k < n; ++k)
    if (offsets[k + 1] < offsets[k]) throw std::invalid_argument("value offsets decrease");
  if (offsets[n] != static_cast<int64_t>(values_size))
    throw std::invalid_argument("value offsets do not end at the end of the values");
  starts_.resize(n + 1);
  for (size_t k = 0; k <= n; ++k) starts_[k] = static_cast<uint32_t>(offsets[k]);
  size_t slots = 16;
  while (slots < 2 * n) slots <<= 1;
  mask_ = slots - 1;
  slots_.assign(slots, Slot{0, -1});
  for (size_t k = 0; k < n; ++k) {
    const std::string_view s = value(static_cast<int32_t>(k));
    const uint64_t h = hash(s);
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        slot = Slot{tag_of(h), static_cast<int32_t>(k)};
        break;
      }
      if (slot.tag == tag_of(h) && value(slot.code) == s)
        throw std::invalid_argument("a value appears twice in an attribute vocabulary: " + std::string(s));
    }
  }
}

void AttributeVocab::find_many(const std::string_view* values, size_t n, int32_t* out) const {
  constexpr size_t kStage = 32;
  uint64_t h[kStage];
  for (size_t b = 0; b < n; b += kStage) {
    const size_t m = std::min(kStage, n - b);
    if (n_ == 0) {
      for (size_t i = 0; i < m; ++i) out[b + i] = -1;
      continue;
    }
    for (size_t i = 0; i < m; ++i) {
      h[i] = hash(values[b + i]);
      prefetch_read(&slots_[h[i] & mask_]);
    }
    for (size_t i = 0; i < m; ++i) {  // the first slot's value: its offsets
      const Slot& slot = slots_[h[i] & mask_];
      if (slot.tag == tag_of(h[i])) prefetch_read(&starts_[static_cast<size_t>(slot.code)]);
    }
    for (size_t i = 0; i < m; ++i) {  // ... and its bytes
      const Slot& slot = slots_[h[i] & mask_];
      if (slot.tag == tag_of(h[i])) prefetch_read(blob_.data() + starts_[static_cast<size_t>(slot.code)]);
    }
    for (size_t i = 0; i < m; ++i) out[b + i] = probe(h[i], values[b + i]);
  }
}

int32_t AttributeVocab::probe(uint64_t h, std::string_view v) const {
  const uint32_t tag = tag_of(h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.tag == 0) return -1;
    if (slot.tag == tag && value(slot.code) == v) return slot.code;
  }
}

}  // namespace conjunct
