#include "conjunct/train/pa_kernel.h"

namespace conjunct {

PaKernelMargin::PaKernelMargin(const PolyKernel& kernel, const SupportSet& S) : kernel_(kernel), S_(S) {
  delta_.assign(1, 0.0);
}

void PaKernelMargin::ensure_features(size_t n_features) {
  if (postings_.size() < n_features) postings_.resize(n_features);
}

bool PaKernelMargin::margins(Span<int32_t> x, const MarginGoal&, double* out, double*) {
  const size_t K = S_.n_outputs();
  ++counters_.margins;
  if (count_.size() < S_.n_sv()) count_.resize(S_.n_sv(), 0);
  touched_.clear();
  for (int32_t f : x)
    for (int32_t s : postings_[static_cast<size_t>(f)]) {
      if (count_[s]++ == 0) touched_.push_back(s);
    }
  counters_.postings += static_cast<int64_t>(touched_.size());
  const double k0 = kernel_.value(0);
  const double* sum = S_.alpha_sum();
  for (size_t o = 0; o < K; ++o) out[o] = k0 * sum[o];
  if (K == 1) {
    double m = 0.0;
    for (int32_t s : touched_) {
      m += delta_[count_[s]] * S_.alpha(s)[0];
      count_[s] = 0;
    }
    out[0] += m;
  } else {
    for (int32_t s : touched_) {
      const double k = delta_[count_[s]];
      const double* a = S_.alpha(s);
      for (size_t o = 0; o < K; ++o) out[o] += k * a[o];
      count_[s] = 0;
    }
  }
  return true;
}

void PaKernelMargin::on_update(const SupportSet& S, size_t e, bool new_sv) {
  if (!new_sv) return;  // the alpha row changed in place; the index is unchanged
  const int32_t sv = S.event(e).sv;
  const Span<int32_t> s = S.sv(static_cast<size_t>(sv));
  for (int32_t f : s) postings_[static_cast<size_t>(f)].push_back(sv);
  const double k0 = kernel_.value(0);
  while (delta_.size() <= s.size) delta_.push_back(kernel_.value(static_cast<int64_t>(delta_.size())) - k0);
  counters_.postings_bytes += static_cast<int64_t>(s.size * sizeof(int32_t));
}

void PaKernelMargin::stats(MarginStats& s) const {
  s = counters_;
  int64_t bytes = static_cast<int64_t>(postings_.capacity() * sizeof(std::vector<int32_t>) +
                                       count_.capacity() * sizeof(int32_t));
  for (const auto& p : postings_) bytes += static_cast<int64_t>(p.capacity() * sizeof(int32_t));
  s.postings_bytes = bytes;
}

}  // namespace conjunct
