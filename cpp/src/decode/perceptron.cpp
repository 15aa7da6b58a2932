#include "conjunct/decode/perceptron.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

PerceptronTrainer::PerceptronTrainer(size_t n_features, size_t n_labels)
    : L_(n_labels), rows_(n_features), trans_u_(n_labels * n_labels, 0.0), start_(n_labels, 0.0), end_(n_labels, 0.0),
      start_u_(n_labels, 0.0), end_u_(n_labels, 0.0) {
  const std::vector<double> zeros(n_labels * n_labels, 0.0);
  T_ = Transitions(n_labels, zeros.data());
}

void PerceptronTrainer::update_feature(int32_t f, int32_t label, double delta) {
  auto& row = rows_[static_cast<size_t>(f)];
  for (Entry& e : row)
    if (e.label == label) {
      e.w += delta, e.u += c_ * delta;
      return;
    }
  row.push_back({label, delta, c_ * delta});
}

void PerceptronTrainer::update_transition(int32_t prev, int32_t cur, double delta) {
  T_.add(static_cast<size_t>(prev), static_cast<size_t>(cur), delta);
  trans_u_[static_cast<size_t>(prev) * L_ + static_cast<size_t>(cur)] += c_ * delta;
}

void PerceptronTrainer::emissions(CsrView tokens, size_t t0, size_t t1, double* E) const {
  std::fill(E, E + (t1 - t0) * L_, 0.0);
  for (size_t t = t0; t < t1; ++t) {
    double* e = E + (t - t0) * L_;
    for (int32_t f : tokens.row(t))
      for (const Entry& w : rows_[static_cast<size_t>(f)]) e[w.label] += w.w;
  }
  for (size_t y = 0; y < L_; ++y) E[y] += start_[y];
  double* last = E + (t1 - t0 - 1) * L_;
  for (size_t y = 0; y < L_; ++y) last[y] += end_[y];
}

EpochStats PerceptronTrainer::epoch(CsrView tokens, Span<int64_t> sent_ptr, Span<int32_t> gold, Span<int64_t> order,
                                    Method method, size_t beam_width) {
  EpochStats st;
  std::vector<double> E;
  std::vector<int32_t> pred;
  const size_t F = rows_.size();
  for (int64_t s : order) {
    const size_t t0 = static_cast<size_t>(sent_ptr[s]), t1 = static_cast<size_t>(sent_ptr[s + 1]);
    const size_t N = t1 - t0;
    ++st.sentences;
    if (N == 0) {
      c_ += 1;
      continue;
    }
    for (size_t t = t0; t < t1; ++t)
      for (int32_t f : tokens.row(t))
        if (f < 0 || static_cast<size_t>(f) >= F) throw std::out_of_range("feature id out of range");
    E.resize(N * L_);
    pred.resize(N);
    emissions(tokens, t0, t1, E.data());
    const Lattice lat{E.data(), N, &T_};
    st.iterations += decode(method, lat, pred.data(), beam_width).iterations;
    const int32_t* g = gold.data + t0;
    size_t errors = 0;
    for (size_t n = 0; n < N; ++n) {
      if (g[n] == pred[n]) continue;
      ++errors;
      for (int32_t f : tokens.row(t0 + n)) update_feature(f, g[n], 1.0), update_feature(f, pred[n], -1.0);
    }
    if (errors) {
      for (size_t n = 1; n < N; ++n)
        if (g[n - 1] != pred[n - 1] || g[n] != pred[n])
          update_transition(g[n - 1], g[n], 1.0), update_transition(pred[n - 1], pred[n], -1.0);
      if (g[0] != pred[0]) {
        start_[g[0]] += 1, start_u_[g[0]] += c_;
        start_[pred[0]] -= 1, start_u_[pred[0]] -= c_;
      }
      if (g[N - 1] != pred[N - 1]) {
        end_[g[N - 1]] += 1, end_u_[g[N - 1]] += c_;
        end_[pred[N - 1]] -= 1, end_u_[pred[N - 1]] -= c_;
      }
      T_.refresh();
      ++st.sentence_errors;
    }
    st.tokens += N;
    st.token_errors += errors;
    c_ += 1;
  }
  return st;
}

void PerceptronTrainer::export_weights(bool averaged, std::vector<int64_t>& indptr, std::vector<int32_t>& labels,
                                       std::vector<double>& values, std::vector<double>& trans,
                                       std::vector<double>& start, std::vector<double>& end) const {
  auto value = [&](double w, double u) { return averaged ? w - u / c_ : w; };
  indptr.assign(1, 0);
  labels.clear(), values.clear();
  std::vector<Entry> row;
  for (const auto& r : rows_) {
    row = r;
    std::sort(row.begin(), row.end(), [](const Entry& a, const Entry& b) { return a.label < b.label; });
    for (const Entry& e : row) {
      const double v = value(e.w, e.u);
      if (v != 0.0) labels.push_back(e.label), values.push_back(v);
    }
    indptr.push_back(static_cast<int64_t>(labels.size()));
  }
  trans.resize(L_ * L_);
  for (size_t i = 0; i < L_; ++i)
    for (size_t j = 0; j < L_; ++j) trans[i * L_ + j] = value(T_(i, j), trans_u_[i * L_ + j]);
  start.resize(L_), end.resize(L_);
  for (size_t y = 0; y < L_; ++y) start[y] = value(start_[y], start_u_[y]), end[y] = value(end_[y], end_u_[y]);
}

PerceptronTrainer::State PerceptronTrainer::state() const {
  State s;
  s.indptr.assign(1, 0);
  for (const auto& r : rows_) {
    for (const Entry& e : r) s.labels.push_back(e.label), s.w.push_back(e.w), s.u.push_back(e.u);
    s.indptr.push_back(static_cast<int64_t>(s.labels.size()));
  }
  s.trans.resize(L_ * L_);
  for (size_t i = 0; i < L_; ++i)
    for (size_t j = 0; j < L_; ++j) s.trans[i * L_ + j] = T_(i, j);
  s.trans_u = trans_u_, s.start = start_, s.start_u = start_u_, s.end = end_, s.end_u = end_u_, s.c = c_;
  return s;
}

void PerceptronTrainer::set_state(const State& s) {
  for (size_t f = 0; f < rows_.size(); ++f) {
    auto& row = rows_[f];
    row.clear();
    for (int64_t j = s.indptr[f]; j < s.indptr[f + 1]; ++j) row.push_back({s.labels[j], s.w[j], s.u[j]});
  }
  T_ = Transitions(L_, s.trans.data());
  trans_u_ = s.trans_u, start_ = s.start, start_u_ = s.start_u, end_ = s.end, end_u_ = s.end_u, c_ = s.c;
}

}  // namespace conjunct
