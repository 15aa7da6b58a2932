// A model's feature tables, as the file stores them: the template spec, one
// vocabulary per attribute and the key of every feature id. A task's
// extractor compiles the spec's positions to its own roles and turns units
// into keys; this turns keys into feature ids and ids back into names.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "conjunct/features/attribute_vocab.h"
#include "conjunct/features/key_table.h"
#include "conjunct/features/template_spec.h"

namespace conjunct {

class FeatureTables {
 public:
  // template_of[n], codes[n * FeatureSpec::kMaxParts]: see FeatureKeys.
  FeatureTables(FeatureSpec spec, std::vector<AttributeVocab> vocabs, const int32_t* template_of, const int32_t* codes,
                size_t n);

  const FeatureSpec& spec() const { return spec_; }
  const AttributeVocab& vocab(size_t attribute) const { return vocabs_[attribute]; }
  const FeatureKeys& keys() const { return keys_; }
  size_t size() const { return template_of_.size(); }
  // Feature id f's template and its parts' codes (FeatureSpec::kMaxParts, -1 past its parts).
  int32_t template_of(size_t f) const { return template_of_[f]; }
  const int32_t* codes_of(size_t f) const { return codes_.data() + f * FeatureSpec::kMaxParts; }
  // The code of a part's fallback value (-1: none, or not in the vocabulary).
  int32_t fallback(size_t t, size_t part) const { return fallback_[t * FeatureSpec::kMaxParts + part]; }
  // The readable name of feature id f.
  std::string name(size_t f) const {
    return spec_.name(template_of_[f], codes_.data() + f * FeatureSpec::kMaxParts, vocabs_);
  }
  size_t bytes() const;

 private:
  FeatureSpec spec_;
  std::vector<AttributeVocab> vocabs_;
  FeatureKeys keys_;
  std::vector<int32_t> template_of_, codes_, fallback_;
};

}  // namespace conjunct
