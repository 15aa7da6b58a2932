// Approximate left-to-right decoders: beam search of width B (O(N B L)) and
// greedy decoding (B = 1), which also gives staggered decoding its initial
// lower bound (Kaji et al. 2010, section 3.5).
#pragma once
#include "conjunct/decode/chain.h"

namespace conjunct {

DecodeStats beam(const Lattice& lat, int32_t* path, size_t width);
DecodeStats greedy(const Lattice& lat, int32_t* path);

}  // namespace conjunct
