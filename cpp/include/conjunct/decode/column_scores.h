// The emission scores of one sentence as staggered decoding uses them: exact
// scores of the labels a column has activated, and for every label range
// (level segment or inactive suffix, numbered as in Transitions) the best
// score of its inactive labels -- Eq. 1 of Kaji et al. (2010) -- with a label
// attaining it.
//
// Besides the prefix of frequent labels, every column activates its `n_top`
// best-scoring labels up front (they are the likeliest members of the best
// path), so Eq. 1 is taken over the range minus those labels.
//
// Two sources:
//  - from_table: every score is given (a full emission table);
//  - from_model: scores come from the model's weights and the tokens' feature
//    ids. A token whose features other than the model's base feature weigh
//    few labels ("sparse" token: an HMM's word, most tokens of large label
//    sets) is never expanded to all L scores: its features are scattered into
//    the labels they touch, every other label scores exactly the base row's
//    value, and Eq. 1 over a range is the larger of the best touched label and
//    the best untouched one, found by walking the range's labels in
//    descending base order (precomputed once per model; for the first and
//    last tokens the base row includes the start and end scores). Both are
//    exact. Other tokens get their full row.
// Scores are summed in the same order as ChainModel::emissions, so they are
// bit-identical to the emission table every other decoder uses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/decode/chain.h"

namespace conjunct {

class ColumnScores {
 public:
  static constexpr size_t kMaxTop = 8;

  // E is N x L, start and end scores folded in.
  void from_table(const double* E, size_t N, const Transitions& T, size_t n_top);
  // The token rows [t0, t1) of `tokens` under `model`.
  void from_model(const ChainModel& model, CsrView tokens, size_t t0, size_t t1, size_t n_top);

  size_t size() const { return N_; }
  // Column n's scores; valid for the labels [0, filled(n)) and its top labels.
  const double* scores(size_t n) const { return col_[n].scores; }
  size_t filled(size_t n) const { return col_[n].filled; }
  // Makes the labels [0, a) of column n valid.
  void fill(size_t n, size_t a) {
    if (a > col_[n].filled) fill_lazy(n, a);
  }
  // The column's best labels other than label 0, best first (ties: lower label).
  const int32_t* top(size_t n) const { return top_.data() + n * kMaxTop; }
  size_t n_top(size_t n) const { return col_[n].n_top; }
  // Eq. 1 over range r minus the column's top labels, and a label attaining
  // it; -inf and -1 when the top labels cover the range.
  double bound(size_t n, size_t r) const { return bound_[n * R_ + r]; }
  int32_t bound_label(size_t n, size_t r) { return bound_label_[n * R_ + r] >= -1 ? bound_label_[n * R_ + r] : locate(n, r); }
  // Columns whose full row was computed (the rest were sparse tokens).
  size_t full_rows() const { return full_rows_; }

 private:
  struct Column {
    double* row;           // writable row in rows_ (nullptr for a given table)
    const double* scores;  // row, or the table's row
    uint32_t filled, n_top;
    uint32_t touched_begin, touched_end;  // a sparse token's (label, score) pairs
    uint8_t edge;                         // +1 first token, +2 last (ChainModel::background)
  };
  void reset(size_t N, const Transitions& T, size_t n_top);
  void finish_row(size_t n);  // bounds and top labels of a full row
  void set_bounds(size_t n, const double* sm, const int32_t* sa);
  int32_t locate(size_t n, size_t r);
  size_t find_label(const double* e, size_t lo, size_t hi, double v) const;
  bool sparse_token(const ChainModel& m, Span<int32_t> ids) const;
  void finish_sparse(size_t n, Span<int32_t> ids);
  void fill_lazy(size_t n, size_t a);

  size_t N_ = 0, L_ = 0, K_ = 0, R_ = 0, n_top_ = 0, full_rows_ = 0;
  const Transitions* T_ = nullptr;
  const ChainModel* model_ = nullptr;
  std::vector<Column> col_;
  std::vector<double> rows_;  // N x L: full rows and sparse tokens' filled prefixes (grow-only)
  std::vector<double> bound_;
  std::vector<int32_t> bound_label_, top_;
  std::vector<int32_t> touched_label_;
  std::vector<double> touched_score_;
  // Scratch for one token, all zero between tokens.
  std::vector<double> acc_;
  std::vector<uint8_t> mark_;  // 1: touched, 2: top label
  std::vector<int32_t> list_, bucket_;
};

}  // namespace conjunct
