#include "conjunct/decode/chain.h"

#include "conjunct/decode/column_scores.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

Transitions::Transitions(size_t n_labels, const double* scores) : L_(n_labels) {
  if (L_ == 0) throw std::invalid_argument("a chain model needs at least one label");
  while ((size_t(1) << K_) < L_) ++K_;
  fwd_.assign(scores, scores + L_ * L_);
  bwd_.resize(L_ * L_);
  for (size_t i = 0; i < L_; ++i)
    for (size_t j = 0; j < L_; ++j) bwd_[j * L_ + i] = fwd_[i * L_ + j];
  out_.assign(2 * K_ * L_, kNegInf);
  in_.assign(2 * K_ * L_, kNegInf);
  rr_.assign(4 * K_ * K_, kNegInf);
  max_into_.assign(L_, kNegInf);
  max_from_.assign(L_, kNegInf);
  min_from_.assign(L_, kPosInf);
  dirty_row_.assign(L_, 0);
  dirty_col_.assign(L_, 0);
  for (size_t y = 0; y < L_; ++y) refresh_row(y), refresh_col(y);
  refresh_global();
}

// Maxima of v over every range (segments, then suffixes as running maxima of
// the segments from the top), written to out[r * stride].
void Transitions::range_maxima(const double* v, double* out, size_t stride) const {
  double suffix = kNegInf;
  for (size_t j = K_; j-- > 0;) {
    const double m = max_of(v + active(j), active(j + 1) - active(j));
    out[j * stride] = m;
    suffix = std::max(suffix, m);
    out[(K_ + j) * stride] = suffix;
  }
}

void Transitions::refresh_row(size_t y) {
  const double* r = from(y);
  range_maxima(r, out_.data() + y, L_);
  double hi = kNegInf, lo = kPosInf;
  for (size_t j = 0; j < L_; ++j) hi = std::max(hi, r[j]), lo = std::min(lo, r[j]);
  max_from_[y] = hi, min_from_[y] = lo;
}

void Transitions::refresh_col(size_t y) {
  const double* c = into(y);
  range_maxima(c, in_.data() + y, L_);
  max_into_[y] = max_of(c, L_);
}

void Transitions::refresh_global() {
  // Eq. 4 from Eq. 2: the maxima of out(r2) over the labels of every range r.
  const size_t R = 2 * K_;
  for (size_t r2 = 0; r2 < R; ++r2) range_maxima(out(r2), rr_.data() + r2, R);
  max_all_ = *std::max_element(max_from_.begin(), max_from_.end());
  min_all_ = *std::min_element(min_from_.begin(), min_from_.end());
}

void Transitions::add(size_t prev, size_t cur, double delta) {
  fwd_[prev * L_ + cur] += delta;
  bwd_[cur * L_ + prev] = fwd_[prev * L_ + cur];
  if (!dirty_row_[prev]) dirty_row_[prev] = 1, dirty_rows_.push_back(prev);
  if (!dirty_col_[cur]) dirty_col_[cur] = 1, dirty_cols_.push_back(cur);
}

void Transitions::refresh() {
  if (dirty_rows_.empty() && dirty_cols_.empty()) return;
  for (size_t y : dirty_rows_) refresh_row(y), dirty_row_[y] = 0;
  for (size_t y : dirty_cols_) refresh_col(y), dirty_col_[y] = 0;
  dirty_rows_.clear();
  dirty_cols_.clear();
  refresh_global();
}

double path_score(const Lattice& lat, const int32_t* path) {
  if (lat.N == 0) return 0.0;
  double s = lat.row(0)[path[0]];
  for (size_t n = 1; n < lat.N; ++n) s += (*lat.T)(path[n - 1], path[n]) + lat.row(n)[path[n]];
  return s;
}

void ChainModel::compile() {
  const size_t L = n_labels(), F = weights.n_features();
  rows_.resize(F);
  entries_.resize(weights.labels.size);
  for (size_t j = 0; j < weights.labels.size; ++j) entries_[j] = {weights.labels[j], weights.values[j]};
  // Rows that weigh at least a quarter of the labels are also kept densely:
  // adding a dense row is a vectorised loop, a sparse one a scatter (frequent
  // features -- bias, affixes, shapes -- weigh most labels).
  dense_.clear();
  for (size_t f = 0; f < F; ++f) {
    const int64_t b = weights.indptr[f], e = weights.indptr[f + 1];
    rows_[f] = {b, static_cast<int32_t>(e - b), -1, 0, 0};
    if (static_cast<size_t>(e - b) * 4 < L || e - b < 8) continue;
    rows_[f].dense = static_cast<int32_t>(dense_.size() / L);
    dense_.resize(dense_.size() + L, 0.0);
    double* row = dense_.data() + dense_.size() - L;
    for (int64_t j = b; j < e; ++j) row[weights.labels[j]] += weights.values[j];
  }
  background_.assign(4 * L, 0.0);
  double* bg = background_.data();
  if (base >= 0 && static_cast<size_t>(base) < F)
    for (int64_t j = weights.indptr[base]; j < weights.indptr[base + 1]; ++j) bg[weights.labels[j]] += weights.values[j];
  for (size_t y = 0; y < L; ++y) {
    bg[L + y] = bg[y] + start[y];
    bg[2 * L + y] = bg[y] + end[y];
    bg[3 * L + y] = bg[L + y] + end[y];
  }
  background_order_.resize(4 * L);
  for (size_t edge = 0; edge < 4; ++edge) {
    int32_t* order = background_order_.data() + edge * L;
    const double* row = bg + edge * L;
    for (size_t y = 0; y < L; ++y) order[y] = static_cast<int32_t>(y);
    for (size_t j = 0; j < transitions.n_levels(); ++j)
      std::stable_sort(order + transitions.active(j), order + transitions.active(j + 1),
                       [&](int32_t a, int32_t b) { return row[a] > row[b]; });
  }
  // Eq. 1 of the base row plus each dense row (a token of those two features
  // scores exactly their sum, in either order).
  const size_t D = dense_.size() / L, R = transitions.n_ranges();
  pair_bound_.resize(D * R), pair_label_.resize(D * R), pair_top_.resize(D * kTopLabels), pair_n_top_.resize(D);
  std::vector<double> sum(L);
  std::vector<uint8_t> mark(L, 0);
  for (size_t d = 0; d < D; ++d) {
    for (size_t y = 0; y < L; ++y) sum[y] = bg[y] + dense_[d * L + y];
    double* bound = pair_bound_.data() + d * R;
    int32_t* label = pair_label_.data() + d * R;
    int32_t* top = pair_top_.data() + d * kTopLabels;
    const size_t nt = ColumnScores::summarize(sum.data(), transitions, mark.data(), bound, label, top);
    pair_n_top_[d] = static_cast<int32_t>(nt);
    for (size_t r = 0; r < R; ++r) ColumnScores::locate(sum.data(), transitions, bound, label, top, nt, r);
  }
  if (group_size == 0 || (group_size & (group_size - 1))) throw std::invalid_argument("group_size must be a power of two");
  parts_.clear(), gdense_.clear(), edge_max_.clear();
  if (lazy_scores) compile_groups();
}

void ChainModel::compile_groups() {
  const size_t L = n_labels(), K = transitions.n_levels();
  std::vector<size_t> segment_begin;
  for (size_t k = 0; k <= K; ++k) segment_begin.push_back(transitions.active(k));
  groups_.build(L, segment_begin, group_size);
  const size_t G = groups_.n_groups();
  parts_.clear();
  gdense_.assign(dense_.size() / std::max<size_t>(L, 1) * G, 0.0);
  for (Row& r : rows_) {
    if (r.dense >= 0) {
      groups_.maxima(dense(r), gdense_.data() + static_cast<size_t>(r.dense) * G);
      continue;
    }
    const Entry* p = entries(r);
    r.gbegin = static_cast<int64_t>(parts_.size());
    groups_.parts_of(static_cast<size_t>(r.size), [p](size_t j) { return p[j].label; },
                     [p](size_t j) { return p[j].value; }, parts_);
    r.gsize = static_cast<int32_t>(static_cast<int64_t>(parts_.size()) - r.gbegin);
  }
  edge_max_.resize(2 * G);
  groups_.maxima(start.data(), edge_max_.data());
  groups_.maxima(end.data(), edge_max_.data() + G);
}

void ChainModel::prefetch_token(Span<int32_t> ids, bool bounds) const {
  if (!bounds) return prefetch_entries(ids);
  for (int32_t f : ids)
    if (has(f)) {
      const Row& r = rows_[static_cast<size_t>(f)];
      prefetch(r.dense < 0 ? static_cast<const void*>(parts_.data() + r.gbegin) : gdense(r));
    }
}

namespace {

// e[y] (or 0 when copy: the first row is copied, as 0.0 + w == w) plus rows
// v[0], ..., v[K-1] in that order, label by label: the additions of adding
// the rows one after another, made with one load and store of e per label.
template <int K>
void add_rows(double* e, const double* const* v, size_t L, bool copy) {
  const double* v0 = v[0];
  const double* v1 = v[K > 1 ? 1 : 0];
  const double* v2 = v[K > 2 ? 2 : 0];
  const double* v3 = v[K > 3 ? 3 : 0];
  if (copy) {
    for (size_t y = 0; y < L; ++y) {
      double a = v0[y];
      if (K > 1) a += v1[y];
      if (K > 2) a += v2[y];
      if (K > 3) a += v3[y];
      e[y] = a;
    }
  } else {
    for (size_t y = 0; y < L; ++y) {
      double a = e[y] + v0[y];
      if (K > 1) a += v1[y];
      if (K > 2) a += v2[y];
      if (K > 3) a += v3[y];
      e[y] = a;
    }
  }
}

}  // namespace

void ChainModel::token_scores(Span<int32_t> ids, double* e) const {
  const size_t L = n_labels();
  bool zero = true;  // e is still all zero: a dense row is copied, not added (0.0 + w == w)
  // Consecutive dense rows are summed together, up to four at a time: each
  // label still gets the features' weights in the features' order.
  const double* run[4];
  int n_run = 0;
  auto flush = [&] {
    switch (n_run) {
      case 1: add_rows<1>(e, run, L, zero); break;
      case 2: add_rows<2>(e, run, L, zero); break;
      case 3: add_rows<3>(e, run, L, zero); break;
      case 4: add_rows<4>(e, run, L, zero); break;
      default: return;
    }
    zero = false;
    n_run = 0;
  };
  for (int32_t f : ids) {
    if (!has(f)) continue;
    const Row& r = row(f);
    if (r.dense >= 0) {
      run[n_run++] = dense(r);
      if (n_run == 4) flush();
      continue;
    }
    flush();
    if (zero) std::fill(e, e + L, 0.0), zero = false;
    const Entry* p = entries(r);
    for (int32_t j = 0; j < r.size; ++j) e[p[j].label] += p[j].value;
  }
  flush();
  if (zero) std::fill(e, e + L, 0.0);
}

void ChainModel::emissions(CsrView tokens, size_t t0, size_t t1, double* E) const {
  const size_t L = n_labels(), T1 = tokens.rows();
  if (t0 < t1) prefetch_index(tokens.row(t0));
  if (t0 + 1 < T1) prefetch_index(tokens.row(t0 + 1));
  for (size_t t = t0; t < t1; ++t) {
    // Two tokens ahead the feature index, one token ahead the weights.
    if (t + 2 < T1) prefetch_index(tokens.row(t + 2));
    if (t + 1 < T1) prefetch_entries(tokens.row(t + 1));
    token_scores(tokens.row(t), E + (t - t0) * L);
  }
  if (t1 > t0) {
    for (size_t y = 0; y < L; ++y) E[y] += start[y];
    double* last = E + (t1 - t0 - 1) * L;
    for (size_t y = 0; y < L; ++y) last[y] += end[y];
  }
}

}  // namespace conjunct
