// Viterbi: the O(N L^2) exact reference. The forward pass is a pure max-plus
// reduction over contiguous rows of the transposed transition matrix (no
// back-pointers); the path is recovered afterwards by recomputing the argmax
// of one column at a time, which is O(N L) and bit-identical to the forward sums.
#pragma once
#include "conjunct/decode/chain.h"

namespace conjunct {

DecodeStats viterbi(const Lattice& lat, int32_t* path);

}  // namespace conjunct
