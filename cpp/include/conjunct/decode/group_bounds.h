// Upper bounds of a token's label scores over groups of labels, from
// per-feature tables of maxima: for binary features,
//   max_{y in G} sum_{f in x} w_f(y)  <=  sum_{f in x} max_{y in G} w_f(y),
// so a token's bound for every group costs O(|x| G) instead of the O(|x| L)
// of its full row of scores. Staggered decoding needs exact scores only for
// the labels it activates and upper bounds for the labels its degenerate
// labels stand for (Lemma 1 holds for any upper bound), so it computes exact
// scores group by group, only where a bound is not low enough.
//
// Groups: label 0 alone, then every level segment [2^j, 2^(j+1)) of the
// staggered hierarchy cut into runs of at most `group_size` labels, so every
// segment and every inactive suffix is a union of whole groups. A label a
// feature does not weigh scores 0 for it, so a group the feature weighs only
// in part has a maximum of at least 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/decode/maxplus.h"
#include "conjunct/features.h"

namespace conjunct {

class GroupBounds {
 public:
  // A feature's weights in one group: the group, where its entries start
  // (index into the feature's entries, which are sorted by label) and their
  // maximum (with 0 if the group has labels the feature does not weigh).
  struct Part {
    int32_t group;
    int32_t first;
    double max;
  };

  GroupBounds() = default;
  // `segment_begin`: the K + 1 level boundaries 1 = a_0 < a_1 < ... < a_K = L.
  void build(size_t n_labels, const std::vector<size_t>& segment_begin, size_t group_size);

  size_t n_groups() const { return begin_.empty() ? 0 : begin_.size() - 1; }
  size_t group_begin(size_t g) const { return begin_[g]; }
  size_t group_end(size_t g) const { return begin_[g + 1]; }
  size_t group_of(size_t y) const { return static_cast<size_t>(of_[y]); }
  // Groups [segment_group(j), segment_group(j + 1)) make up level segment j;
  // group g > 0 lies in segment segment_of(g).
  size_t segment_group(size_t j) const { return segment_group_[j]; }
  size_t segment_of(size_t g) const { return static_cast<size_t>(seg_of_[g]); }

  // Maxima of an L-vector over every group, written to out (G values).
  void maxima(const double* v, double* out) const;
  // The parts of a sorted sparse row (label, value pairs given as two
  // accessors), appended to `parts`.
  template <class LabelAt, class ValueAt>
  void parts_of(size_t n, LabelAt label, ValueAt value, std::vector<Part>& parts) const {
    for (size_t j = 0; j < n;) {
      const size_t g = group_of(static_cast<size_t>(label(j)));
      double m = kNegInf;
      size_t k = j;
      for (; k < n && group_of(static_cast<size_t>(label(k))) == g; ++k) m = value(k) > m ? value(k) : m;
      if (k - j < group_end(g) - group_begin(g) && m < 0.0) m = 0.0;
      parts.push_back({static_cast<int32_t>(g), static_cast<int32_t>(j), m});
      j = k;
    }
  }

 private:
  std::vector<size_t> begin_, segment_group_;
  std::vector<int32_t> of_, seg_of_;
};

}  // namespace conjunct
