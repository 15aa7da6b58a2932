#include "conjunct/features/feature_tables.h"

#include <stdexcept>

namespace conjunct {

namespace {
std::vector<size_t> sizes_of(const std::vector<AttributeVocab>& vocabs) {
  std::vector<size_t> s;
  for (const AttributeVocab& v : vocabs) s.push_back(v.size());
  return s;
}
}  // namespace

FeatureTables::FeatureTables(FeatureSpec spec, std::vector<AttributeVocab> vocabs, const int32_t* template_of,
                             const int32_t* codes, size_t n)
    : spec_(std::move(spec)), vocabs_(std::move(vocabs)) {
  if (vocabs_.size() != spec_.n_attributes())
    throw std::invalid_argument("one vocabulary per attribute of the feature spec is needed");
  keys_ = FeatureKeys(spec_, sizes_of(vocabs_), template_of, codes, n);
  template_of_.assign(template_of, template_of + n);
  codes_.assign(codes, codes + n * FeatureSpec::kMaxParts);
  fallback_.assign(spec_.n_templates() * FeatureSpec::kMaxParts, -1);
  for (size_t t = 0; t < spec_.n_templates(); ++t) {
    const FeatureTemplate& tp = spec_.templ(t);
    for (size_t p = 0; p < tp.parts.size(); ++p)
      if (tp.parts[p].has_fallback) fallback_[t * FeatureSpec::kMaxParts + p] = vocabs_[tp.parts[p].attribute].find(tp.parts[p].fallback);
  }
}

size_t FeatureTables::bytes() const {
  size_t b = keys_.bytes() + (template_of_.size() + codes_.size() + fallback_.size()) * sizeof(int32_t);
  for (const AttributeVocab& v : vocabs_) b += v.bytes();
  return b;
}

}  // namespace conjunct
