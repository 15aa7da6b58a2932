// Sections a classifier's file may leave out because loading recomputes them
// bit for bit (see conjunct.models._derived).
#pragma once
#include <cstddef>

#include "conjunct/classify/sections.h"

namespace conjunct {

// An fstrie's trie.weight (K margins per stored prefix) from its base (base.*,
// meta base / base_params) and trie.child_begin / label / root_map, as
// build_fstrie computes it, on up to n_threads threads (0: as many as the
// work is worth; the bytes do not depend on it).
Sections fstrie_derived_sections(const Meta& meta, const Sections& arrays, size_t n_threads = 0);

}  // namespace conjunct
