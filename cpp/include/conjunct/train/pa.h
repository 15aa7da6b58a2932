// Online kernel learners with the polynomial kernel: the perceptron and the
// passive-aggressive family PA, PA-I, PA-II (Crammer et al. 2006; Yoshinaga & Kitsuregawa 2010,
// Algorithm 1), binary and multi-class, with the averaged model (Daumé's trick)
// and any margin mode (kernel / expanded / split / slicing).
//
// Binary (one output, labels +1 / -1): loss l = 1 - y m(x); update when
// l > kLossTolerance (perceptron: when y m(x) <= 0) by alpha_x += tau y.
// Multi-class (K outputs, one support set whose vectors carry an alpha row):
// r = the highest-scoring wrong class, l = 1 - (m_y(x) - m_r(x)); the update
// adds tau to alpha_x[y] and subtracts it from alpha_x[r]; the squared norm of
// that update direction is 2 k(x, x). Step sizes with q = the squared norm:
//   perceptron 1,  PA l / q,  PA-I min(C, l / q),  PA-II l / (q + 1 / (2C)).
// k(x, x) = (gamma |x| + coef0)^d. With fit_intercept, a bias per output is
// learnt as the weight of a constant coordinate 1 (q grows by 1, or 2 for
// multi-class); without it the kernel's constant term c_d(0) sum alpha plays
// that role (opal's behaviour).
// Step rule: q as above (Step::Kernel), or as opal computes it (Step::Opal):
// q = |x|, the number of active features whatever the kernel (plus 1 with an
// intercept, times 2 for multi-class, as above); PA-I then gives opal's
// tau = min(C, l / |x|), and an empty x (q = 0) a PA-I step of C.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conjunct/features.h"
#include "conjunct/kernel.h"
#include "conjunct/train/margin.h"
#include "conjunct/train/support_set.h"

namespace conjunct {

enum class Learner { Perceptron, PA, PA1, PA2 };
enum class MarginMode { Kernel, Expanded, Split, Slicing };
enum class Step { Kernel, Opal };

Learner parse_learner(const std::string& name);
Step parse_step(const std::string& name);
MarginMode parse_margin_mode(const std::string& name);

// PA's update leaves the margin of the updated example exactly on 1, so an
// example met again with nothing changed in between would be decided by
// rounding noise (differently in each margin mode). Losses up to this much
// count as zero.
constexpr double kLossTolerance = 1e-9;

// common_features: as many features as the weight trie's dense tables hold
// (WeightTrie::dense_capacity for the degree and number of outputs).
constexpr int64_t kAutoCommon = -2;

struct PaOptions {
  PolyKernel kernel;
  size_t n_outputs = 1;        // 1: binary; else the number of classes
  Learner learner = Learner::PA1;
  Step step = Step::Kernel;
  double C = 1.0;
  MarginMode mode = MarginMode::Slicing;
  int64_t common_features = -1;  // N (internal ids below are common); -1: all; kAutoCommon: as many as dense tables hold
  bool reuse = true;
  bool terminate = true;
  bool adaptive_terminate = false;  // terminate only where timed faster (KernelSlicing)
  bool fit_intercept = false;
  int64_t weight_budget = 0;   // bytes; 0: none
  bool trace = false;
};

// One round as the learner saw it (for tests that compare modes step by step).
struct TraceLog {
  std::vector<int64_t> example;   // row of the training data
  std::vector<double> margin;     // K per round, NaN when the computation stopped early
  std::vector<double> bound;      // proven lower bound of the decision value when stopped, else NaN
  std::vector<int8_t> updated;
  std::vector<double> tau;
  std::vector<int32_t> rival;     // multi-class: the wrong class updated against (-1 otherwise)
  void clear() { *this = TraceLog(); }
};

class PaTrainer {
 public:
  explicit PaTrainer(const PaOptions& options);
  ~PaTrainer();
  PaTrainer(const PaTrainer&) = delete;
  PaTrainer& operator=(const PaTrainer&) = delete;

  const PaOptions& options() const { return opt_; }
  size_t n_features() const { return n_features_; }
  void ensure_features(size_t n_features);

  // One pass over rows `order` of X (internal ids, strictly ascending rows,
  // all < n_features). labels: +1 / -1 (binary) or a class index per row.
  // weights: one per row of X (empty: all 1); a weight scales C (PA-I, PA-II) or
  // the step (perceptron, PA), the same in every margin mode. Weight 0: no update.
  void run(const CsrView& X, Span<int32_t> labels, Span<int64_t> order, Span<double> weights = {});

  // Re-applies a recorded update (restoring a trainer from its state).
  void replay(Span<int32_t> sv, int32_t pos, int32_t neg, double tau, int64_t round);
  void set_rounds(int64_t rounds) { rounds_ = rounds; }

  int64_t rounds() const { return rounds_; }
  int64_t updates() const { return static_cast<int64_t>(S_.n_events()); }
  const SupportSet& support() const { return S_; }
  std::vector<double> bias(bool average) const;
  std::vector<double> alpha(bool average) const { return average ? S_.averaged_alpha(rounds_) : S_.raw_alpha(); }
  MarginStats margin_stats() const;
  size_t memory_bytes() const;
  TraceLog& trace() { return trace_; }
  const MarginEngine& engine() const { return *engine_; }

 private:
  void apply(Span<int32_t> x, int32_t pos, int32_t neg, double tau, int64_t round);

  PaOptions opt_;
  size_t n_features_ = 0;
  SupportSet S_;
  std::unique_ptr<MarginEngine> engine_;
  std::vector<double> bias_, bias_beta_;
  int64_t rounds_ = 0;
  std::vector<double> margin_;
  TraceLog trace_;
};

}  // namespace conjunct
