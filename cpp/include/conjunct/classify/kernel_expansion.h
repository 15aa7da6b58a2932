// Kernel expansion (PKE, Kudo & Matsumoto 2003 §4.2): the weights
//   w(t) = c_d(|t|) * sum_{i : t ⊆ s_i} alpha_i,   1 <= |t| <= d,
// of every conjunction of a kernel model's support vectors, mined by
// PrefixSpan-style projection over frequency-ranked features: each
// conjunction is generated once, from its rarest member down, from the
// support vectors that contain its prefix. With sigma > 0 the positive and
// negative parts of each output are kept only when they reach thresholds
// scaled by the share of positive and negative support vectors (HKE), and
// min_support drops conjunctions found in fewer support vectors; pruning is
// anti-monotone, so the result is exactly the thresholded expansion.
// The constant term c_d(0) * sum_i alpha_i is not part of the store.
#pragma once
#include <cstdint>
#include <limits>

#include "conjunct/classify/alpha.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/kernel.h"
#include "conjunct/util/progress.h"

namespace conjunct {

struct ExpansionOptions {
  double sigma = 0.0;
  int64_t min_support = 1;
  int32_t n_dense = 0;
  // Only conjunctions of features < max_feature (the common features of kernel splitting).
  int32_t max_feature = std::numeric_limits<int32_t>::max();
  // Stop with LimitExceeded (util/errors.h) once the trie would hold more nodes than this.
  int64_t max_nodes = std::numeric_limits<int64_t>::max();
  // > 1: grow the dense table afterwards, within this factor of the store's
  // bytes (ConjunctionStoreBuilder::grow_dense), up to max_feature features.
  double dense_growth = 1.0;
  // Ticked once per conjunction visited (progress and Ctrl-C); null: current_progress().
  Progress* progress = nullptr;
};

ConjunctionStoreArrays expand_kernel(const PolyKernel& kernel, const CsrView& support_vectors, const AlphaRows& alpha,
                                     int32_t n_features, const ExpansionOptions& options);

}  // namespace conjunct
