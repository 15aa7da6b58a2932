#include "conjunct/decode/group_bounds.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

void GroupBounds::build(size_t n_labels, const std::vector<size_t>& segment_begin, size_t group_size) {
  if (group_size == 0) throw std::invalid_argument("label groups need at least one label");
  begin_.assign(1, 0);
  segment_group_.clear();
  if (n_labels > 0) begin_.push_back(1);  // label 0 alone: always active
  for (size_t j = 0; j + 1 < segment_begin.size(); ++j) {
    segment_group_.push_back(begin_.size() - 1);
    for (size_t a = segment_begin[j]; a < segment_begin[j + 1]; a += group_size)
      begin_.push_back(std::min(segment_begin[j + 1], a + group_size));
  }
  segment_group_.push_back(begin_.size() - 1);
  seg_of_.assign(begin_.size() - 1, -1);
  for (size_t j = 0; j + 1 < segment_group_.size(); ++j)
    for (size_t g = segment_group_[j]; g < segment_group_[j + 1]; ++g) seg_of_[g] = static_cast<int32_t>(j);
  of_.resize(n_labels);
  for (size_t g = 0; g + 1 < begin_.size(); ++g)
    for (size_t y = begin_[g]; y < begin_[g + 1]; ++y) of_[y] = static_cast<int32_t>(g);
}

void GroupBounds::maxima(const double* v, double* out) const {
  for (size_t g = 0; g < n_groups(); ++g) out[g] = max_of(v + begin_[g], begin_[g + 1] - begin_[g]);
}

}  // namespace conjunct
