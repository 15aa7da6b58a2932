// The l1-regularised log-linear baseline of seeds 000/001 ("l1-LLM"):
// explicit conjunctions of up to d primitive features, trained by SGD with the
// cumulative l1 penalty of Tsuruoka, Tsujii & Ananiadou (2009).
//
// p(c | x) = softmax_c(b_c + sum_{t ⊆ x, 1 <= |t| <= d} w(t, c)) (binary: one
// output, p(+1 | x) = sigmoid(m(x))). Round k (0-based over all epochs) uses
// eta_k = eta0 * decay^(k / N) with N the number of training examples; u grows
// by eta_k C / N; the weights of every conjunction of the example move along
// the gradient of log p(y | x) and are then clipped towards zero by the
// penalty they have not received yet (u +- q). Conjunctions are registered
// on the fly in a trie keyed rare-to-frequent (the paper's implementation
// expanded every example before training). The bias is not penalised.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/features.h"
#include "conjunct/train/hash_trie.h"

namespace conjunct {

struct L1Options {
  int degree = 2;
  size_t n_outputs = 1;  // 1: binary (labels +1 / -1); else the number of classes
  double C = 1.0;
  double eta0 = 1.0;
  double decay = 0.85;
};

class L1LogLinear {
 public:
  explicit L1LogLinear(const L1Options& options);

  // One pass over rows `order` of X (internal ids, strictly ascending rows);
  // n_examples is N of the schedule and the penalty.
  // weights: one per row of X (empty: all 1), scaling that example's gradient.
  void run(const CsrView& X, Span<int32_t> labels, Span<int64_t> order, int64_t n_examples,
           Span<double> weights = {});

  // Margins (log-odds / class scores) of x into out[0..K).
  void margins(Span<int32_t> x, double* out) const;

  // Sets the weights (and penalty state) of conjunction t (ids ascending).
  void set(Span<int32_t> t, const double* w, const double* q);
  std::vector<double>& bias() { return bias_; }
  double& u() { return u_; }
  int64_t& samples() { return samples_; }

  // The conjunctions (ids ascending) with their weights and, if `penalties`,
  // their q; only those with a non-zero weight unless `all`.
  void export_weights(bool all, std::vector<int64_t>& indptr, std::vector<int32_t>& indices, std::vector<double>& weights,
                      std::vector<double>* penalties) const;

  size_t n_conjunctions() const { return trie_.n_nodes() - 1; }
  size_t memory_bytes() const {
    return trie_.memory_bytes() + (w_.capacity() + q_.capacity()) * sizeof(double);
  }

 private:
  uint32_t node_for(uint32_t parent, int32_t f);
  void collect_or_add(const int32_t* x, size_t limit_pos, uint32_t node, int depth);
  void collect(const int32_t* x, size_t limit_pos, uint32_t node, int depth, double* out) const;

  L1Options opt_;
  size_t K_;
  HashTrie trie_;
  std::vector<double> w_, q_;  // K per node
  std::vector<double> bias_;
  double u_ = 0.0;
  int64_t samples_ = 0;
  std::vector<uint32_t> nodes_;  // scratch: the conjunctions of one example
  std::vector<double> score_, grad_;
};

}  // namespace conjunct
