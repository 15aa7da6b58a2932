// Kernel slicing (Yoshinaga & Kitsuregawa 2010, §3.2, Algorithm 2)
// and its special cases kernel splitting (§3.1, "SP") and kernel expansion
// ("KE").
//
// The margin of x = (f_1, ..., f_n), frequent to rare, is a sum of partial
// margins (Eq. 3): m(x) = m^0 + sum_j m^j with m^j = m(x_j) - m(x_{j-1}).
// Each partial margin comes from
//   Eq. 5  the weight trie, for a common feature (internal id < N), or
//   Eq. 6  the partial margin stored for the prefix x_j at time t', plus the
//          updates since t' whose support vector contains f_j, each weighted
//          by the sliced increment k(o + 1) - k(o) of its overlap o with
//          x_{j-1} (Eq. 4 when nothing is stored),
// chosen by the cost criterion of Eq. 7 (generalised to any degree).
//
// Early termination (§3.2.2): bounds on the partial margins not yet computed
// may prove that the example needs no update, and the computation stops. The
// bound of a partial margin is Eq. 8-9's (every update containing f_j, times
// the smallest / largest sliced increment its position allows), or, tighter,
// when a partial margin of the prefix is stored: the stored value plus Eq.
// 8-9's bounds over only the updates since (Eq. 6 bounded term by term). As
// each m^j depends only on its own prefix, they may be computed in any order;
// with termination they go loosest bound per unit of cost first, and an
// example met again with little changed is settled by its stored partial
// margins without computing the expensive ones.
//
// Modes: expanded = N = all features, Eq. 5 only; split = Eq. 5 for common
// and Eq. 4 for rare features, no reuse, no termination; slicing = all of the
// above, with switches for reuse (SL* without it) and termination.
//
// Termination is not free: planning, bounding and ordering every partial
// margin costs about as much as the cheap ones, and when the bounds rarely
// suffice before the expensive steps, it costs more than it saves (on
// J.DepP's parsing decisions at d = 3 with opal's step it does). With
// `adaptive`, the engine measures the work of blocks of margin computations
// with and without it (weight lookups, postings visited, partial margins
// planned, weighted by their instruction counts) and keeps the cheaper,
// trying the other one block in kExplore. The work is counted, not timed, so
// the choice, and the model, are the same on every run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/kernel.h"
#include "conjunct/train/margin.h"
#include "conjunct/train/partial_margin_trie.h"
#include "conjunct/train/weight_trie.h"

namespace conjunct {

struct SlicingOptions {
  int32_t limit = INT32_MAX;  // N: internal ids below are common features
  bool reuse = true;          // partial-margin trie + Eq. 6
  bool terminate = true;      // early termination by Eq. 8-9
  bool adaptive = false;      // ... only where it measures faster (see Timing below)
  bool choose = true;         // Eq. 7 picks Eq. 5 or Eq. 6 for common features (false: always Eq. 5)
  int64_t weight_budget = 0;  // bytes of the weight trie before N is halved (0: no budget)
};

class KernelSlicing final : public MarginEngine {
 public:
  KernelSlicing(const PolyKernel& kernel, const SupportSet& S, const SlicingOptions& options);
  void ensure_features(size_t n_features) override;
  bool margins(Span<int32_t> x, const MarginGoal& goal, double* out, double* bound) override;
  void on_update(const SupportSet& S, size_t e, bool new_sv) override;
  void expect_rows(size_t rows, size_t nnz) override;
  void stats(MarginStats& s) const override;

  const WeightTrie& weights() const { return weights_; }

 private:
  struct Overlap {
    uint32_t stamp = 0;  // margin computation this entry belongs to
    uint32_t scan = 0;   // features of the support vector examined so far
    int32_t count = 0;   // ... of which occur in x
    uint32_t bits = 0;   // the support vector's features among the bit sets (set once, where the scan starts)
  };
  // How the partial margin of position j will be computed.
  struct Step {
    uint32_t node = 0;   // partial-margin trie node of the prefix x_j (reuse)
    uint32_t start = 0;  // first posting of f_j not covered by the stored partial margin
    uint32_t end = 0;    // postings of f_j now
    bool eq6 = false;    // Eq. 6 (else Eq. 5)
    double cost = 0.0;   // features / updates it will examine
    double gain = 0.0;   // width of its bounds per unit of cost
  };

  void grow_tables(size_t n);
  // nodes_[j] = the partial-margin trie node of x_j (created if absent).
  void find_nodes(Span<int32_t> x, int64_t row);
  // |s ∩ x_{j-1}| for the support vector sv whose feature at position pos is f = x_j.
  template <bool Hw>
  int32_t overlap(int32_t sv, uint32_t pos, int32_t f);
  // Eq. 6's sum over the postings [p, end) of f into part (Hw: with popcnt).
  template <bool Hw, ptrdiff_t W, bool One>
  void eq6_sum(int32_t f, const uint32_t* p, const uint32_t* end, double* part);
  template <bool Hw>
  void eq6_any(int32_t f, const uint32_t* p, const uint32_t* end, double* part);
  void eq6_sw(int32_t f, const uint32_t* p, const uint32_t* end, double* part);
  void eq6_hw(int32_t f, const uint32_t* p, const uint32_t* end, double* part);
  static bool cpu_has_popcount();  // (kernel_slicing_eq6.cpp, with the sums above)
  Step plan(Span<int32_t> x, size_t j, uint32_t node) const;
  void compute(Span<int32_t> x, size_t j, const Step& st, double* part);
  void bound_step(Span<int32_t> x, size_t j, const Step& st, double* low, double* up, double* mag) const;
  bool proven(const MarginGoal& goal, double* bound) const;
  void enforce_budget();
  // With `adaptive`: whether this margin computation may terminate (closes
  // and opens the timed blocks).
  bool choose_termination();
  bool has_postings(int32_t f) const { return f >= postings_from_; }

  PolyKernel kernel_;
  const SupportSet& S_;
  SlicingOptions opt_;
  size_t K_;
  size_t n_features_ = 0;
  int32_t postings_from_;  // features with postings (all when Eq. 6 may serve a common feature)

  WeightTrie weights_;
  PartialMarginTrie partial_;
  // Feature -> the updates whose support vector contains it, in time order:
  // per update its event id, then (features from kBitRanks on) the feature's
  // position in the support vector, where the overlap scan stops. The bit-set
  // features need no position: they hold most postings, and half the bytes.
  std::vector<std::vector<uint32_t>> postings_;
  static constexpr size_t posting_width(int32_t f) { return f < kBitRanks ? 1 : 2; }
  // Per feature, a record of kFeatureStride(K) doubles: the number of updates
  // containing it, then per output the sums of their positive and negative
  // contributions (Eq. 8-9), then the sum of |tau|. One cache line for the
  // bounds and the plan of a step.
  std::vector<double> stats_;
  size_t stats_stride_;

  // Tables over the overlap o = 0, 1, ...: sliced increments, their running
  // min / max (the range of an increment at position j), Eq. 5's cost.
  std::vector<double> inc_, inc_min_, inc_max_, eq5_cost_;
  // Scratch space of one margin computation.
  std::vector<uint8_t> mark_;
  std::vector<Overlap> cache_;
  // The kBitRanks most frequent features as bits, per support vector and of
  // x: the overlap among them is a few popcounts (as opal's), with no scan
  // of the support vector, in whatever order the partial margins come.
  static constexpr int32_t kBitRanks = 256;
  static constexpr size_t kBitWords = kBitRanks / 64;
  std::vector<uint64_t> sv_bits_;
  uint64_t x_bits_[kBitWords] = {0, 0, 0, 0};
  uint32_t stamp_ = 0;
  std::vector<double> acc_, part_, abs_;
  bool hw_popcount_;  // the CPU has popcnt
  std::vector<double> upper_, lower_, slack_;  // bounds of the partial margins not yet computed, per output
  std::vector<double> low_, up_, mag_;          // ... of each position
  std::vector<double> parts_;                   // the partial margins computed, per position
  std::vector<Step> steps_;
  std::vector<uint32_t> order_;
  std::vector<uint64_t> places_;
  std::vector<uint32_t> nodes_;
  // Per training row (MarginGoal::row), where its prefixes' nodes are
  // remembered in row_nodes_ (-1: not yet): [length, node of x_0, ...].
  std::vector<int64_t> row_at_;
  std::vector<uint32_t> row_nodes_;
  WeightTrie::Scratch trie_scratch_;
  MarginStats counters_;

  // `adaptive` termination: blocks of kBlock margins, each with or without
  // it; per mode a running mean of the work per margin (< 0: not measured
  // yet). Work in instructions: about 7 per weight lookup and 200 per partial
  // margin planned and bounded (callgrind, d = 3), 15 per posting (estimated).
  static constexpr int32_t kBlock = 512;
  static constexpr int64_t kExplore = 8;
  static constexpr double kLookupWork = 7.0, kPostingWork = 15.0, kPlanWork = 200.0;
  double work() const {
    return kLookupWork * static_cast<double>(counters_.trie_lookups) +
           kPostingWork * static_cast<double>(counters_.postings) + kPlanWork * static_cast<double>(planned_);
  }
  int64_t planned_ = 0;  // partial margins planned for termination
  double block_start_ = 0.0;
  int32_t block_left_ = 0;
  int64_t blocks_ = 0;
  bool block_terminates_ = true;
  double cost_[2] = {-1.0, -1.0};  // [0] without termination, [1] with
};

}  // namespace conjunct
