#include "conjunct/decode/column_scores.h"

#include <algorithm>

namespace conjunct {

namespace {

template <class T>
void grow(std::vector<T>& v, size_t n) {  // never shrinks, so no refill per sentence
  if (v.size() < n) v.resize(n);
}

// The level segment of label y >= 1: floor(log2 y) (labels [2^j, 2^(j+1))).
inline size_t segment_of(size_t y) {
#if defined(__GNUC__) || defined(__clang__)
  return 63 - static_cast<size_t>(__builtin_clzll(static_cast<unsigned long long>(y)));
#else
  size_t j = 0;
  while (y >>= 1) ++j;
  return j;
#endif
}

constexpr size_t kMaxLevels = 64;

// A lazy token's groups are opened up front until no unopened bound beats
// its kInitRank-th best score found (1: until its best label is exact).
// Measured: 3 or 4 save search steps (bunsetsu 3.4 -> 2.5) but open so many
// more groups that decoding is slower.
constexpr size_t kInitRank = 1;

// Bounds per range from the segments' maxima: a suffix range is the best of
// its segments (ties: the lower segment, so the lower label).
void set_bounds(size_t K, const double* sm, const int32_t* sa, double* bound, int32_t* label) {
  double m = kNegInf;
  int32_t arg = -1;
  for (size_t j = K; j-- > 0;) {
    bound[j] = sm[j], label[j] = sa[j];
    if (sa[j] != -1 && (arg == -1 || sm[j] >= m)) m = sm[j], arg = sa[j];
    bound[K + j] = m, label[K + j] = arg;
  }
}

// The first unmarked label of [lo, hi) scoring v (the caller knows one does).
size_t find_label(const double* e, const uint8_t* mark, size_t lo, size_t hi, double v) {
  size_t y = lo;
  while (y < hi) {
    while (y + 4 <= hi && !((e[y] == v) | (e[y + 1] == v) | (e[y + 2] == v) | (e[y + 3] == v))) y += 4;
    for (const size_t end = std::min(hi, y + 4); y < end; ++y)
      if (e[y] == v && !mark[y]) return y;
  }
  return lo;  // not reached
}

}  // namespace

// The maxima of every level segment (vectorised), then the top labels one at
// a time: the best segment's maximum is located by a scan for it, and the
// segment's maximum recomputed around the labels taken. The labels attaining
// the other maxima are located only if asked for.
size_t ColumnScores::summarize(const double* e, const Transitions& T, uint8_t* mark, double* bound, int32_t* label,
                               int32_t* top) {
  const size_t K = T.n_levels();
  double sm[kMaxLevels];
  int32_t sa[kMaxLevels];
  size_t nt = 0;
  auto segment_max = [&](size_t j) {  // split at the top labels inside
    const size_t lo = T.active(j), hi = T.active(j + 1);
    int32_t cut[kTop];
    size_t n_cut = 0;
    for (size_t i = 0; i < nt; ++i)
      if (static_cast<size_t>(top[i]) >= lo && static_cast<size_t>(top[i]) < hi) cut[n_cut++] = top[i];
    std::sort(cut, cut + n_cut);
    double m = kNegInf;
    size_t from = lo;
    for (size_t i = 0; i < n_cut; ++i) {
      const size_t z = static_cast<size_t>(cut[i]);
      m = std::max(m, max_of(e + from, z - from)), from = z + 1;
    }
    m = std::max(m, max_of(e + from, hi - from));
    sm[j] = m, sa[j] = m == kNegInf ? -1 : -2 - static_cast<int32_t>(j);
  };
  for (size_t j = 0; j < K; ++j) segment_max(j);
  while (nt < kTop) {
    size_t b = K;
    double bv = kNegInf;
    for (size_t j = 0; j < K; ++j) {  // ties: the lower segment
      const bool take = sm[j] > bv;
      bv = take ? sm[j] : bv, b = take ? j : b;
    }
    if (b == K) break;
    const size_t y = find_label(e, mark, T.active(b), T.active(b + 1), bv);
    top[nt++] = static_cast<int32_t>(y);
    mark[y] = 1;
    segment_max(b);
  }
  for (size_t i = 0; i < nt; ++i) mark[static_cast<size_t>(top[i])] = 0;
  set_bounds(K, sm, sa, bound, label);
  return nt;
}

int32_t ColumnScores::locate(const double* e, const Transitions& T, const double* bound, int32_t* label,
                             const int32_t* top, size_t n_top, size_t r) {
  if (label[r] >= -1) return label[r];
  const size_t j = static_cast<size_t>(-2 - label[r]);
  const double m = bound[j];
  for (size_t z = T.active(j); z < T.active(j + 1); ++z)
    if (e[z] == m && std::find(top, top + n_top, static_cast<int32_t>(z)) == top + n_top) {
      label[r] = static_cast<int32_t>(z);
      break;
    }
  return label[r];
}

void ColumnScores::reset(size_t N, const Transitions& T) {
  N_ = N, T_ = &T, L_ = T.n_labels(), K_ = T.n_levels(), R_ = T.n_ranges();
  groups_opened_ = 0;
  col_.resize(N);
  grow(bound_, N * R_), grow(bound_label_, N * R_), grow(top_, N * kTop);
  grow(acc_, L_), grow(mark_, L_), grow(list_, L_), grow(bucket_, L_);
  touched_label_.clear(), touched_score_.clear();
}

void ColumnScores::from_table(const double* E, size_t N, const Transitions& T) {
  reset(N, T);
  model_ = nullptr;
  for (size_t n = 0; n < N; ++n) {
    col_[n] = {nullptr, E + n * L_, static_cast<uint32_t>(L_), 0, 0, 0, -1, 0, 0, kFull};
    finish_row(n);
  }
}

void ColumnScores::from_model(const ChainModel& model, CsrView tokens, size_t t0, size_t t1) {
  const size_t N = t1 - t0, T1 = tokens.rows();
  reset(N, model.transitions);
  model_ = &model;
  tokens_ = tokens;
  G_ = model.n_groups();
  grow(rows_, N * L_);
  grow(gvalue_, N * G_), grow(gopen_, N * G_), grow(gbest_, N * G_);
  if (t0 < t1) model.prefetch_index(tokens.row(t0));
  if (t0 + 1 < T1) model.prefetch_index(tokens.row(t0 + 1));
  for (size_t t = t0; t < t1; ++t) {
    if (t + 2 < T1) model.prefetch_index(tokens.row(t + 2));
    if (t + 1 < T1) model.prefetch_token(tokens.row(t + 1), model.lazy_scores);
    const size_t n = t - t0;
    const Span<int32_t> ids = tokens.row(t);
    Column& c = col_[n];
    const uint8_t edge = static_cast<uint8_t>((n == 0 ? 1 : 0) | (n + 1 == N ? 2 : 0));
    c = {rows_.data() + n * L_, rows_.data() + n * L_, 0, 0, 0, 0, -1, static_cast<uint32_t>(t), edge, kFull};
    // The token's features besides the base: how many, how many labels they
    // weigh, and the last one. Untouched labels score the base row's value
    // only if the token has the base feature exactly when the model has one.
    size_t bases = 0, others = 0, entries = 0;
    int32_t other = -1;
    for (int32_t f : ids) {
      if (!model.has(f)) continue;
      if (f == model.base) {
        ++bases;
        continue;
      }
      ++others, other = f, entries += static_cast<size_t>(model.row(f).size);
    }
    const bool background = bases == (model.base >= 0 ? 1u : 0u);
    // Scattering a label costs several times a label of a full row
    // (vectorised): sparse up to L/8 touched labels.
    if (background && entries * 8 <= L_) {
      finish_sparse(n, ids);
    } else if (background && others == 1 && edge == 0 && model.row(other).dense >= 0) {
      c.feature = other;
      finish_pair(n);
    } else if (model.lazy_scores) {
      start_lazy(n);
    } else {
      model.token_scores(ids, c.row);
      if (edge & 1)
        for (size_t y = 0; y < L_; ++y) c.row[y] += model.start[y];
      if (edge & 2)
        for (size_t y = 0; y < L_; ++y) c.row[y] += model.end[y];
      c.filled = static_cast<uint32_t>(L_);
      finish_row(n);
    }
  }
}

void ColumnScores::finish_row(size_t n) {
  col_[n].n_top = static_cast<uint32_t>(
      summarize(col_[n].scores, *T_, mark_.data(), bound_.data() + n * R_, bound_label_.data() + n * R_, top_.data() + n * kTop));
}

// The base feature and one dense row: Eq. 1 of their sum is the model's.
void ColumnScores::finish_pair(size_t n) {
  const ChainModel& m = *model_;
  Column& c = col_[n];
  const ChainModel::Row& r = m.row(c.feature);
  std::copy(m.pair_bound(r), m.pair_bound(r) + R_, bound_.data() + n * R_);
  std::copy(m.pair_label(r), m.pair_label(r) + R_, bound_label_.data() + n * R_);
  c.n_top = static_cast<uint32_t>(m.pair_n_top(r));
  const double* base = m.background(0);
  const double* v = m.dense(r);
  for (size_t i = 0; i < c.n_top; ++i) {
    const int32_t y = m.pair_top(r)[i];
    top_[n * kTop + i] = y;
    c.row[y] = base[y] + v[y];
  }
  c.mode = kPair;
}

// A sparse token: scatter its features over the labels they touch (in token
// order, the base row added where it occurs, start and end scores last, as in
// the full row), then find each segment's best touched and best untouched
// label.
void ColumnScores::finish_sparse(size_t n, Span<int32_t> ids) {
  const ChainModel& m = *model_;
  Column& c = col_[n];
  const double* base = m.background(0);
  const double* bg = m.background(c.edge);
  int32_t* list = list_.data();
  size_t n_touched = 0;
  bool base_seen = false;
  for (int32_t f : ids) {
    if (!m.has(f)) continue;
    if (f == m.base) {
      base_seen = true;
      for (size_t i = 0; i < n_touched; ++i) acc_[static_cast<size_t>(list[i])] += base[list[i]];
      continue;
    }
    const ChainModel::Row& r = m.row(f);
    const ChainModel::Entry* p = m.entries(r);
    for (int32_t j = 0; j < r.size; ++j) {
      const size_t y = static_cast<size_t>(p[j].label);
      if (!mark_[y]) {
        mark_[y] = 1;
        acc_[y] = base_seen ? base[y] : 0.0;
        list[n_touched++] = static_cast<int32_t>(y);
      }
      acc_[y] += p[j].value;
    }
  }
  if (c.edge & 1)
    for (size_t i = 0; i < n_touched; ++i) acc_[static_cast<size_t>(list[i])] += m.start[list[i]];
  if (c.edge & 2)
    for (size_t i = 0; i < n_touched; ++i) acc_[static_cast<size_t>(list[i])] += m.end[list[i]];
  // Touched labels bucketed by level segment (label 0 is always active).
  size_t start[kMaxLevels + 1];
  std::fill(start, start + K_ + 1, 0);
  for (size_t i = 0; i < n_touched; ++i)
    if (list[i] > 0) ++start[segment_of(static_cast<size_t>(list[i])) + 1];
  for (size_t j = 0; j < K_; ++j) start[j + 1] += start[j];
  size_t fill[kMaxLevels];
  std::copy(start, start + K_, fill);
  int32_t* bucket = bucket_.data();
  for (size_t i = 0; i < n_touched; ++i)
    if (list[i] > 0) bucket[fill[segment_of(static_cast<size_t>(list[i]))]++] = list[i];
  double sm[kMaxLevels];
  int32_t sa[kMaxLevels];
  size_t walk[kMaxLevels];
  // Segment j's best label not taken as a top label: the best touched one
  // against the first untouched one in descending background order.
  auto segment_best = [&](size_t j) {
    double v = kNegInf;
    int32_t arg = -1;
    for (size_t i = start[j]; i < start[j + 1]; ++i) {
      const int32_t y = bucket[i];
      if (mark_[static_cast<size_t>(y)] == 2) continue;
      if (arg < 0 || acc_[y] > v || (acc_[y] == v && y < arg)) v = acc_[y], arg = y;
    }
    const int32_t* order = m.background_order(c.edge, j);
    const size_t len = T_->active(j + 1) - T_->active(j);
    while (walk[j] < len && mark_[static_cast<size_t>(order[walk[j]])]) ++walk[j];
    if (walk[j] < len) {
      const int32_t u = order[walk[j]];
      if (arg < 0 || bg[u] > v || (bg[u] == v && u < arg)) v = bg[u], arg = u;
    }
    sm[j] = v, sa[j] = arg;
  };
  for (size_t j = 0; j < K_; ++j) walk[j] = 0, segment_best(j);
  int32_t* top = top_.data() + n * kTop;
  size_t nt = 0;
  while (nt < kTop) {
    size_t b = K_;
    double bv = kNegInf;
    for (size_t j = 0; j < K_; ++j) {  // ties: the lower segment (an empty one scores -inf)
      const bool take = sm[j] > bv;
      bv = take ? sm[j] : bv, b = take ? j : b;
    }
    if (b == K_) break;
    const int32_t y = sa[b];
    top[nt++] = y;
    c.row[y] = sm[b];
    mark_[static_cast<size_t>(y)] = 2;
    segment_best(b);
  }
  c.n_top = static_cast<uint32_t>(nt);
  set_bounds(K_, sm, sa, bound_.data() + n * R_, bound_label_.data() + n * R_);
  c.touched_begin = static_cast<uint32_t>(touched_label_.size());
  for (size_t i = 0; i < n_touched; ++i) {
    const size_t y = static_cast<size_t>(list[i]);
    touched_label_.push_back(list[i]);
    touched_score_.push_back(acc_[y]);
    acc_[y] = 0.0, mark_[y] = 0;
  }
  c.touched_end = static_cast<uint32_t>(touched_label_.size());
  c.mode = kSparse;
  for (size_t i = 0; i < nt; ++i) mark_[static_cast<size_t>(top[i])] = 0;
}

void ColumnScores::fill_lazy(size_t n, size_t a) {
  Column& c = col_[n];
  const size_t from = c.filled;
  if (c.mode == kLazy) {
    const GroupBounds& gr = model_->groups();
    const uint8_t* open = gopen_.data() + n * G_;
    // (The ranges still asked for lie above a: their bounds stand.)
    for (size_t g = 0; g < G_ && gr.group_begin(g) < a; ++g)
      if (!open[g]) open_group(n, g);
  } else if (c.mode == kPair) {
    const double* base = model_->background(0);
    const double* v = model_->dense(model_->row(c.feature));
    for (size_t y = from; y < a; ++y) c.row[y] = base[y] + v[y];
  } else {
    const double* bg = model_->background(c.edge);
    std::copy(bg + from, bg + a, c.row + from);
    for (uint32_t i = c.touched_begin; i < c.touched_end; ++i) {
      const size_t y = static_cast<size_t>(touched_label_[i]);
      if (y >= from && y < a) c.row[y] = touched_score_[i];
    }
  }
  c.filled = static_cast<uint32_t>(a);
}

// A lazy token: group bounds summed in the order its exact scores are (its
// features in order, then start and end), then groups opened best-first until
// the best label is exact.
void ColumnScores::start_lazy(size_t n) {
  const ChainModel& m = *model_;
  Column& c = col_[n];
  c.mode = kLazy;
  double* U = gvalue_.data() + n * G_;
  std::fill(gopen_.data() + n * G_, gopen_.data() + (n + 1) * G_, uint8_t(0));
  const Span<int32_t> ids = tokens_.row(c.token);
  std::fill(U, U + G_, 0.0);
  for (int32_t f : ids) {
    if (!m.has(f)) continue;
    const ChainModel::Row& r = m.row(f);
    if (r.dense >= 0) {
      const double* d = m.gdense(r);
      for (size_t g = 0; g < G_; ++g) U[g] += d[g];
    } else {
      const GroupBounds::Part* p = m.parts(r);
      for (int32_t i = 0; i < r.gsize; ++i) U[p[i].group] += p[i].max;
    }
  }
  if (c.edge & 1)
    for (size_t g = 0; g < G_; ++g) U[g] += m.edge_maxima(1)[g];
  if (c.edge & 2)
    for (size_t g = 0; g < G_; ++g) U[g] += m.edge_maxima(2)[g];
  c.n_top = 0;
  // Label 0 (always active), then the group of the best bound until no bound
  // beats the best score found.
  open_group(n, 0);
  const GroupBounds& gr = m.groups();
  // The k best scores found so far (descending); stop when no unopened bound beats the k-th.
  double kth[kInitRank + 1];
  size_t nk = 0;
  auto note = [&](double v) {
    if (nk == kInitRank && !(v > kth[nk - 1])) return;
    size_t k = nk < kInitRank ? nk++ : kInitRank - 1;
    for (; k > 0 && v > kth[k - 1]; --k) kth[k] = kth[k - 1];
    kth[k] = v;
  };
  note(c.row[0]);
  const uint8_t* open = gopen_.data() + n * G_;
  for (; kInitRank > 0;) {
    size_t b = G_;
    double bv = nk == kInitRank ? kth[nk - 1] : kNegInf;
    for (size_t g = 1; g < G_; ++g)
      if (!open[g] && U[g] > bv) bv = U[g], b = g;
    if (b == G_) break;
    open_group(n, b);
    for (size_t y = gr.group_begin(b); y < gr.group_end(b); ++y) note(c.row[y]);
  }
  // The top labels: the best opened labels other than label 0 (ties: lower label).
  int32_t* top = top_.data() + n * kTop;
  size_t nt = 0;
  for (size_t g = 1; g < G_; ++g) {
    if (!open[g]) continue;
    for (size_t y = gr.group_begin(g); y < gr.group_end(g); ++y) {
      const double v = c.row[y];
      if (nt == kTop && !(v > c.row[top[nt - 1]])) continue;
      size_t k = nt < kTop ? nt++ : kTop - 1;
      for (; k > 0 && v > c.row[top[k - 1]]; --k) top[k] = top[k - 1];
      top[k] = static_cast<int32_t>(y);
    }
  }
  c.n_top = static_cast<uint32_t>(nt);
  for (size_t i = 0; i < nt; ++i) group_best(n, gr.group_of(static_cast<size_t>(top[i])));
  c.filled = 1;
  all_lazy_bounds(n);
}

// Exact scores of group g's labels, summed as ChainModel::token_scores and
// emissions sum them.
void ColumnScores::open_group(size_t n, size_t g) {
  const ChainModel& m = *model_;
  Column& c = col_[n];
  const GroupBounds& gr = m.groups();
  const size_t a = gr.group_begin(g), b = gr.group_end(g);
  double* v = c.row;
  const Span<int32_t> ids = tokens_.row(c.token);
  std::fill(v + a, v + b, 0.0);
  for (int32_t f : ids) {
    if (!m.has(f)) continue;
    const ChainModel::Row& r = m.row(f);
    if (r.dense >= 0) {
      const double* d = m.dense(r);
      for (size_t y = a; y < b; ++y) v[y] += d[y];
      continue;
    }
    // The feature's part in group g (parts are sorted by group).
    const GroupBounds::Part* p = m.parts(r);
    const GroupBounds::Part* end = p + r.gsize;
    const GroupBounds::Part* q =
        r.gsize > 8 ? std::lower_bound(p, end, static_cast<int32_t>(g),
                                       [](const GroupBounds::Part& x, int32_t h) { return x.group < h; })
                    : p;
    while (q < end && q->group < static_cast<int32_t>(g)) ++q;
    if (q == end || q->group != static_cast<int32_t>(g)) continue;
    const int32_t last = q + 1 < end ? q[1].first : r.size;
    const ChainModel::Entry* e = m.entries(r);
    for (int32_t j = q->first; j < last; ++j) v[e[j].label] += e[j].value;
  }
  if (c.edge & 1)
    for (size_t y = a; y < b; ++y) v[y] += m.start[y];
  if (c.edge & 2)
    for (size_t y = a; y < b; ++y) v[y] += m.end[y];
  gopen_[n * G_ + g] = 1;
  ++groups_opened_;
  group_best(n, g);
}

// The best score of open group g's labels other than the top labels.
void ColumnScores::group_best(size_t n, size_t g) {
  const GroupBounds& gr = model_->groups();
  const double* v = col_[n].row;
  const int32_t* top = top_.data() + n * kTop;
  const size_t nt = col_[n].n_top;
  double m = kNegInf;
  int32_t arg = -1;
  for (size_t y = gr.group_begin(g); y < gr.group_end(g); ++y) {
    if (std::find(top, top + nt, static_cast<int32_t>(y)) != top + nt) continue;
    if (arg < 0 || v[y] > m) m = v[y], arg = static_cast<int32_t>(y);
  }
  gvalue_[n * G_ + g] = m;
  gbest_[n * G_ + g] = arg;
}

// Range bounds from the groups: a segment's is its best group's value (an
// open group on ties, so the bound is attained where it can be), a suffix's
// the best of its segments'. Segments from j_top down are recomputed (after
// opening a group of segment j_top, the others above it stand).
void ColumnScores::lazy_bounds(size_t n, size_t j_top) {
  const GroupBounds& gr = model_->groups();
  const double* U = gvalue_.data() + n * G_;
  const uint8_t* open = gopen_.data() + n * G_;
  const int32_t* gb = gbest_.data() + n * G_;
  double* bound = bound_.data() + n * R_;
  int32_t* label = bound_label_.data() + n * R_;
  {
    const size_t j = j_top;
    double m = kNegInf;
    int32_t l = -1;
    for (size_t g = gr.segment_group(j); g < gr.segment_group(j + 1); ++g) {
      const int32_t lg = open[g] ? gb[g] : kBoundOnly - static_cast<int32_t>(g);
      if (U[g] > m || (U[g] == m && l <= kBoundOnly && lg >= 0)) m = U[g], l = lg;
    }
    bound[j] = m, label[j] = l;
  }
  double sm = j_top + 1 < K_ ? bound[K_ + j_top + 1] : kNegInf;
  int32_t sl = j_top + 1 < K_ ? label[K_ + j_top + 1] : -1;
  for (size_t j = j_top + 1; j-- > 0;) {
    const double m = bound[j];
    const int32_t l = label[j];
    if (m > sm || (m == sm && sl <= kBoundOnly && l >= 0)) sm = m, sl = l;
    bound[K_ + j] = sm, label[K_ + j] = sl;
  }
}

void ColumnScores::all_lazy_bounds(size_t n) {
  for (size_t j = K_; j-- > 0;) lazy_bounds(n, j);
}

// Opens the best group of range r until it is an open one.
void ColumnScores::make_exact(size_t n, size_t r) {
  int32_t* label = bound_label_.data() + n * R_;
  while (label[r] <= kBoundOnly) {
    const size_t g = static_cast<size_t>(kBoundOnly - label[r]);
    open_group(n, g);
    lazy_bounds(n, model_->groups().segment_of(g));
  }
}

}  // namespace conjunct
