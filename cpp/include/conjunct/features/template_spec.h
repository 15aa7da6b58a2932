// A declarative feature template spec: attributes (each with a vocabulary of
// value strings), positions (where a task finds a unit: a token offset, a
// parser role, a bunsetsu's head word, ...) and templates, each a short list
// of (attribute, position) parts. A template's value is the tuple of its
// parts' codes; the readable name of a feature is generated here from the
// same spec ("m.h.w=本", "dist=2-5", a flag's bare name), for inspection and
// for the Python reference path that names features as strings.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/features/attribute_vocab.h"

namespace conjunct {

struct SpecPart {
  // An attribute index, or kFlag: the part holds when its position does
  // (a predicate such as "the modifier begins the sentence"); it has one
  // code (0) and adds no text to the name.
  int32_t attribute;
  int32_t position;
  // A value used when the position exists but has no unit there (the next
  // bunsetsu without a head word); empty without one.
  std::string fallback;
  bool has_fallback = false;
  static constexpr int32_t kFlag = -1;
};

struct FeatureTemplate {
  std::string name;
  std::vector<SpecPart> parts;
};

class FeatureSpec {
 public:
  static constexpr size_t kMaxParts = 3;
  static constexpr size_t kMaxTemplates = 1 << 14;

  FeatureSpec() = default;
  // Throws std::invalid_argument naming the template on an empty or repeated
  // name, a name holding '=' or '|', no parts or more than kMaxParts, or an
  // attribute or position out of range.
  FeatureSpec(std::vector<std::string> attributes, std::vector<std::string> positions,
              std::vector<FeatureTemplate> templates);

  size_t n_attributes() const { return attributes_.size(); }
  size_t n_positions() const { return positions_.size(); }
  size_t n_templates() const { return templates_.size(); }
  const std::string& attribute(size_t a) const { return attributes_[a]; }
  const std::string& position(size_t p) const { return positions_[p]; }
  const FeatureTemplate& templ(size_t t) const { return templates_[t]; }

  // The feature's readable name: the template's name, then "=" and the
  // values of its non-flag parts joined by "|" (a flag-only template is its
  // name alone). codes: one per part, each valid in its attribute's vocabulary.
  std::string name(size_t t, const int32_t* codes, const std::vector<AttributeVocab>& vocabs) const;

 private:
  std::vector<std::string> attributes_, positions_;
  std::vector<FeatureTemplate> templates_;
};

}  // namespace conjunct
