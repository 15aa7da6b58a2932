// Staggered decoding (Kaji et al. 2010, section 3), exact.
//
// Column n of the lattice keeps the labels [0, a_n) active (labels are ranked
// by p(y), so the active set is a prefix) and folds the rest into one
// degenerate label whose scores are the maxima of Eq. 1-4 (precomputed per
// level in `Transitions`; the emission maxima per level are suffix maxima of
// the column, O(L)). Search steps run Viterbi on the degenerate lattice,
// alternately forward and backward, so each node carries the bound of the
// other direction from an earlier step; a node with
//   lambda(y_n) + lambda_bar(y_n) - E(y_n) < l
// cannot lie on a path better than the lower bound l and is pruned for good
// (section 3.3). l starts at the greedy path's score (section 3.5) and rises
// whenever the best degenerate path, with each degenerate label replaced by
// its best-emission inactive label, scores higher. The search stops when the
// best path has no degenerate label (Lemma 1) or cannot beat l (then the path
// that set l is optimal). Expansion doubles the active labels of every column
// (section 3.2), or only of the columns whose best node was degenerate
// (column-wise expansion, section 3.5).
#pragma once
#include "conjunct/decode/chain.h"

namespace conjunct {

enum class Expansion { all_columns, column_wise };

// `iterations` counts search steps.
DecodeStats staggered(const Lattice& lat, int32_t* path, Expansion expansion);

}  // namespace conjunct
