// The emission scores of one sentence as staggered decoding uses them: exact
// scores of the labels a column has activated, and for every label range
// (level segment or inactive suffix, numbered as in Transitions) an upper
// bound of the scores of its inactive labels -- Eq. 1 of Kaji et al. (2010),
// where an upper bound is all Lemma 1 needs -- and, on request, a label
// attaining it (witness(), which first makes a bound exact).
//
// Besides the prefix of frequent labels, every column activates its kTop
// best-scoring labels found so far up front (they are the likeliest members
// of the best path), so the bounds are taken over the range minus those labels.
//
// Two sources:
//  - from_table: every score is given (a full emission table); bounds exact;
//  - from_model: scores come from the model's weights and the tokens' feature
//    ids, and a token is never expanded to all L scores when it need not be:
//    * a token whose features other than the model's base feature weigh few
//      labels (an HMM's known word) is scattered over the labels they touch;
//      every other label scores exactly the base row's value, so Eq. 1 over a
//      range is the better of the best touched label and the best untouched
//      one, found by walking the range's labels in descending base order
//      (precomputed once per model, with the start and end scores for the
//      first and last tokens);
//    * a token of the base feature and one feature with a dense row (an HMM's
//      unknown word) takes Eq. 1 precomputed for that pair (ChainModel);
//    * any other token (a perceptron's: a dozen features, several weighing
//      most labels) is *lazy*: its bound for every label group is the sum of
//      its features' group maxima (GroupBounds, with ChainModel::lazy_scores),
//      and exact scores are computed one group at a time: first best-first until the token's
//      best label is exact (its best bound no higher than its best score), then
//      for the groups the search activates or asks a witness of.
//    Exact scores are summed in the same order as ChainModel::emissions, so
//    they are bit-identical to the emission table every other decoder uses,
//    and bounds are summed in that order too, so each is at least the score
//    it bounds in floating point as well (rounding is monotone).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/decode/chain.h"

namespace conjunct {

class ColumnScores {
 public:
  static constexpr size_t kTop = kTopLabels;

  // E is N x L, start and end scores folded in.
  void from_table(const double* E, size_t N, const Transitions& T);
  // The token rows [t0, t1) of `tokens` under `model`.
  void from_model(const ChainModel& model, CsrView tokens, size_t t0, size_t t1);

  size_t size() const { return N_; }
  // Column n's scores; valid for the labels [0, filled(n)) and its top labels.
  const double* scores(size_t n) const { return col_[n].scores; }
  size_t filled(size_t n) const { return col_[n].filled; }
  // Makes the labels [0, a) of column n valid.
  void fill(size_t n, size_t a) {
    if (a > col_[n].filled) fill_lazy(n, a);
  }
  // The column's best labels other than label 0, best first (ties: lower label).
  const int32_t* top(size_t n) const { return top_.data() + n * kTop; }
  size_t n_top(size_t n) const { return col_[n].n_top; }
  // An upper bound of the scores of range r's labels other than the column's
  // top labels (Eq. 1 itself where exact); -inf when the top labels cover the range.
  double bound(size_t n, size_t r) const { return bound_[n * R_ + r]; }
  // Whether bound(n, r) is attained by a label (Eq. 1 exactly).
  bool exact(size_t n, size_t r) const { return bound_label_[n * R_ + r] > kBoundOnly; }
  // A label of range r (not a top label) scoring bound(n, r), after making
  // the bound exact if it is not (which can only lower it); -1 when the top
  // labels cover the range.
  int32_t witness(size_t n, size_t r) {
    int32_t* label = bound_label_.data() + n * R_;
    if (label[r] <= kBoundOnly) make_exact(n, r);
    return label[r] >= -1 ? label[r]
                          : locate(col_[n].scores, *T_, bound_.data() + n * R_, label, top(n), n_top(n), r);
  }
  // Groups whose exact scores were computed (lazy columns), over all columns.
  size_t groups_opened() const { return groups_opened_; }

  // Eq. 1 of one complete row e of L scores: its kTop best labels other than
  // label 0 go to `top` (their number is returned); for every range r,
  // bound[r] is the best score of the range's other labels and label[r] a
  // label attaining it, -1 for none, or -2 - j: in segment j, not yet located
  // (locate). `mark` is L zero bytes, left zero.
  static size_t summarize(const double* e, const Transitions& T, uint8_t* mark, double* bound, int32_t* label,
                          int32_t* top);
  static int32_t locate(const double* e, const Transitions& T, const double* bound, int32_t* label,
                        const int32_t* top, size_t n_top, size_t r);

 private:
  enum Mode : uint8_t { kFull, kSparse, kPair, kLazy };
  struct Column {
    double* row;           // writable row in rows_ (nullptr for a given table)
    const double* scores;  // row, or the table's row
    uint32_t filled, n_top;
    uint32_t touched_begin, touched_end;  // kSparse: the (label, score) pairs of the touched labels
    int32_t feature;                      // kPair: the feature besides the base
    uint32_t token;                       // kLazy: the token's row in tokens_
    uint8_t edge;                         // +1 first token, +2 last (ChainModel::background)
    Mode mode;
  };
  // Range bounds of a lazy column from its groups' values: exact (label) where
  // the best group of a range is open, else kBoundOnly - g (the bound of
  // unopened group g; far below summarize's -2 - j, "exact, not located").
  static constexpr int32_t kBoundOnly = -(1 << 20);
  void reset(size_t N, const Transitions& T);
  void finish_row(size_t n);
  void finish_sparse(size_t n, Span<int32_t> ids);
  void finish_pair(size_t n);
  void fill_lazy(size_t n, size_t a);
  void start_lazy(size_t n);
  void open_group(size_t n, size_t g);
  void group_best(size_t n, size_t g);
  void lazy_bounds(size_t n, size_t j_top);
  void all_lazy_bounds(size_t n);
  void make_exact(size_t n, size_t r);

  size_t N_ = 0, L_ = 0, K_ = 0, R_ = 0, G_ = 0;
  const Transitions* T_ = nullptr;
  const ChainModel* model_ = nullptr;
  CsrView tokens_;
  std::vector<Column> col_;
  std::vector<double> rows_;  // N x L: full rows and lazy columns' filled prefixes (grow-only)
  std::vector<double> bound_;
  std::vector<int32_t> bound_label_, top_;
  std::vector<int32_t> touched_label_;
  std::vector<double> touched_score_;
  // Lazy columns, N x G: each group's bound (or, once open, the best score of
  // its labels other than the top labels), whether it is open, and that best label.
  std::vector<double> gvalue_;
  std::vector<uint8_t> gopen_;
  std::vector<int32_t> gbest_;
  size_t groups_opened_ = 0;
  // Scratch for one token, all zero between tokens.
  std::vector<double> acc_;
  std::vector<uint8_t> mark_;  // 1: touched, 2: top label
  std::vector<int32_t> list_, bucket_;
};

}  // namespace conjunct
