// "PA-I KERNEL": margins by PKI over the growing support set (an inverted
// index from features to support vectors; Yoshinaga & Kitsuregawa 2010 §2.2.1). O(B|x| + |S|)
// per margin, so training is quadratic in the number of examples.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/kernel.h"
#include "conjunct/train/margin.h"

namespace conjunct {

class PaKernelMargin final : public MarginEngine {
 public:
  PaKernelMargin(const PolyKernel& kernel, const SupportSet& S);
  void ensure_features(size_t n_features) override;
  bool margins(Span<int32_t> x, const MarginGoal& goal, double* out, double* bound) override;
  void on_update(const SupportSet& S, size_t e, bool new_sv) override;
  void stats(MarginStats& s) const override;

 private:
  PolyKernel kernel_;
  const SupportSet& S_;
  std::vector<std::vector<int32_t>> postings_;  // feature -> support vectors
  std::vector<double> delta_;                    // k(m) - k(0), m = 0..longest support vector
  std::vector<int32_t> count_, touched_;
  MarginStats counters_;
};

}  // namespace conjunct
