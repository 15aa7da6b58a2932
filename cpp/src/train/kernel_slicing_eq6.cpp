// Kernel slicing's Eq. 6 sum over postings (see kernel_slicing.h): the
// overlap of each update's support vector with the prefix, built twice,
// portable and for the popcnt instruction.
#include <cstddef>
#include <cstdint>

#include "conjunct/train/kernel_slicing.h"

namespace conjunct {

namespace {

// Set bits of w. Hw: the popcnt instruction (in code built for it, see
// eq6_hw); else the instruction where the whole build targets it, else
// inline bit arithmetic rather than a library call per word.
template <bool Hw>
__attribute__((always_inline)) inline int32_t popcount(uint64_t w) {
#ifdef __POPCNT__
  return __builtin_popcountll(w);
#else
  if constexpr (Hw) return __builtin_popcountll(w);
  w -= (w >> 1) & 0x5555555555555555ull;
  w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
  w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int32_t>((w * 0x0101010101010101ull) >> 56);
#endif
}

}  // namespace

// Whether this CPU has popcnt (portable builds do not assume it).
bool KernelSlicing::cpu_has_popcount() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("popcnt");
#else
  return false;
#endif
}

template <bool Hw>
__attribute__((always_inline)) inline int32_t KernelSlicing::overlap(int32_t sv, uint32_t pos, int32_t f) {
  // |s ∩ x_{j-1}| = how many of the features of s before position pos (all
  // more frequent than f_j) occur in x. Among the kBitRanks most frequent,
  // popcounts of the two bit sets count them; past those, the scan of each
  // support vector is cached and moved from where the last query left it,
  // so visiting its features in frequency order scans it once per margin
  // computation.
  const uint64_t* b = sv_bits_.data() + static_cast<size_t>(sv) * kBitWords;
  if (f < kBitRanks) {
    const int32_t w = f >> 6;
    int32_t count = popcount<Hw>(b[w] & x_bits_[w] & ((uint64_t{1} << (f & 63)) - 1));
    for (int32_t k = 0; k < w; ++k) count += popcount<Hw>(b[k] & x_bits_[k]);
    return count;
  }
  Overlap& c = cache_[static_cast<size_t>(sv)];
  if (c.stamp != stamp_) {
    // Start the scan past the bit-set features (every one of them precedes f).
    c.stamp = stamp_, c.scan = c.bits, c.count = 0;
    for (size_t k = 0; k < kBitWords; ++k) c.count += popcount<Hw>(b[k] & x_bits_[k]);
  }
  if (c.scan != pos) {
    const int32_t* s = S_.features() + S_.ptr()[sv];
    int32_t count = c.count;
    uint32_t i = c.scan;
    while (i < pos) count += mark_[static_cast<size_t>(s[i++])];
    while (i > pos) count -= mark_[static_cast<size_t>(s[--i])];
    c.scan = i;
    c.count = count;
  }
  return c.count;
}

template <bool Hw, ptrdiff_t W, bool One>
__attribute__((always_inline)) inline void KernelSlicing::eq6_sum(int32_t f, const uint32_t* p, const uint32_t* end,
                                                                  double* part) {
  // Each posting leads to an update, then to its support vector's features
  // and overlap cache: fetch those a few postings ahead. W: the posting's
  // width (with the feature's position or not); One: one output.
  constexpr ptrdiff_t kAhead = 8;
  double m = part[0];
  for (; p != end; p += W) {
    if (end - p > 2 * kAhead * W) __builtin_prefetch(&S_.event(p[2 * kAhead * W]));
    if (end - p > kAhead * W) {
      const int32_t sv = S_.event(p[kAhead * W]).sv;
      __builtin_prefetch(sv_bits_.data() + static_cast<size_t>(sv) * kBitWords);
      if (W == 2) {  // the scan past the bit sets
        __builtin_prefetch(&cache_[static_cast<size_t>(sv)]);
        __builtin_prefetch(S_.features() + S_.ptr()[sv]);
      }
    }
    const Update& u = S_.event(p[0]);
    const double v = u.tau * inc_[static_cast<size_t>(overlap<Hw>(u.sv, W == 2 ? p[1] : 0u, f))];
    if (One) {
      m += v;
    } else {
      part[u.pos] += v;
      if (u.neg >= 0) part[u.neg] -= v;
    }
  }
  if (One) part[0] = m;
}

template <bool Hw>
__attribute__((always_inline)) inline void KernelSlicing::eq6_any(int32_t f, const uint32_t* p, const uint32_t* end,
                                                                  double* part) {
  const bool one = K_ == 1;
  if (posting_width(f) == 1) {
    if (one) eq6_sum<Hw, 1, true>(f, p, end, part);
    else eq6_sum<Hw, 1, false>(f, p, end, part);
  } else {
    if (one) eq6_sum<Hw, 2, true>(f, p, end, part);
    else eq6_sum<Hw, 2, false>(f, p, end, part);
  }
}

void KernelSlicing::eq6_sw(int32_t f, const uint32_t* p, const uint32_t* end, double* part) {
  eq6_any<false>(f, p, end, part);
}

// The same code built for popcnt: the overlaps among the most frequent
// features are popcounts, which a portable build does in bit arithmetic
// (about 12 instructions a word); called only where the CPU has popcnt.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt")))
#endif
void KernelSlicing::eq6_hw(int32_t f, const uint32_t* p, const uint32_t* end, double* part) {
  eq6_any<true>(f, p, end, part);
}

}  // namespace conjunct
