// A hash map from non-negative 64-bit keys to 32-bit values: open addressing,
// linear probing, at most half full. Smaller and several times faster than a
// std::unordered_map for the featurizer's millions of integer look-ups.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace conjunct {

class KeyMap {
 public:
  static constexpr int32_t kAbsent = INT32_MIN;

  KeyMap() { clear(); }

  int32_t find(int64_t key) const {
    for (size_t s = slot(key);; s = (s + 1) & mask_) {
      if (keys_[s] == key) return values_[s];
      if (keys_[s] == kEmpty) return kAbsent;
    }
  }
  // Where key's probe starts (to prefetch before find).
  const void* address(int64_t key) const { return keys_.data() + slot(key); }

  void put(int64_t key, int32_t value) { values_[claim(key)] = value; }

  // The key's value, or the number of keys so far (its new value) if it is new.
  int32_t intern(int64_t key) {
    const size_t n = size_;
    const size_t s = claim(key);
    if (size_ != n) values_[s] = static_cast<int32_t>(n);
    return values_[s];
  }

  size_t size() const { return size_; }
  size_t bytes() const { return keys_.size() * (sizeof(int64_t) + sizeof(int32_t)); }
  void clear() {
    keys_.assign(16, kEmpty), values_.assign(16, 0);
    mask_ = 15, size_ = 0, shift_ = 60;
  }

 private:
  static constexpr int64_t kEmpty = -1;

  size_t slot(int64_t key) const {
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  // The slot holding key, taken (and counted) if the key is new.
  size_t claim(int64_t key) {
    if (2 * (size_ + 1) > keys_.size()) rehash(2 * keys_.size());
    size_t s = slot(key);
    while (keys_[s] != key && keys_[s] != kEmpty) s = (s + 1) & mask_;
    if (keys_[s] == kEmpty) keys_[s] = key, ++size_;
    return s;
  }
  void rehash(size_t n_slots) {
    std::vector<int64_t> old_keys(n_slots, kEmpty);
    std::vector<int32_t> old_values(n_slots, 0);
    old_keys.swap(keys_), old_values.swap(values_);
    mask_ = n_slots - 1, size_ = 0;
    shift_ = 64;
    for (size_t n = n_slots; n > 1; n >>= 1) --shift_;
    for (size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != kEmpty) values_[claim(old_keys[i])] = old_values[i];
  }

  std::vector<int64_t> keys_;
  std::vector<int32_t> values_;
  size_t size_ = 0, mask_ = 0;
  int shift_ = 60;
};

}  // namespace conjunct
