// CarpeDiem (Esposito & Radicioni 2009), first order: the exact baseline that
// bets on weak label-to-label dependence. In each column, labels are visited
// by descending upper bound (best previous score + largest score into the
// label + emission); a label's predecessors are visited by descending score
// and cut off once no remaining one can win; a column stops as soon as the
// remaining labels are dominated: even with the largest transition out of
// them they cannot beat the column's best node with the smallest transition
// (so they can be no optimal path's predecessor).
#pragma once
#include "conjunct/decode/chain.h"

namespace conjunct {

DecodeStats carpediem(const Lattice& lat, int32_t* path);

}  // namespace conjunct
