// The growing support set of an online kernel learner: support vectors (sets
// of internal feature ids, ascending), their alpha rows, the accumulators of
// the averaged model, and the log of updates ("events").
//
// An update adds tau to one output of one vector and (multi-class) subtracts
// it from another. Identical vectors are one support vector: an update of a
// vector already in the set is a new event on the old support vector. Kernel
// slicing reuses partial margins computed before some event count E and adds
// only the events since E (Yoshinaga & Kitsuregawa 2010, Eq. 6), so it indexes events, while the
// kernel learner (PKI) indexes support vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "conjunct/features.h"

namespace conjunct {

struct Update {
  int32_t sv = 0;      // support vector
  int32_t pos = 0;     // output that gains tau (binary: output 0, tau signed)
  int32_t neg = -1;    // output that loses tau (multi-class rival), or -1
  double tau = 0.0;
  int64_t round = 0;   // 1-based round of the update (for averaging)
};

class SupportSet {
 public:
  explicit SupportSet(size_t n_outputs);

  size_t n_outputs() const { return K_; }
  size_t n_sv() const { return ptr_.size() - 1; }
  size_t n_events() const { return events_.size(); }
  size_t nnz() const { return feat_.size(); }

  Span<int32_t> sv(size_t i) const {
    return Span<int32_t>(feat_.data() + ptr_[i], static_cast<size_t>(ptr_[i + 1] - ptr_[i]));
  }
  const int64_t* ptr() const { return ptr_.data(); }
  const int32_t* features() const { return feat_.data(); }
  const double* alpha(size_t i) const { return alpha_.data() + i * K_; }
  const double* alpha_sum() const { return alpha_sum_.data(); }          // sum_i alpha_i, per output
  const double* alpha_abs_sum() const { return alpha_abs_sum_.data(); }  // sum of |tau| added, per output
  const Update& event(size_t e) const { return events_[e]; }

  // Records an update of the support vector equal to x (added if new);
  // returns the event id and sets `new_sv`.
  size_t update(Span<int32_t> x, int32_t pos, int32_t neg, double tau, int64_t round, bool& new_sv);

  // Averaged alpha rows: alpha - beta / rounds, where beta sums (round - 1) * delta,
  // i.e. the mean of the alpha rows after each of `rounds` rounds.
  std::vector<double> averaged_alpha(int64_t rounds) const;
  std::vector<double> raw_alpha() const { return alpha_; }

  size_t memory_bytes() const;

 private:
  int32_t find(Span<int32_t> x, uint64_t h) const;

  size_t K_;
  std::vector<int64_t> ptr_{0};
  std::vector<int32_t> feat_;
  std::vector<double> alpha_, beta_;
  std::vector<double> alpha_sum_, alpha_abs_sum_;
  std::vector<Update> events_;
  std::unordered_multimap<uint64_t, int32_t> by_hash_;  // content hash -> support vector
};

uint64_t hash_features(Span<int32_t> x);

}  // namespace conjunct
