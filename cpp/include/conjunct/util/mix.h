// Small bit-level helpers shared by the hash tables: a 64-bit mixer and a
// portable prefetch.
#pragma once
#include <cstdint>

namespace conjunct {

// MurmurHash3's finaliser: keys that differ in a few low bits end up
// differing in every bit (hash tables index by the low bits).
inline uint64_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline void prefetch_read(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

}  // namespace conjunct
