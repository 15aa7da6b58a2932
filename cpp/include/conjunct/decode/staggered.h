// Staggered decoding (Kaji et al. 2010, section 3), exact.
//
// Column n of the lattice keeps the labels [0, a_n) active (labels are ranked
// by p(y), so these are the most frequent ones; a_n = 2^k_n at level k_n) plus
// its few best-scoring labels (ColumnScores' top labels), and folds the rest
// into degenerate labels whose scores are maxima over the labels they stand
// for (Eq. 1-4): one per level segment [a_j, a_{j+1}) for the next
// `segments - 1` levels, and one for the remaining suffix (with segments = 1
// and no top labels this is the paper's single degenerate label). Search steps
// run Viterbi on the degenerate lattice, alternately forward and backward, so
// each node carries the bound of the other direction from an earlier step; a
// node with
//   lambda(y_n) + lambda_bar(y_n) - score(y_n) < l
// cannot lie on a path better than the lower bound l and is pruned for good
// (section 3.3). l is the score of the best degenerate path with each
// degenerate label replaced by its best-scoring label (a real path); the
// search stops when the best path has no degenerate label (Lemma 1) or cannot
// beat l (then the path that set l is optimal). Expansion raises the level of
// every column by one (SD, section 3.2; at most ceil(log2 L) + 1 steps), or
// only of the columns whose best node was degenerate, to the level that
// activates the labels that node stood for (column-wise expansion, section
// 3.5).
#pragma once
#include "conjunct/decode/chain.h"
#include "conjunct/decode/column_scores.h"

namespace conjunct {

enum class Expansion { all_columns, column_wise };

struct StaggeredOptions {
  size_t segments = 3;  // degenerate labels per column
};

// Decodes the sentence whose scores `scores` holds; `iterations` counts search steps.
DecodeStats staggered(ColumnScores& scores, const Transitions& T, int32_t* path, Expansion expansion,
                      const StaggeredOptions& options = {});

// The same on a full emission table.
DecodeStats staggered(const Lattice& lat, int32_t* path, Expansion expansion, const StaggeredOptions& options = {});

}  // namespace conjunct
