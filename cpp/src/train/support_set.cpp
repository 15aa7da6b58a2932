#include "conjunct/train/support_set.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace conjunct {

uint64_t hash_features(Span<int32_t> x) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ x.size;
  for (int32_t f : x) {
    h ^= static_cast<uint32_t>(f);
    h *= 0x100000001B3ULL;
    h ^= h >> 29;
  }
  return h;
}

SupportSet::SupportSet(size_t n_outputs)
    : K_(n_outputs), alpha_sum_(n_outputs, 0.0), alpha_abs_sum_(n_outputs, 0.0) {
  if (n_outputs == 0) throw std::invalid_argument("a support set needs at least one output");
}

int32_t SupportSet::find(Span<int32_t> x, uint64_t h) const {
  auto range = by_hash_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    const Span<int32_t> s = sv(static_cast<size_t>(it->second));
    if (s.size == x.size && std::equal(s.begin(), s.end(), x.begin())) return it->second;
  }
  return -1;
}

size_t SupportSet::update(Span<int32_t> x, int32_t pos, int32_t neg, double tau, int64_t round, bool& new_sv) {
  const uint64_t h = hash_features(x);
  int32_t i = find(x, h);
  new_sv = i < 0;
  if (new_sv) {
    if (n_sv() >= static_cast<size_t>(INT32_MAX)) throw std::length_error("too many support vectors");
    i = static_cast<int32_t>(n_sv());
    feat_.insert(feat_.end(), x.begin(), x.end());
    ptr_.push_back(static_cast<int64_t>(feat_.size()));
    alpha_.resize(alpha_.size() + K_, 0.0);
    beta_.resize(beta_.size() + K_, 0.0);
    by_hash_.emplace(h, i);
  }
  const size_t base = static_cast<size_t>(i) * K_;
  const double weight = static_cast<double>(round - 1);
  alpha_[base + pos] += tau;
  beta_[base + pos] += weight * tau;
  alpha_sum_[pos] += tau;
  alpha_abs_sum_[pos] += std::fabs(tau);
  if (neg >= 0) {
    alpha_[base + neg] -= tau;
    beta_[base + neg] -= weight * tau;
    alpha_sum_[neg] -= tau;
    alpha_abs_sum_[neg] += std::fabs(tau);
  }
  events_.push_back(Update{i, pos, neg, tau, round});
  return events_.size() - 1;
}

std::vector<double> SupportSet::averaged_alpha(int64_t rounds) const {
  std::vector<double> out(alpha_);
  if (rounds <= 0) return out;
  const double T = static_cast<double>(rounds);
  for (size_t i = 0; i < out.size(); ++i) out[i] -= beta_[i] / T;
  return out;
}

size_t SupportSet::memory_bytes() const {
  return ptr_.capacity() * sizeof(int64_t) + feat_.capacity() * sizeof(int32_t) +
         (alpha_.capacity() + beta_.capacity()) * sizeof(double) + events_.capacity() * sizeof(Update) +
         by_hash_.size() * (sizeof(uint64_t) + sizeof(int32_t) + 2 * sizeof(void*)) +
         by_hash_.bucket_count() * sizeof(void*);
}

}  // namespace conjunct
