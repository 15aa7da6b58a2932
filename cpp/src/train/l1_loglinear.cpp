#include "conjunct/train/l1_loglinear.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace conjunct {

L1LogLinear::L1LogLinear(const L1Options& options)
    : opt_(options), K_(options.n_outputs), w_(options.n_outputs, 0.0), q_(options.n_outputs, 0.0),
      bias_(options.n_outputs, 0.0), score_(options.n_outputs), grad_(options.n_outputs) {
  if (K_ == 0 || K_ == 2) throw std::invalid_argument("n_outputs must be 1 (binary) or the number of classes (>= 3)");
  if (opt_.degree < 1) throw std::invalid_argument("degree must be >= 1");
  if (!(opt_.C >= 0) || !std::isfinite(opt_.C)) throw std::invalid_argument("C must be non-negative and finite");
  if (!(opt_.eta0 > 0) || !std::isfinite(opt_.eta0)) throw std::invalid_argument("eta0 must be positive");
  if (!(opt_.decay > 0) || !(opt_.decay <= 1)) throw std::invalid_argument("decay must be in (0, 1]");
}

uint32_t L1LogLinear::node_for(uint32_t parent, int32_t f) {
  bool created = false;
  const uint32_t node = trie_.child_or_add(parent, f, created);
  if (created) {
    w_.resize(w_.size() + K_, 0.0);
    q_.resize(q_.size() + K_, 0.0);
  }
  return node;
}

void L1LogLinear::collect_or_add(const int32_t* x, size_t limit_pos, uint32_t node, int depth) {
  for (size_t a = limit_pos; a-- > 0;) {
    const uint32_t child = node_for(node, x[a]);
    nodes_.push_back(child);
    if (depth + 1 < opt_.degree) collect_or_add(x, a, child, depth + 1);
  }
}

void L1LogLinear::collect(const int32_t* x, size_t limit_pos, uint32_t node, int depth, double* out) const {
  for (size_t a = limit_pos; a-- > 0;) {
    const uint32_t child = trie_.child(node, x[a]);
    if (child == HashTrie::kNone) continue;  // no stored conjunction extends this one
    const double* w = w_.data() + static_cast<size_t>(child) * K_;
    for (size_t o = 0; o < K_; ++o) out[o] += w[o];
    if (depth + 1 < opt_.degree) collect(x, a, child, depth + 1, out);
  }
}

void L1LogLinear::margins(Span<int32_t> x, double* out) const {
  for (size_t o = 0; o < K_; ++o) out[o] = bias_[o];
  for (size_t j = 0; j < x.size; ++j) {
    const uint32_t node = trie_.child(HashTrie::kRoot, x[j]);
    if (node == HashTrie::kNone) continue;
    const double* w = w_.data() + static_cast<size_t>(node) * K_;
    for (size_t o = 0; o < K_; ++o) out[o] += w[o];
    if (opt_.degree > 1) collect(x.data, j, node, 1, out);
  }
}

void L1LogLinear::run(const CsrView& X, Span<int32_t> labels, Span<int64_t> order, int64_t n_examples,
                      Span<double> weights) {
  if (n_examples <= 0) throw std::invalid_argument("n_examples must be positive");
  const double N = static_cast<double>(n_examples);
  const size_t K = K_;
  for (int64_t idx : order) {
    const Span<int32_t> x = X.row(static_cast<size_t>(idx));
    const int32_t y = labels[static_cast<size_t>(idx)];
    const double eta = opt_.eta0 * std::pow(opt_.decay, static_cast<double>(samples_) / N);
    ++samples_;
    u_ += eta * opt_.C / N;
    // The conjunctions of x, rarest feature first (registered on first sight).
    nodes_.clear();
    for (size_t j = 0; j < x.size; ++j) {
      const uint32_t node = node_for(HashTrie::kRoot, x[j]);
      nodes_.push_back(node);
      if (opt_.degree > 1) collect_or_add(x.data, j, node, 1);
    }
    for (size_t o = 0; o < K; ++o) score_[o] = bias_[o];
    for (uint32_t n : nodes_) {
      const double* w = w_.data() + static_cast<size_t>(n) * K;
      for (size_t o = 0; o < K; ++o) score_[o] += w[o];
    }
    // Gradient of log p(y | x) with respect to each output's score.
    if (K == 1) {
      const double m = score_[0];
      const double p = m >= 0 ? 1.0 / (1.0 + std::exp(-m)) : std::exp(m) / (1.0 + std::exp(m));
      grad_[0] = (y > 0 ? 1.0 : 0.0) - p;
    } else {
      const double top = *std::max_element(score_.begin(), score_.end());
      double z = 0.0;
      for (size_t o = 0; o < K; ++o) z += (grad_[o] = std::exp(score_[o] - top));
      for (size_t o = 0; o < K; ++o) grad_[o] = (static_cast<int32_t>(o) == y ? 1.0 : 0.0) - grad_[o] / z;
    }
    if (!weights.empty())
      for (size_t o = 0; o < K; ++o) grad_[o] *= weights[static_cast<size_t>(idx)];
    for (size_t o = 0; o < K; ++o) bias_[o] += eta * grad_[o];
    for (uint32_t n : nodes_) {
      double* w = w_.data() + static_cast<size_t>(n) * K;
      double* q = q_.data() + static_cast<size_t>(n) * K;
      for (size_t o = 0; o < K; ++o) {
        double v = w[o] + eta * grad_[o];
        const double z = v;
        if (v > 0) v = std::max(0.0, v - (u_ + q[o]));
        else if (v < 0) v = std::min(0.0, v + (u_ - q[o]));
        q[o] += v - z;
        w[o] = v;
      }
    }
  }
}

void L1LogLinear::set(Span<int32_t> t, const double* w, const double* q) {
  if (t.empty()) throw std::invalid_argument("a conjunction needs at least one feature");
  uint32_t node = HashTrie::kRoot;
  for (size_t i = t.size; i-- > 0;) {  // rarest (largest id) first
    if (i + 1 < t.size && t[i] >= t[i + 1]) throw std::invalid_argument("a conjunction's features must be strictly ascending");
    node = node_for(node, t[i]);
  }
  std::copy_n(w, K_, w_.data() + static_cast<size_t>(node) * K_);
  if (q) std::copy_n(q, K_, q_.data() + static_cast<size_t>(node) * K_);
}

void L1LogLinear::export_weights(bool all, std::vector<int64_t>& indptr, std::vector<int32_t>& indices,
                                 std::vector<double>& weights, std::vector<double>* penalties) const {
  std::vector<uint32_t> parent;
  std::vector<int32_t> label;
  trie_.edges(parent, label);
  indptr.assign(1, 0);
  indices.clear();
  weights.clear();
  if (penalties) penalties->clear();
  for (size_t id = 1; id < trie_.n_nodes(); ++id) {
    const double* w = w_.data() + id * K_;
    if (!all && std::all_of(w, w + K_, [](double v) { return v == 0.0; })) continue;
    for (size_t v = id; v != HashTrie::kRoot; v = parent[v]) indices.push_back(label[v]);
    indptr.push_back(static_cast<int64_t>(indices.size()));
    weights.insert(weights.end(), w, w + K_);
    if (penalties) penalties->insert(penalties->end(), q_.data() + id * K_, q_.data() + (id + 1) * K_);
  }
}

}  // namespace conjunct
