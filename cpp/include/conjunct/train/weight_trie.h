// The weight trie (seed 001, §3.1): explicit weights w(t) = c_d(|t|) * sum of
// the alpha rows of the support vectors containing t, for every conjunction t
// (1 <= |t| <= d) of "common" features (internal id < limit, i.e. rank <= N).
//
// Keys run rare-to-frequent: the path of t = {f1 < f2 < f3} (internal ids,
// ascending = frequent to rare) is f3 -> f2 -> f1. The root's child for f then
// holds every conjunction whose rarest feature is f, which is exactly the
// partial margin of f (Eq. 5), and a missing node proves that no stored
// conjunction extends it, so enumeration stops there.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/features.h"
#include "conjunct/kernel.h"
#include "conjunct/train/hash_trie.h"

namespace conjunct {

class WeightTrie {
 public:
  WeightTrie(const PolyKernel& kernel, size_t n_outputs, int32_t limit);

  int32_t limit() const { return limit_; }
  size_t n_outputs() const { return K_; }
  size_t n_conjunctions() const { return trie_.n_nodes() - 1; }

  // Adds c_d(|t|) * delta to w(t) for every t ⊆ s ∩ {f < limit}, 1 <= |t| <= d.
  // delta is sparse: +tau on output `pos`, -tau on `neg` (if >= 0).
  void add(Span<int32_t> s, int32_t pos, int32_t neg, double tau);
  // The same with a dense delta row of K values.
  void add_dense(Span<int32_t> s, const double* row);

  // Scratch space for partial() (one per caller).
  struct Scratch {
    struct Probe {
      uint32_t node;   // parent, then the child found (kNone if absent)
      uint32_t pos;    // position in x of the label
      size_t slot;
    };
    std::vector<Probe> frontier, probes;
  };

  // Eq. 5: out[0..K) += sum of w(t) over t ⊆ {x[0..j]} with x[j] ∈ t (x ascending, x[j] < limit).
  // Returns the number of trie nodes visited.
  size_t partial(const int32_t* x, size_t j, double* out, Scratch& scratch) const;

  // Drops every conjunction with a feature >= new_limit (they are the
  // subtrees of the root's children >= new_limit); the others keep their
  // weights bit for bit.
  void prune(int32_t new_limit);

  // Every stored conjunction (ids ascending) with its K weights, in node order.
  void export_all(std::vector<int64_t>& indptr, std::vector<int32_t>& indices, std::vector<double>& weights) const;

  size_t memory_bytes() const { return trie_.memory_bytes() + w_.capacity() * sizeof(double); }

 private:
  template <class Fn>
  void for_each_subset(Span<int32_t> s, Fn&& fn);
  template <class Fn>
  void descend(const int32_t* s, size_t limit_pos, uint32_t node, int depth, Fn& fn);
  uint32_t node_for(uint32_t parent, int32_t f);

  int degree_;
  size_t K_;
  int32_t limit_;
  std::vector<double> coef_;  // c_d(r), r = 0..d
  HashTrie trie_;
  std::vector<double> w_;     // K per node (node 0, the root, unused)
};

}  // namespace conjunct
