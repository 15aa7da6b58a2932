// The model's features as integer keys: a template id and its parts' codes
// pack into one non-negative 64-bit key (template << 48 | codes, each part
// in as many bits as its attribute's vocabulary needs), and a hash table
// maps a key to the feature id. The model file stores, per feature id, its
// template and codes (validated before this is built); loading packs them
// and fills the table: integer work only, nothing per string.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/features/template_spec.h"
#include "conjunct/util/key_map.h"

namespace conjunct {

class FeatureKeys {
 public:
  static constexpr int kCodeBits = 48;

  FeatureKeys() = default;
  // vocab_sizes: one per attribute of spec. template_of[n]: each feature's
  // template; codes[n * FeatureSpec::kMaxParts]: its parts' codes, -1 past
  // the template's parts. Throws std::invalid_argument naming the feature on
  // a template or code out of range, a flag code other than 0, a key given
  // twice, and naming the template when its parts need more than kCodeBits bits.
  FeatureKeys(const FeatureSpec& spec, const std::vector<size_t>& vocab_sizes, const int32_t* template_of,
              const int32_t* codes, size_t n);

  // The key of template t with its parts' codes (each in range, >= 0).
  int64_t key(size_t t, const int32_t* codes) const {
    int64_t k = static_cast<int64_t>(t) << kCodeBits;
    const Layout& l = layout_[t];
    for (size_t p = 0; p < l.n_parts; ++p) k |= static_cast<int64_t>(codes[p]) << l.shift[p];
    return k;
  }
  // The template and parts' codes of a key made by key() (-1 past the template's parts).
  size_t decode(int64_t key, int32_t* codes) const {
    const size_t t = static_cast<size_t>(key >> kCodeBits);
    const Layout& l = layout_[t];
    for (size_t p = 0; p < FeatureSpec::kMaxParts; ++p)
      codes[p] = p < l.n_parts ? static_cast<int32_t>((key >> l.shift[p]) & ((int64_t{1} << l.bits[p]) - 1)) : -1;
    return t;
  }
  // The feature id of key, or -1 when the model has no such feature.
  int32_t find(int64_t key) const {
    const int32_t v = map_.find(key);
    return v == KeyMap::kAbsent ? -1 : v;
  }
  // Feature ids of n keys (-1: unknown), their slots prefetched in blocks so misses overlap.
  void find_many(const int64_t* keys, size_t n, int32_t* out) const;
  size_t size() const { return n_; }
  size_t bytes() const { return map_.bytes(); }

 private:
  struct Layout {
    size_t n_parts = 0;
    int shift[FeatureSpec::kMaxParts] = {0, 0, 0};
    int bits[FeatureSpec::kMaxParts] = {0, 0, 0};
  };
  std::vector<Layout> layout_;
  KeyMap map_;
  size_t n_ = 0;
};

}  // namespace conjunct
