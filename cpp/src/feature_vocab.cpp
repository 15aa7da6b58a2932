#include "conjunct/tasks/feature_vocab.h"

#include <cstring>
#include <stdexcept>

namespace conjunct {

uint64_t FeatureVocab::hash(std::string_view s) {
  // Eight bytes at a time, multiply-xorshift mixing; the low bits (the slot)
  // depend on every byte.
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
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

FeatureVocab::FeatureVocab(const char* names, size_t names_size, const int64_t* offsets, size_t n)
    : blob_(names, names_size), offsets_(offsets, offsets + n + 1), n_(n) {
  if (offsets_[0] != 0) throw std::invalid_argument("feature name offsets must start at 0");
  for (size_t k = 0; k < n; ++k)
    if (offsets_[k + 1] < offsets_[k]) throw std::invalid_argument("feature name offsets decrease");
  if (static_cast<size_t>(offsets_[n]) != names_size)
    throw std::invalid_argument("feature name offsets do not end at the end of the names");
  size_t slots = 16;
  while (slots < 2 * n) slots <<= 1;
  mask_ = slots - 1;
  tags_.assign(slots, 0);
  columns_.assign(slots, -1);
  for (size_t k = 0; k < n; ++k) {
    const std::string_view s = name(static_cast<int32_t>(k));
    const uint64_t h = hash(s);
    const uint32_t tag = static_cast<uint32_t>(h >> 32) | 1u;
    for (uint64_t slot = h & mask_;; slot = (slot + 1) & mask_) {
      if (tags_[slot] == 0) {
        tags_[slot] = tag;
        columns_[slot] = static_cast<int32_t>(k);
        break;
      }
      if (tags_[slot] == tag && name(columns_[slot]) == s)
        throw std::invalid_argument("a feature name appears twice: " + std::string(s));
    }
  }
}

int32_t FeatureVocab::find(std::string_view key) const {
  if (n_ == 0) return -1;
  const uint64_t h = hash(key);
  const uint32_t tag = static_cast<uint32_t>(h >> 32) | 1u;
  for (uint64_t slot = h & mask_;; slot = (slot + 1) & mask_) {
    const uint32_t t = tags_[slot];
    if (t == 0) return -1;
    if (t == tag && name(columns_[slot]) == key) return columns_[slot];
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
