// The partial-margin trie (seed 001, §3.2.1 and footnote 4): for a prefix
// x_j of a frequency-sorted feature vector (its j most frequent features) it
// stores (t', delta): the partial margin m^j(x) = m(x_j) - m(x_{j-1}) as it was
// at time t'. Eq. 6 then adds only the updates since t' that contain f_j.
//
// Time is kept per node as the length t' of f_j's posting list (the updates
// containing f_j, in time order) when delta was computed: the updates since
// are exactly the list's entries from t' on, with no search.
//
// A fresh node holds (0, 0), which is exact: with no updates every partial
// margin is zero (footnote 3), so a missing entry needs no special case.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/train/hash_trie.h"

namespace conjunct {

class PartialMarginTrie {
 public:
  explicit PartialMarginTrie(size_t n_outputs) : K_(n_outputs), since_(1, 0), delta_(n_outputs, 0.0) {}

  // The node of prefix + {f}, created (as (0, 0)) if absent.
  uint32_t step(uint32_t node, int32_t f) {
    bool created = false;
    const uint32_t child = trie_.child_or_add(node, f, created);
    if (created) {
      since_.push_back(0);
      delta_.resize(delta_.size() + K_, 0.0);
    }
    return child;
  }

  // The node of prefix + {f} if it exists, else HashTrie::kNone (nothing is created).
  uint32_t find(uint32_t node, int32_t f) const { return trie_.child(node, f); }

  uint32_t since(uint32_t node) const { return since_[node]; }
  const double* delta(uint32_t node) const { return delta_.data() + static_cast<size_t>(node) * K_; }

  void store(uint32_t node, uint32_t since, const double* value) {
    since_[node] = since;
    double* d = delta_.data() + static_cast<size_t>(node) * K_;
    for (size_t o = 0; o < K_; ++o) d[o] = value[o];
  }

  size_t n_nodes() const { return trie_.n_nodes() - 1; }
  size_t memory_bytes() const {
    return trie_.memory_bytes() + since_.capacity() * sizeof(uint32_t) + delta_.capacity() * sizeof(double);
  }

 private:
  size_t K_;
  HashTrie trie_;
  std::vector<uint32_t> since_;  // t' per node: the length of f_j's posting list then
  std::vector<double> delta_;    // K per node
};

}  // namespace conjunct
