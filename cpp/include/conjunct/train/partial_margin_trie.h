// The partial-margin trie (Yoshinaga & Kitsuregawa 2010, §3.2.1 and footnote 4): for a prefix
// x_j of a frequency-sorted feature vector (its j most frequent features) it
// stores (t', delta): the partial margin m^j(x) = m(x_j) - m(x_{j-1}) as it was
// at time t'. Eq. 6 then adds only the updates since t' that contain f_j.
//
// Time is kept per node as the length t' of f_j's posting list (the updates
// containing f_j, in time order) when delta was computed: the updates since
// are exactly the list's entries from t' on, with no search. Next to it a
// node keeps two running sums of f_j's updates as they were at t', so that
// the updates since can be bounded without visiting them.
//
// A fresh node holds zeros, which is exact: with no updates every partial
// margin is zero (footnote 3), so a missing entry needs no special case.
//
// A node's record also names its label (the prefix's last feature), so a
// caller that remembers the nodes of an example's prefixes (the learner
// does, per training row) can check them against the example with the loads
// it makes anyway, instead of walking the hash table again: nodes remembered
// as one chain (the prefixes of one earlier example) are x's own as far as
// their labels match x's features.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "conjunct/train/hash_trie.h"

namespace conjunct {

class PartialMarginTrie {
 public:
  // A node's record: [t' and the label (two 32-bit words), sum_a(t'), sum_b(t'), delta_0 .. delta_{K-1}].
  static constexpr size_t kSince = 0, kSumA = 1, kSumB = 2, kDelta = 3;

  explicit PartialMarginTrie(size_t n_outputs)
      : stride_(n_outputs + kDelta), trie_(/*prefix_placed=*/true) {
    add_page();  // the root's record
  }

  // Where the node of a prefix lives: place(prefix + {f}) = next(place(prefix), f),
  // starting from kRoot. Knowing an example's places, all its nodes can be
  // prefetched before the walk (see HashTrie).
  static constexpr uint64_t kRoot = HashTrie::kRootPlace;
  static uint64_t next(uint64_t place, int32_t f) { return HashTrie::roll(place, f); }
  void prefetch(uint64_t place) const { trie_.prefetch(place); }

  // The node of prefix + {f} (whose place is `place`), created (all zeros) if absent.
  uint32_t step(uint32_t node, int32_t f, uint64_t place) {
    bool created = false;
    const uint32_t child = trie_.child_or_add_placed(node, f, place, created);
    if (created) {
      if ((child & kPageMask) == 0) add_page();
      words(child)[1] = static_cast<uint32_t>(f);
    }
    return child;
  }

  // Whether `node` (any id) is a node whose prefix ends in f.
  bool ends_in(uint32_t node, int32_t f) const {
    return node != HashTrie::kRoot && node < trie_.n_nodes() && words(node)[1] == static_cast<uint32_t>(f);
  }

  const double* record(uint32_t node) const {
    return pages_[node >> kPageBits].get() + static_cast<size_t>(node & kPageMask) * stride_;
  }
  double* record(uint32_t node) { return pages_[node >> kPageBits].get() + static_cast<size_t>(node & kPageMask) * stride_; }
  // t' is a posting-list length (< 2^32), exact as a double.
  uint32_t since(uint32_t node) const { return words(node)[0]; }
  void set_since(uint32_t node, uint32_t t) { words(node)[0] = t; }

  size_t n_nodes() const { return trie_.n_nodes() - 1; }
  size_t memory_bytes() const {
    return trie_.memory_bytes() + pages_.size() * (kPageNodes * stride_ * sizeof(double)) +
           pages_.capacity() * sizeof(pages_[0]);
  }

 private:
  // The record's first slot as two 32-bit words: t', the label.
  uint32_t* words(uint32_t node) { return reinterpret_cast<uint32_t*>(record(node) + kSince); }
  const uint32_t* words(uint32_t node) const { return reinterpret_cast<const uint32_t*>(record(node) + kSince); }
  // Records live in fixed pages rather than one growing array: a doubling
  // array keeps up to half its capacity unused and holds old and new copies
  // at once while it grows, and the trie grows in every round of training.
  static constexpr uint32_t kPageBits = 14, kPageNodes = uint32_t{1} << kPageBits, kPageMask = kPageNodes - 1;
  void add_page() { pages_.emplace_back(new double[kPageNodes * stride_]()); }

  size_t stride_;
  HashTrie trie_;
  std::vector<std::unique_ptr<double[]>> pages_;
};

}  // namespace conjunct
