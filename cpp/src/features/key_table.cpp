#include "conjunct/features/key_table.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "conjunct/util/mix.h"

namespace conjunct {

namespace {
int bits_for(size_t n_values) {  // bits that hold codes 0 .. n_values - 1
  int b = 0;
  while (b < 63 && (size_t{1} << b) < n_values) ++b;
  return b;
}
}  // namespace

FeatureKeys::FeatureKeys(const FeatureSpec& spec, const std::vector<size_t>& vocab_sizes, const int32_t* template_of,
                         const int32_t* codes, size_t n)
    : n_(n) {
  if (vocab_sizes.size() != spec.n_attributes())
    throw std::invalid_argument("one vocabulary size per attribute of the feature spec is needed");
  if (n > static_cast<size_t>(INT32_MAX)) throw std::invalid_argument("too many features for a key table");
  layout_.resize(spec.n_templates());
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    Layout& l = layout_[t];
    l.n_parts = tp.parts.size();
    int shift = 0;
    for (size_t p = 0; p < l.n_parts; ++p) {
      l.shift[p] = shift;
      const int32_t a = tp.parts[p].attribute;
      l.bits[p] = a == SpecPart::kFlag ? 0 : bits_for(vocab_sizes[a]);
      shift += l.bits[p];
    }
    if (shift > kCodeBits)
      throw std::invalid_argument("feature template '" + tp.name + "': its parts' vocabularies need " +
                                  std::to_string(shift) + " bits of key (at most " + std::to_string(kCodeBits) + ")");
  }
  constexpr size_t P = FeatureSpec::kMaxParts;
  for (size_t f = 0; f < n; ++f) {
    const int32_t t = template_of[f];
    auto fail = [&](const std::string& what) {
      throw std::invalid_argument("feature " + std::to_string(f) + ": " + what);
    };
    if (t < 0 || static_cast<size_t>(t) >= spec.n_templates()) fail("template " + std::to_string(t) + " out of range");
    const FeatureTemplate& tp = spec.templ(t);
    const int32_t* c = codes + f * P;
    for (size_t p = 0; p < P; ++p) {
      if (p >= tp.parts.size()) {
        if (c[p] != -1) fail("a code past its template's parts (must be -1)");
        continue;
      }
      const int32_t a = tp.parts[p].attribute;
      const size_t limit = a == SpecPart::kFlag ? 1 : vocab_sizes[a];
      if (c[p] < 0 || static_cast<size_t>(c[p]) >= limit)
        fail("code " + std::to_string(c[p]) + " out of range for template '" + tp.name + "'");
    }
    const size_t before = map_.size();
    map_.put(key(static_cast<size_t>(t), c), static_cast<int32_t>(f));
    if (map_.size() == before) fail("its template and codes are those of an earlier feature");
  }
}

void FeatureKeys::find_many(const int64_t* keys, size_t n, int32_t* out) const {
  constexpr size_t kBlock = 16;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t e = std::min(n, b + kBlock);
    for (size_t k = b; k < e; ++k) prefetch_read(map_.address(keys[k]));
    for (size_t k = b; k < e; ++k) out[k] = find(keys[k]);
  }
}

}  // namespace conjunct
