#include "conjunct/train/pa.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "conjunct/train/kernel_slicing.h"
#include "conjunct/train/pa_kernel.h"
#include "conjunct/train/weight_trie.h"

namespace conjunct {

Learner parse_learner(const std::string& name) {
  if (name == "perceptron") return Learner::Perceptron;
  if (name == "pa") return Learner::PA;
  if (name == "pa1") return Learner::PA1;
  if (name == "pa2") return Learner::PA2;
  throw std::invalid_argument("unknown learner '" + name + "'; expected perceptron, pa, pa1 or pa2");
}

Step parse_step(const std::string& name) {
  if (name == "kernel") return Step::Kernel;
  if (name == "opal") return Step::Opal;
  throw std::invalid_argument("unknown step rule '" + name + "'; expected kernel or opal");
}

MarginMode parse_margin_mode(const std::string& name) {
  if (name == "kernel") return MarginMode::Kernel;
  if (name == "expanded") return MarginMode::Expanded;
  if (name == "split") return MarginMode::Split;
  if (name == "slicing") return MarginMode::Slicing;
  throw std::invalid_argument("unknown margin mode '" + name + "'; expected kernel, expanded, split or slicing");
}

PaTrainer::PaTrainer(const PaOptions& options)
    : opt_(options), S_(options.n_outputs), bias_(options.n_outputs, 0.0), bias_beta_(options.n_outputs, 0.0),
      margin_(options.n_outputs, 0.0) {
  if (opt_.n_outputs == 0 || opt_.n_outputs == 2)
    throw std::invalid_argument("n_outputs must be 1 (binary) or the number of classes (>= 3)");
  if (opt_.kernel.degree < 1) throw std::invalid_argument("degree must be >= 1");
  if (!(opt_.kernel.gamma > 0) || !std::isfinite(opt_.kernel.gamma) || !std::isfinite(opt_.kernel.coef0))
    throw std::invalid_argument("gamma must be positive and finite, coef0 finite");
  if (!(opt_.C > 0) || !std::isfinite(opt_.C)) throw std::invalid_argument("C must be positive and finite");
  if (opt_.mode == MarginMode::Kernel) {
    engine_ = std::make_unique<PaKernelMargin>(opt_.kernel, S_);
    return;
  }
  SlicingOptions so;
  const int32_t N = opt_.common_features == kAutoCommon
                        ? WeightTrie::dense_capacity(opt_.kernel.degree, opt_.n_outputs)
                    : opt_.common_features < 0 || opt_.common_features >= INT32_MAX
                        ? INT32_MAX
                        : static_cast<int32_t>(opt_.common_features);
  so.reuse = so.terminate = so.choose = false;
  switch (opt_.mode) {
    case MarginMode::Expanded:
      so.limit = INT32_MAX;
      break;
    case MarginMode::Split:
      so.limit = N;
      so.weight_budget = opt_.weight_budget;
      break;
    default:
      // Eq. 7's choice needs every feature's postings; without reuse or
      // termination, slicing is kernel splitting and keeps only the rare ones.
      // Adaptive termination without reuse keeps splitting's postings too:
      // when it runs without termination, it is splitting.
      so.limit = N;
      so.reuse = opt_.reuse;
      so.terminate = opt_.terminate;
      so.adaptive = opt_.terminate && opt_.adaptive_terminate;
      so.choose = opt_.reuse || (opt_.terminate && !so.adaptive);
      so.weight_budget = opt_.weight_budget;
  }
  engine_ = std::make_unique<KernelSlicing>(opt_.kernel, S_, so);
}

PaTrainer::~PaTrainer() = default;

void PaTrainer::ensure_features(size_t n_features) {
  if (n_features > static_cast<size_t>(INT32_MAX)) throw std::invalid_argument("too many features");
  if (n_features <= n_features_) return;
  n_features_ = n_features;
  engine_->ensure_features(n_features);
}

std::vector<double> PaTrainer::bias(bool average) const {
  std::vector<double> b(bias_);
  if (average && rounds_ > 0)
    for (size_t o = 0; o < b.size(); ++o) b[o] -= bias_beta_[o] / static_cast<double>(rounds_);
  return b;
}

void PaTrainer::apply(Span<int32_t> x, int32_t pos, int32_t neg, double tau, int64_t round) {
  bool new_sv = false;
  const size_t e = S_.update(x, pos, neg, tau, round, new_sv);
  if (opt_.fit_intercept) {
    const double w = static_cast<double>(round - 1);
    bias_[pos] += tau, bias_beta_[pos] += w * tau;
    if (neg >= 0) bias_[neg] -= tau, bias_beta_[neg] -= w * tau;
  }
  engine_->on_update(S_, e, new_sv);
}

void PaTrainer::replay(Span<int32_t> sv, int32_t pos, int32_t neg, double tau, int64_t round) {
  for (size_t i = 0; i < sv.size; ++i)
    if (sv[i] < 0 || static_cast<size_t>(sv[i]) >= n_features_ || (i && sv[i] <= sv[i - 1]))
      throw std::invalid_argument("a recorded support vector is not a strictly ascending set of known features");
  const int32_t K = static_cast<int32_t>(opt_.n_outputs);
  if (pos < 0 || pos >= K || neg >= K || neg == pos || (K == 1 && neg >= 0))
    throw std::invalid_argument("a recorded update names an unknown output");
  apply(sv, pos, neg, tau, round);
}

void PaTrainer::run(const CsrView& X, Span<int32_t> labels, Span<int64_t> order, Span<double> weights) {
  const size_t K = opt_.n_outputs;
  const bool binary = K == 1;
  const bool perceptron = opt_.learner == Learner::Perceptron;
  MarginGoal goal;
  goal.enabled = true;
  goal.threshold = perceptron ? 0.0 : 1.0 - kLossTolerance;
  goal.bias = bias_.data();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  engine_->expect_rows(X.rows(), X.rows() ? static_cast<size_t>(X.indptr[X.rows()] - X.indptr[0]) : 0);
  for (int64_t idx : order) {
    const Span<int32_t> x = X.row(static_cast<size_t>(idx));
    const int32_t y = labels[static_cast<size_t>(idx)];
    const double weight = weights.empty() ? 1.0 : weights[static_cast<size_t>(idx)];
    const int64_t round = ++rounds_;
    goal.label = y;
    goal.row = idx;
    double bound = nan;
    const bool full = engine_->margins(x, goal, margin_.data(), &bound);
    bool update = false;
    double tau = 0.0;
    int32_t rival = -1;
    if (full) {
      for (size_t o = 0; o < K; ++o) margin_[o] += bias_[o];
      // value: y m(x) (binary) or m_y(x) - m_r(x) (multi-class)
      double value;
      if (binary) {
        value = y * margin_[0];
      } else {
        double best = -std::numeric_limits<double>::infinity();
        for (size_t r = 0; r < K; ++r)
          if (static_cast<int32_t>(r) != y && margin_[r] > best) best = margin_[r], rival = static_cast<int32_t>(r);
        value = margin_[static_cast<size_t>(y)] - best;
      }
      double loss = 0.0;
      if (perceptron) {
        update = value <= 0.0;
      } else {
        loss = 1.0 - value;
        update = loss > kLossTolerance;
      }
      if (update && weight > 0.0) {
        const bool opal = opt_.step == Step::Opal;
        const int64_t n = static_cast<int64_t>(x.size);
        double q = (opal ? static_cast<double>(n) : opt_.kernel.norm(n)) + (opt_.fit_intercept ? 1.0 : 0.0);
        if (!binary) q *= 2.0;
        switch (opt_.learner) {
          case Learner::Perceptron: tau = weight; break;
          case Learner::PA: tau = weight * (loss / q); break;
          case Learner::PA1: tau = std::min(weight * opt_.C, loss / q); break;
          case Learner::PA2: tau = loss / (q + 0.5 / (weight * opt_.C)); break;
        }
        // The kernel rule's q = 0 (no features, coef0 = 0, no intercept): an
        // update could not change any margin, so there is none. opal's q = 0
        // (no features) still moves the kernel's constant term when coef0 > 0.
        const bool moves = q > 0.0 || (opal && opt_.kernel.value(0) > 0.0);
        update = moves && std::isfinite(tau) && tau > 0.0;
        if (update) {
          if (binary) apply(x, 0, -1, y > 0 ? tau : -tau, round);
          else apply(x, y, rival, tau, round);
        }
      } else {
        update = false;
      }
    }
    if (opt_.trace) {
      trace_.example.push_back(idx);
      for (size_t o = 0; o < K; ++o) trace_.margin.push_back(full ? margin_[o] : nan);
      trace_.bound.push_back(full ? nan : bound);
      trace_.updated.push_back(update ? 1 : 0);
      trace_.tau.push_back(update ? tau : 0.0);
      trace_.rival.push_back(update ? rival : -1);
    }
  }
}

MarginStats PaTrainer::margin_stats() const {
  MarginStats s;
  engine_->stats(s);
  return s;
}

size_t PaTrainer::memory_bytes() const {
  const MarginStats s = margin_stats();
  return S_.memory_bytes() + static_cast<size_t>(s.postings_bytes + s.weight_bytes + s.partial_bytes + s.bounds_bytes);
}

}  // namespace conjunct
