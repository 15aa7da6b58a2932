// The weight trie (Yoshinaga & Kitsuregawa 2010, §3.1): explicit weights w(t) = c_d(|t|) * sum of
// the alpha rows of the support vectors containing t, for every conjunction t
// (1 <= |t| <= d) of "common" features (internal id < limit, i.e. rank <= N).
//
// Keys run rare-to-frequent: the path of t = {f1 < f2 < f3} (internal ids,
// ascending = frequent to rare) is f3 -> f2 -> f1. The root's child for f then
// holds every conjunction whose rarest feature is f, which is exactly the
// partial margin of f (Eq. 5), and a missing node proves that no stored
// conjunction extends it, so enumeration stops there.
//
// The subtrees of the D most frequent features (D from a memory cap) are
// stored densely instead: the conjunctions of size r of features below D are
// all present, at their index in the combinatorial number system,
// C(f1, 1) + C(f2, 2) + ... + C(fr, r) for f1 < ... < fr. Among the most
// frequent features nearly every conjunction occurs, so nothing is wasted,
// and Eq. 5 there becomes loads from short contiguous runs (the index of
// t + {g} differs from t's by C(g, .)) instead of one hash probe, a cache
// miss, per conjunction. Conjunctions of features below D' < D are a prefix
// of each table, so lowering N truncates them.
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
  // dense_bytes caps the dense tables (0: none; kDegreeDefault: default_dense_bytes(degree)).
  WeightTrie(const PolyKernel& kernel, size_t n_outputs, int32_t limit, size_t dense_bytes = kDegreeDefault);

  static constexpr size_t kDegreeDefault = SIZE_MAX;
  // 32 MB at d <= 2; 16 MB from d = 3, where reuse (on by default there)
  // keeps a partial-margin trie of about the same size beside them, and
  // Yoshinaga & Kitsuregawa 2010 found the fastest N near 250 (here about 230).
  static size_t default_dense_bytes(int degree) { return (degree >= 3 ? size_t{16} : size_t{32}) << 20; }
  // D for a degree and number of outputs: the most features whose dense
  // tables fit in dense_bytes (also bounded by limit).
  static int32_t dense_capacity(int degree, size_t n_outputs, int32_t limit = INT32_MAX,
                                size_t dense_bytes = kDegreeDefault);
  static constexpr int kMaxDenseDegree = 16;  // degrees above keep every conjunction in the trie

  int32_t limit() const { return limit_; }
  int32_t dense_limit() const { return dense_; }
  size_t n_outputs() const { return K_; }
  // Stored conjunctions (dense entries count whether or not any vector holds them).
  size_t n_conjunctions() const;

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
    // d = 3, dense tables: the index C(y, 2) + z in the pair run of every
    // pair z < y of x's first pair_rows features, ordered by y's position
    // then z's (the same for every f: the triples {z, y, f} are these
    // entries of f's run). Built as Eq. 5 reaches further into x.
    std::vector<uint32_t> pairs;
    size_t pair_rows = 0;
    void next_example() { pair_rows = 0; }  // x changes: the pairs are x's no longer
  };

  // Eq. 5: out[0..K) += sum of w(t) over t ⊆ {x[0..j]} with x[j] ∈ t (x ascending, x[j] < limit).
  // Returns the number of weights (dense entries or trie nodes) visited.
  size_t partial(const int32_t* x, size_t j, double* out, Scratch& scratch) const {
    const int32_t f = x[j];
    if (degree_ == 2 && K_ == 1 && f < dense_size_) {
      // d = 2, one output, inline (the common case of training at d = 2): f's
      // weight, then the pairs {y, f}, a run of the table at C(f, 2) read by
      // x's earlier features, summed in x's order (the generic walk's, and
      // opal's: its step amplifies any rounding difference).
      const double* t2 = dense_w_[2].data() + C(f, 2);
      double sum = 0.0;
      size_t a = 0;
      for (; a + 4 <= j; a += 4) {
        sum += t2[x[a]];
        sum += t2[x[a + 1]];
        sum += t2[x[a + 2]];
        sum += t2[x[a + 3]];
      }
      for (; a < j; ++a) sum += t2[x[a]];
      out[0] += dense_w_[1][static_cast<size_t>(f)];
      out[0] += sum;
      return 1 + j;
    }
    return partial_general(x, j, out, scratch);
  }

  // Drops every conjunction with a feature >= new_limit (they are the
  // subtrees of the root's children >= new_limit, and the tails of the dense
  // tables); the others keep their weights bit for bit.
  void prune(int32_t new_limit);

  // Every stored conjunction (ids ascending) with its K weights: the dense
  // ones with a non-zero weight, then the trie's nodes.
  void export_all(std::vector<int64_t>& indptr, std::vector<int32_t>& indices, std::vector<double>& weights) const;

  size_t memory_bytes() const;

 private:
  size_t partial_general(const int32_t* x, size_t j, double* out, Scratch& scratch) const;
  template <class Fn>
  void for_each_subset(Span<int32_t> s, Fn&& fn, bool skip_dense = false);
  // add's dense conjunctions for one output at d <= 3, unrolled (the update
  // loop of training at d = 2 and 3); false when the case does not apply.
  bool add_dense_unrolled(Span<int32_t> s, double tau);
  // The pairs' indices of s[0..n) into out (as Scratch::pairs).
  void pair_indices(const int32_t* s, size_t from, size_t n, std::vector<uint32_t>& out) const;
  template <class Fn>
  void descend(const int32_t* s, size_t limit_pos, uint32_t node, int depth, Fn& fn);
  template <class Fn>
  void dense_descend(const int32_t* s, size_t limit_pos, int depth, const uint64_t* index, Fn& fn);
  size_t dense_partial(const int32_t* x, size_t limit_pos, int depth, const uint64_t* index, double* out) const;
  uint32_t node_for(uint32_t parent, int32_t f);
  void grow_dense(int32_t size);
  double* dense_row(int size, uint64_t index) { return dense_w_[size].data() + index * K_; }
  uint64_t C(int32_t a, int r) const {
    return binom_[static_cast<size_t>(r) * (static_cast<size_t>(binom_size_) + 1) + static_cast<size_t>(a)];
  }

  int degree_;
  size_t K_;
  int32_t limit_;
  int32_t dense_;                          // D: conjunctions whose rarest feature is below D are dense
  int32_t dense_size_ = 0;                 // the tables cover rarest features below this (grown on demand)
  int32_t binom_size_ = 0;                 // binom_ covers a = 0..binom_size_
  std::vector<double> coef_;               // c_d(r), r = 0..d
  std::vector<std::vector<double>> dense_w_;  // size r = 1..d: C(D, r) rows of K
  std::vector<uint64_t> binom_;            // C(a, r) at r * (binom_size_ + 1) + a
  HashTrie trie_;
  std::vector<double> w_;                  // K per node (node 0, the root, unused)
  std::vector<uint32_t> update_pairs_;     // add_dense_unrolled's pair indices
};

}  // namespace conjunct
