#include "conjunct/tasks/feature_vocab.h"

#include "conjunct/util/mix.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace conjunct {

uint64_t FeatureVocab::hash(std::string_view s) {
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

FeatureVocab::FeatureVocab(const char* names, size_t names_size, const int64_t* offsets, size_t n)
    : blob_(names, names_size), n_(n) {
  if (offsets[0] != 0) throw std::invalid_argument("feature name offsets must start at 0");
  for (size_t k = 0; k < n; ++k)
    if (offsets[k + 1] < offsets[k]) throw std::invalid_argument("feature name offsets decrease");
  if (static_cast<size_t>(offsets[n]) != names_size)
    throw std::invalid_argument("feature name offsets do not end at the end of the names");
  if (names_size > UINT32_MAX || n > static_cast<size_t>(INT32_MAX))
    throw std::invalid_argument("too many feature names for a feature vocabulary");
  size_t slots = 16;
  while (slots < 2 * n) slots <<= 1;
  mask_ = slots - 1;
  slots_.assign(slots, Slot{0, -1, 0, 0});
  for (size_t k = 0; k < n; ++k) {
    const std::string_view s(blob_.data() + offsets[k], static_cast<size_t>(offsets[k + 1] - offsets[k]));
    const uint64_t h = hash(s);
    const uint32_t tag = tag_of(h);
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        slot = Slot{tag, static_cast<int32_t>(k), static_cast<uint32_t>(offsets[k]), static_cast<uint32_t>(s.size())};
        break;
      }
      if (matches(slot, tag, s)) throw std::invalid_argument("a feature name appears twice: " + std::string(s));
    }
  }
}

int32_t FeatureVocab::probe(uint64_t h, std::string_view key) const {
  const uint32_t tag = tag_of(h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.tag == 0) return -1;
    if (matches(slot, tag, key)) return slot.column;
  }
}

int32_t FeatureVocab::find(std::string_view key) const { return n_ == 0 ? -1 : probe(hash(key), key); }

void FeatureVocab::find_many(const char* bytes, const uint32_t* ends, size_t n, int32_t* out) const {
  if (n_ == 0) {
    for (size_t k = 0; k < n; ++k) out[k] = -1;
    return;
  }
  // Blocks of keys: hash and prefetch every slot of the block, then probe.
  constexpr size_t kBlock = 32;
  uint64_t hashes[kBlock];
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t e = std::min(n, b + kBlock);
    for (size_t k = b; k < e; ++k) {
      const uint32_t start = k ? ends[k - 1] : 0;
      hashes[k - b] = hash(std::string_view(bytes + start, ends[k] - start));
      prefetch_read(&slots_[hashes[k - b] & mask_]);
    }
    for (size_t k = b; k < e; ++k) {
      const uint32_t start = k ? ends[k - 1] : 0;
      out[k] = probe(hashes[k - b], std::string_view(bytes + start, ends[k] - start));
    }
  }
}

TokenField::TokenField(const char* data, size_t size, size_t n_tokens) : data_(data) {
  starts_.reserve(n_tokens + 1);
  starts_.push_back(0);
  if (n_tokens == 0) {
    if (size != 0) throw std::invalid_argument("a token field buffer holds values for no tokens");
    return;
  }
  for (size_t p = 0; p < size; ++p)
    if (data[p] == '\n') starts_.push_back(static_cast<int64_t>(p + 1));
  starts_.push_back(static_cast<int64_t>(size + 1));
  if (starts_.size() != n_tokens + 1)
    throw std::invalid_argument("a token field buffer holds " + std::to_string(starts_.size() - 1) + " values where " +
                                std::to_string(n_tokens) + " are expected (a value may hold a newline)");
}

}  // namespace conjunct
