// Checks of a classifier's arrays before any classifier views them. A model
// file is data from strangers: after these checks no crafted array can make
// a classifier read out of bounds, loop forever or recurse without end.
// Each check throws std::invalid_argument naming the array and the problem.
#pragma once
#include <cstdint>
#include <string>

#include "conjunct/classify/alpha.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/features.h"
#include "conjunct/util/trie.h"

namespace conjunct {

// indptr starts at 0, never decreases and ends at indices.size; every index
// is in [0, n_columns); with `ascending`, every row is strictly ascending.
void check_csr(const CsrView& m, int64_t n_columns, bool ascending, const std::string& what);

// Every value is -1 (a column the model does not use) or an internal id in [0, n_features).
void check_col_map(Span<int32_t> col_map, int32_t n_features);

void check_finite(Span<double> values, const std::string& what);

// Dense or sparse alpha rows: shapes, output ids in range, finite values.
void check_alpha(const AlphaRows& alpha, const std::string& what);

enum class LabelOrder { Descending, Ascending };

// A trie in breadth-first layout (see util/trie.h): children follow their
// parent, sibling labels ascend, labels along a path follow `order`, root
// labels are in [min_root_label, n_features), root_map (n_features entries)
// names exactly the root's children, and no path is deeper than max_depth.
void check_trie(const TrieView& trie, int32_t n_features, int32_t min_root_label, LabelOrder order, int max_depth,
                const std::string& what);

// A conjunction store: its trie (conjunctions keyed rarest member first,
// rarest members in [n_dense, label_limit)), K weights per node, a dense table
// of the right size, finite weights.
void check_store(const ConjunctionStoreView& store, int32_t label_limit, const std::string& what);

}  // namespace conjunct
