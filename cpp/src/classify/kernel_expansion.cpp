#include "conjunct/classify/kernel_expansion.h"
#include "conjunct/util/errors.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace conjunct {

namespace {

struct Occurrence {
  int32_t feature;  // the candidate next (more frequent) member
  int32_t sv;
  int32_t pos;      // its position in the support vector
};

class Miner {
 public:
  Miner(const PolyKernel& kernel, const CsrView& svs, const AlphaRows& alpha, int32_t n_features, const ExpansionOptions& opt)
      : svs_(svs), alpha_(alpha), opt_(opt), K_(alpha.n_outputs), d_(kernel.degree), n_features_(n_features),
        builder_(alpha.n_outputs, kernel.degree, kernel.degree > kMaxDenseDegree ? 0 : opt.n_dense, n_features),
        n_dense_(kernel.degree > kMaxDenseDegree ? 0 : opt.n_dense) {
    if (opt_.progress == nullptr) opt_.progress = current_progress();
    c_ = kernel.subset_weights();
    if (opt.sigma > 0.0)
      for (double c : c_)
        if (c < 0) throw std::invalid_argument("sigma > 0 needs non-negative subset weights (gamma > 0, coef0 >= 0)");
    // Largest subset weight at any size >= r: bounds what extensions can reach.
    cmax_from_.assign(static_cast<size_t>(d_) + 2, 0.0);
    for (int r = d_; r >= 1; --r) cmax_from_[r] = std::max(cmax_from_[r + 1], std::abs(c_[r]));
    exact_ = opt.sigma <= 0.0;
    th_pos_.assign(K_, 0.0);
    th_neg_.assign(K_, 0.0);
    if (!exact_) {
      std::vector<double> n_pos(K_, 0.0), n_neg(K_, 0.0);
      for (size_t i = 0; i < alpha.n_rows; ++i) for_alpha(static_cast<int32_t>(i), [&](size_t o, double a) {
        if (a > 0) n_pos[o] += 1;
        else if (a < 0) n_neg[o] += 1;
      });
      for (size_t o = 0; o < K_; ++o) {
        const double nz = n_pos[o] + n_neg[o];
        th_pos_[o] = nz > 0 ? opt.sigma * n_pos[o] / nz : 0.0;
        th_neg_[o] = nz > 0 ? -opt.sigma * n_neg[o] / nz : 0.0;
      }
    }
    pos_.assign(K_, 0.0);
    neg_.assign(K_, 0.0);
    row_.assign(K_, 0.0);
    buffers_.resize(static_cast<size_t>(d_) + 1);
  }

  ConjunctionStoreArrays run() {
    const size_t n_sv = svs_.rows();
    const int32_t width = std::min<int32_t>(opt_.max_feature, n_features_);
    // Root level: occurrences of every feature, grouped by feature (counting sort).
    std::vector<int64_t> start(static_cast<size_t>(width) + 1, 0);
    for (size_t i = 0; i < n_sv; ++i)
      for (int32_t f : svs_.row(i))
        if (f < width) ++start[static_cast<size_t>(f) + 1];
    for (size_t f = 0; f < static_cast<size_t>(width); ++f) start[f + 1] += start[f];
    std::vector<Occurrence> occ(static_cast<size_t>(start[width]));
    {
      std::vector<int64_t> fill(start.begin(), start.end() - 1);
      for (size_t i = 0; i < n_sv; ++i) {
        Span<int32_t> s = svs_.row(i);
        for (size_t p = 0; p < s.size; ++p)
          if (s[p] < width) occ[fill[s[p]]++] = Occurrence{s[p], static_cast<int32_t>(i), static_cast<int32_t>(p)};
      }
    }
    for (int32_t f = 0; f < width; ++f) {
      if (start[f] == start[f + 1]) continue;
      tuple_[0] = f;
      visit(0, occ.data() + start[f], static_cast<size_t>(start[f + 1] - start[f]), 1);
    }
    if (opt_.dense_growth > 1.0) builder_.grow_dense(width, opt_.dense_growth);
    return builder_.finish();
  }

 private:
  template <class Fn>
  void for_alpha(int32_t sv, Fn&& fn) const {
    if (alpha_.sparse()) {
      for (int64_t e = alpha_.ptr[sv]; e < alpha_.ptr[sv + 1]; ++e) fn(static_cast<size_t>(alpha_.output[e]), alpha_.value[e]);
    } else {
      const double* a = alpha_.dense.data + static_cast<size_t>(sv) * K_;
      for (size_t o = 0; o < K_; ++o) fn(o, a[o]);
    }
  }

  // Conjunction tuple_[0..r) (rarest first) occurs in the support vectors of occs;
  // `parent` is its parent's trie node (0 = root) when it lives in the trie.
  void visit(int32_t parent, const Occurrence* occs, size_t n_occ, int r) {
    if (static_cast<int64_t>(n_occ) < opt_.min_support) return;
    if (opt_.progress != nullptr) opt_.progress->tick();
    std::fill(pos_.begin(), pos_.end(), 0.0);
    std::fill(neg_.begin(), neg_.end(), 0.0);
    for (size_t k = 0; k < n_occ; ++k) for_alpha(occs[k].sv, [&](size_t o, double a) {
      if (a > 0) pos_[o] += a;
      else neg_[o] += a;
    });
    const double c = c_[r];
    bool extend = r < d_;
    bool any = false;
    if (exact_) {
      for (size_t o = 0; o < K_; ++o) row_[o] = c * (pos_[o] + neg_[o]), any |= row_[o] != 0.0;
    } else {
      bool reachable = false;
      const double cm = r < d_ ? cmax_from_[r + 1] : 0.0;
      for (size_t o = 0; o < K_; ++o) {
        const double wp = c * pos_[o], wn = c * neg_[o];
        row_[o] = (pos_[o] > 0 && wp >= th_pos_[o] ? wp : 0.0) + (neg_[o] < 0 && wn <= th_neg_[o] ? wn : 0.0);
        any |= row_[o] != 0.0;
        reachable |= (pos_[o] > 0 && cm * pos_[o] >= th_pos_[o]) || (neg_[o] < 0 && cm * neg_[o] <= th_neg_[o]);
      }
      extend = extend && reachable;
      if (!any && !extend) return;
    }
    const int32_t rarest = tuple_[0];
    int32_t node = -1;
    if (rarest < n_dense_) {
      int32_t asc[kMaxDenseDegree];
      for (int k = 0; k < r; ++k) asc[k] = tuple_[r - 1 - k];
      double* out = builder_.dense_row(asc, r);
      std::copy(row_.begin(), row_.end(), out);
    } else {
      if (static_cast<int64_t>(builder_.n_nodes()) > opt_.max_nodes)
        throw LimitExceeded("the expansion exceeds max_conjunctions (" + std::to_string(opt_.max_nodes) +
                                "); use kernel splitting, sigma > 0, or a larger limit");
      node = builder_.add_node(parent, tuple_[r - 1]);
      std::copy(row_.begin(), row_.end(), builder_.node_row(node));
    }
    if (!extend) return;
    // Project: every more frequent feature before the prefix's last member.
    std::vector<Occurrence>& next = buffers_[r];
    next.clear();
    for (size_t k = 0; k < n_occ; ++k) {
      const Occurrence& oc = occs[k];
      Span<int32_t> s = svs_.row(static_cast<size_t>(oc.sv));
      for (int32_t p = 0; p < oc.pos; ++p) next.push_back(Occurrence{s[p], oc.sv, p});
    }
    if (next.empty()) return;
    std::sort(next.begin(), next.end(), [](const Occurrence& a, const Occurrence& b) {
      return a.feature != b.feature ? a.feature < b.feature : a.sv < b.sv;
    });
    // visit() reuses buffers_[r + 1] only, so groups of `next` stay valid.
    size_t g = 0;
    while (g < next.size()) {
      size_t e = g;
      while (e < next.size() && next[e].feature == next[g].feature) ++e;
      tuple_[r] = next[g].feature;
      visit(node < 0 ? 0 : node, next.data() + g, e - g, r + 1);
      g = e;
    }
  }

  const CsrView& svs_;
  const AlphaRows& alpha_;
  ExpansionOptions opt_;
  size_t K_;
  int d_;
  int32_t n_features_;
  ConjunctionStoreBuilder builder_;
  int32_t n_dense_;
  std::vector<double> c_, cmax_from_, th_pos_, th_neg_, pos_, neg_, row_;
  bool exact_ = true;
  int32_t tuple_[64] = {};
  std::vector<std::vector<Occurrence>> buffers_;
};

}  // namespace

ConjunctionStoreArrays expand_kernel(const PolyKernel& kernel, const CsrView& support_vectors, const AlphaRows& alpha,
                                     int32_t n_features, const ExpansionOptions& options) {
  if (kernel.degree > 63) throw std::invalid_argument("kernel expansion supports degree <= 63");
  if (alpha.n_rows != support_vectors.rows()) throw std::invalid_argument("alpha rows do not match the support vectors");
  return Miner(kernel, support_vectors, alpha, n_features, options).run();
}

}  // namespace conjunct
