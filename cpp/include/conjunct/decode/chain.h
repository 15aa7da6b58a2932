// The score interface every decoder shares: a linear-chain lattice of N
// columns over L labels with
//   score(y) = sum_n E[n][y_n] + sum_{n>0} T[y_{n-1}][y_n],
// start and end scores folded into E[0] and E[N-1]. Labels are numbered by
// descending training frequency p(y) (0 = most frequent), so the active labels
// of a degenerate lattice (Kaji et al. 2010, section 3.1) are a prefix
// [0, a_k) and every inactive set is a suffix. `Transitions` holds T in both
// layouts (contiguous rows for either direction of the DP) and the maxima of
// Eq. 2-4 over every level segment [a_k, a_{k+1}) and every suffix [a_k, L),
// where a_k = min(2^k, L).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/decode/group_bounds.h"
#include "conjunct/decode/maxplus.h"
#include "conjunct/features.h"

namespace conjunct {

// Labels that staggered decoding activates in every column by their score,
// besides the most frequent ones (see ColumnScores).
constexpr size_t kTopLabels = 3;

inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

class Transitions {
 public:
  Transitions() = default;
  // `scores` is L x L, row = previous label, column = current label.
  Transitions(size_t n_labels, const double* scores);

  size_t n_labels() const { return L_; }
  double operator()(size_t prev, size_t cur) const { return fwd_[prev * L_ + cur]; }
  const double* from(size_t prev) const { return fwd_.data() + prev * L_; }  // [cur]
  const double* into(size_t cur) const { return bwd_.data() + cur * L_; }    // [prev]

  // Levels 0..n_levels()-1 have inactive labels: active(k) = 2^k < L; active(n_levels()) = L.
  size_t n_levels() const { return K_; }
  size_t active(size_t k) const { return k < K_ ? size_t(1) << k : L_; }

  // Label ranges that degenerate labels stand for. Range r < K is the level
  // segment [active(r), active(r+1)); range K + k is the inactive suffix of
  // level k, [active(k), L) (the paper's degenerate label). 2K ranges in all.
  size_t n_ranges() const { return 2 * K_; }
  size_t segment(size_t j) const { return j; }
  size_t suffix(size_t k) const { return K_ + k; }
  size_t range_begin(size_t r) const { return active(r < K_ ? r : r - K_); }
  size_t range_end(size_t r) const { return r < K_ ? active(r + 1) : L_; }
  // Eq. 2: [y] = max_{y' in r} T[y][y'] (label y -> range r).
  const double* out(size_t r) const { return out_.data() + r * L_; }
  // Eq. 3: [y] = max_{y' in r} T[y'][y] (range r -> label y).
  const double* in(size_t r) const { return in_.data() + r * L_; }
  // Eq. 4: max_{y in r, y' in r2} T[y][y'].
  double between(size_t r, size_t r2) const { return rr_[r * 2 * K_ + r2]; }

  // Bounds CarpeDiem uses: the largest / smallest score into or out of a label.
  double max_into(size_t cur) const { return max_into_[cur]; }
  double max_from(size_t prev) const { return max_from_[prev]; }
  double max_all() const { return max_all_; }
  double min_all() const { return min_all_; }

  // Training: change one score; refresh() then brings the maxima up to date,
  // recomputing only the rows and columns that changed (O(L) each, plus
  // O(K L) for Eq. 4).
  void add(size_t prev, size_t cur, double delta);
  void refresh();

 private:
  void range_maxima(const double* v, double* out, size_t stride) const;
  void refresh_row(size_t y);
  void refresh_col(size_t y);
  void refresh_global();

  size_t L_ = 0, K_ = 0;
  std::vector<double> fwd_, bwd_;  // T and its transpose
  std::vector<double> out_, in_;   // 2K x L
  std::vector<double> rr_;         // 2K x 2K
  std::vector<double> max_into_, max_from_, min_from_;
  double max_all_ = 0, min_all_ = 0;
  std::vector<uint8_t> dirty_row_, dirty_col_;
  std::vector<size_t> dirty_rows_, dirty_cols_;
};

// One sentence's lattice: E is N x L (row-major), start/end already folded in.
struct Lattice {
  const double* E = nullptr;
  size_t N = 0;
  const Transitions* T = nullptr;
  size_t L() const { return T->n_labels(); }
  const double* row(size_t n) const { return E + n * T->n_labels(); }
};

struct DecodeStats {
  double score = 0;    // the returned path's score (path_score order)
  int iterations = 1;  // search steps (staggered), else 1
};

// The score of `path` under the lattice, summed left to right.
double path_score(const Lattice& lat, const int32_t* path);

// Sparse per-feature emission weights: feature f gives label labels[j] the
// score values[j] for j in [indptr[f], indptr[f+1]).
struct SparseWeights {
  Span<int64_t> indptr;
  Span<int32_t> labels;
  Span<double> values;
  size_t n_features() const { return indptr.size ? indptr.size - 1 : 0; }
};

// A compiled linear-chain model: emission weights, transitions, start and end
// scores. Immutable once compile() has run; decoding allocates nothing shared.
struct ChainModel {
  SparseWeights weights;
  Transitions transitions;
  std::vector<double> start, end;
  // A feature that (nearly) every token carries and that weighs every label:
  // the perceptron's bias, the HMM's row of unseen-pair scores. Staggered
  // decoding then needs only the other features' weights to bound a token's
  // inactive labels exactly (see ColumnScores). -1: none.
  int32_t base = -1;
  // Staggered decoding computes a (non-sparse) token's scores group by group
  // from bounds (true; see group_bounds.h) or its full row at once with exact
  // maxima (false). The bound tables are built only for the first.
  bool lazy_scores = false;
  // Labels per group of the bound tables (a power of two).
  size_t group_size = 8;

  size_t n_labels() const { return transitions.n_labels(); }
  size_t n_features() const { return weights.n_features(); }

  // Builds the decoding layout from `weights` (and `base`, `lazy_scores`,
  // `group_size`); call once. Throws std::invalid_argument for bad options.
  void compile();

  // E (n_tokens x L) of the token rows [t0, t1) of `tokens`, start and end
  // scores folded into the first and last rows; feature ids outside
  // [0, n_features) carry no weight. Every decoder's scores come from here
  // or from ColumnScores, which sums in the same order (bit-identical):
  // the token's features in order, then start, then end.
  void emissions(CsrView tokens, size_t t0, size_t t1, double* E) const;
  // One token's L scores (no start or end scores), overwriting e.
  void token_scores(Span<int32_t> ids, double* e) const;

  // -- decoding layout -------------------------------------------------------
  struct Entry {
    int32_t label;
    double value;
  };
  // A feature's weights: entries [begin, begin + size) sorted by label, the
  // index of its dense copy (L values) or -1; its group maxima (lazy_scores):
  // parts [gbegin, gbegin + gsize) (GroupBounds::Part), or for a feature with
  // a dense copy the G maxima at gdense().
  struct Row {
    int64_t begin;
    int32_t size;
    int32_t dense;
    int64_t gbegin;
    int32_t gsize;
  };
  bool has(int32_t f) const { return f >= 0 && static_cast<size_t>(f) < rows_.size(); }
  const Row& row(int32_t f) const { return rows_[static_cast<size_t>(f)]; }
  const Entry* entries(const Row& r) const { return entries_.data() + r.begin; }
  const double* dense(const Row& r) const { return dense_.data() + static_cast<size_t>(r.dense) * n_labels(); }
  const GroupBounds& groups() const { return groups_; }
  size_t n_groups() const { return groups_.n_groups(); }
  const GroupBounds::Part* parts(const Row& r) const { return parts_.data() + r.gbegin; }
  const double* gdense(const Row& r) const { return gdense_.data() + static_cast<size_t>(r.dense) * n_groups(); }
  // Group maxima of the start / end scores (edge +1 / +2; G values each).
  const double* edge_maxima(size_t edge) const { return edge_max_.data() + (edge == 1 ? 0 : n_groups()); }
  // Feature rows are cache misses (a tagger has 10^5-10^6 features, a token
  // a dozen or more): decoders prefetch the rows of the next tokens.
  void prefetch_index(Span<int32_t> ids) const {
    for (int32_t f : ids)
      if (has(f)) prefetch(&rows_[static_cast<size_t>(f)]);
  }
  void prefetch_entries(Span<int32_t> ids) const {
    for (int32_t f : ids)
      if (has(f)) {
        const Row& r = rows_[static_cast<size_t>(f)];
        prefetch(r.dense < 0 ? static_cast<const void*>(entries_.data() + r.begin) : dense(r));
      }
  }

  // Prefetches what a token's scores (bounds: its group maxima) read.
  void prefetch_token(Span<int32_t> ids, bool bounds) const;

  // The base row (L scores; all zero without a base feature): what a label
  // scores on a token whose other features do not weigh it. For the first and
  // last tokens of a sentence the start and end scores are added (`edge`:
  // +1 first, +2 last), in the order emissions() adds them.
  const double* background(size_t edge) const { return background_.data() + edge * n_labels(); }
  // The labels of level segment j by descending background score (ties by label).
  const int32_t* background_order(size_t edge, size_t j) const {
    return background_order_.data() + edge * n_labels() + transitions.active(j);
  }
  // For a token of the base feature and one dense row r alone (an HMM's
  // unknown word): Eq. 1 of their sum over every range, precomputed
  // (ColumnScores::summarize, every label located).
  const double* pair_bound(const Row& r) const { return pair_bound_.data() + pair_index(r) * transitions.n_ranges(); }
  const int32_t* pair_label(const Row& r) const { return pair_label_.data() + pair_index(r) * transitions.n_ranges(); }
  const int32_t* pair_top(const Row& r) const { return pair_top_.data() + pair_index(r) * kTopLabels; }
  size_t pair_n_top(const Row& r) const { return pair_n_top_[pair_index(r)]; }

 private:
  void compile_groups();

  std::vector<Row> rows_;
  std::vector<Entry> entries_;  // weights, interleaved: one stream per feature
  std::vector<double> dense_;   // dense copies, L each
  GroupBounds groups_;
  std::vector<GroupBounds::Part> parts_;
  std::vector<double> gdense_, edge_max_;
  std::vector<double> background_;         // 4 x L: base, + start, + end, + start + end
  std::vector<int32_t> background_order_;  // 4 x L (index 0 of each unused: label 0 is never inactive)
  static size_t pair_index(const Row& r) { return static_cast<size_t>(r.dense); }
  std::vector<double> pair_bound_;  // per dense row: 2K ranges
  std::vector<int32_t> pair_label_, pair_top_, pair_n_top_;
};

}  // namespace conjunct
