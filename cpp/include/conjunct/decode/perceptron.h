// Averaged structured perceptron (Collins 2002) for a linear-chain model,
// decoding each training sentence with any decoder (staggered decoding makes
// training faster, Kaji et al. 2010, Table 3). Averaging uses the usual
// lazy trick: alongside each weight w keep u = sum of c * delta over its
// updates (c counts the examples seen); the average is w - u / c.
#pragma once
#include <vector>

#include "conjunct/decode/chain.h"
#include "conjunct/decode/decoder.h"

namespace conjunct {

struct EpochStats {
  size_t sentences = 0, tokens = 0, token_errors = 0, sentence_errors = 0;
  long long iterations = 0;  // decoder search steps, summed
};

class PerceptronTrainer {
 public:
  // `transitions` (L x L), `start`, `end` (L): initial scores (usually zeros).
  PerceptronTrainer(size_t n_features, size_t n_labels);

  // One pass over the sentences in `order` (indices into sent_ptr), each
  // decoded with `method` and, if wrong, used for an update.
  EpochStats epoch(CsrView tokens, Span<int64_t> sent_ptr, Span<int32_t> gold, Span<int64_t> order, Method method,
                   size_t beam_width);

  // The weights (averaged or as they stand), emission weights in CSR by
  // feature with zeros dropped.
  void export_weights(bool averaged, std::vector<int64_t>& indptr, std::vector<int32_t>& labels,
                      std::vector<double>& values, std::vector<double>& trans, std::vector<double>& start,
                      std::vector<double>& end) const;

  // The whole training state, for resuming or mixing (iterative parameter
  // mixing): per feature its entries (label, w, u) in stored order, then the
  // transitions, start and end scores with their u, and c.
  struct State {
    std::vector<int64_t> indptr;
    std::vector<int32_t> labels;
    std::vector<double> w, u, trans, trans_u, start, start_u, end, end_u;
    double c = 1;
  };
  State state() const;
  // Replaces the state; the sizes must match this trainer's (checked by the caller).
  void set_state(const State& s);

  size_t n_features() const { return rows_.size(); }
  size_t n_labels() const { return L_; }

 private:
  struct Entry {
    int32_t label;
    double w, u;
  };
  void update_feature(int32_t f, int32_t label, double delta);
  void update_transition(int32_t prev, int32_t cur, double delta);
  void emissions(CsrView tokens, size_t t0, size_t t1, double* E) const;

  size_t L_;
  std::vector<std::vector<Entry>> rows_;
  Transitions T_;
  std::vector<double> trans_u_, start_, end_, start_u_, end_u_;
  double c_ = 1;  // examples seen + 1
};

}  // namespace conjunct
