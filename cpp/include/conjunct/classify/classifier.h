// The interface every compiled classifier implements: K margins for a binary
// feature vector. Compiled classifiers are immutable; per-call scratch space
// is thread-local, so one instance serves many threads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/classify/decision.h"
#include "conjunct/features.h"

namespace conjunct {

class Classifier {
 public:
  Classifier(FeatureMap map, size_t n_outputs) : map_(map), n_outputs_(n_outputs) {}
  virtual ~Classifier() = default;
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  size_t n_outputs() const { return n_outputs_; }
  const FeatureMap& feature_map() const { return map_; }

  // x: internal feature ids, ascending (= frequent to rare), no duplicates.
  // Overwrites out[0 .. n_outputs).
  virtual void margins_internal(Span<int32_t> x, double* out) const = 0;

  // x: the caller's column ids in any order; unseen columns are dropped.
  void margins(Span<int32_t> columns, double* out) const;

  // The class index of x under `decision`. Classifiers that can bound what is
  // left of a margin override decide_internal to stop early (early_exit).
  int64_t predict(Span<int32_t> columns, const Decision& decision, bool early_exit) const;
  virtual int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const;
  void predict_batch(const CsrView& X, const Decision& decision, bool early_exit, int64_t* out, int n_threads) const;

  // best_allowed(margins of x, decision, allowed): the class among those with
  // allowed[c] != 0 (a parser's moves and labels), -1 when none is. Margins
  // are not computed when fewer than two classes are allowed; with
  // early_exit, classifiers that can bound what is left of a margin stop as
  // soon as the choice is settled (decide_allowed_internal).
  int64_t predict_allowed(Span<int32_t> columns, const Decision& decision, const uint8_t* allowed,
                          bool early_exit) const;
  virtual int64_t decide_allowed_internal(Span<int32_t> x, const Decision& decision, const uint8_t* allowed,
                                          bool early_exit) const;

  // Every row of X; out is rows x n_outputs, row-major. Rows are split across
  // n_threads threads (<= 1: the calling thread only).
  void margins_batch(const CsrView& X, double* out, int n_threads) const;

 private:
  FeatureMap map_;
  size_t n_outputs_;
};

}  // namespace conjunct
