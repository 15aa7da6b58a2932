#include "conjunct/features/template_spec.h"

#include <stdexcept>
#include <unordered_set>

namespace conjunct {

FeatureSpec::FeatureSpec(std::vector<std::string> attributes, std::vector<std::string> positions,
                         std::vector<FeatureTemplate> templates)
    : attributes_(std::move(attributes)), positions_(std::move(positions)), templates_(std::move(templates)) {
  if (templates_.size() > kMaxTemplates)
    throw std::invalid_argument("a feature spec holds at most " + std::to_string(kMaxTemplates) + " templates");
  std::unordered_set<std::string_view> seen;
  for (const FeatureTemplate& t : templates_) {
    const std::string where = "feature template '" + t.name + "'";
    if (t.name.empty()) throw std::invalid_argument("a feature template has an empty name");
    if (t.name.find('|') != std::string::npos) throw std::invalid_argument(where + ": a name may not hold '|'");
    if (!seen.insert(t.name).second) throw std::invalid_argument(where + " appears twice");
    if (t.parts.empty() || t.parts.size() > kMaxParts)
      throw std::invalid_argument(where + ": a template has 1 to " + std::to_string(kMaxParts) + " parts");
    bool valued = false;
    for (const SpecPart& p : t.parts) {
      if (p.attribute != SpecPart::kFlag && (p.attribute < 0 || static_cast<size_t>(p.attribute) >= attributes_.size()))
        throw std::invalid_argument(where + ": attribute " + std::to_string(p.attribute) + " out of range");
      if (p.position < 0 || static_cast<size_t>(p.position) >= positions_.size())
        throw std::invalid_argument(where + ": position " + std::to_string(p.position) + " out of range");
      if (p.attribute == SpecPart::kFlag && p.has_fallback)
        throw std::invalid_argument(where + ": a flag part has no fallback value");
      valued |= p.attribute != SpecPart::kFlag;
    }
    // A valued template's name ends at its first '=' (the values follow it).
    if (valued && t.name.find('=') != std::string::npos)
      throw std::invalid_argument(where + ": the name of a template with values may not hold '='");
  }
  // A flag's name "a=b" would read as template a's value b: two features, one name.
  for (const FeatureTemplate& t : templates_) {
    const size_t eq = t.name.find('=');
    if (eq != std::string::npos && seen.count(std::string_view(t.name).substr(0, eq)))
      throw std::invalid_argument("feature template '" + t.name + "' reads as a value of template '" +
                                  t.name.substr(0, eq) + "'");
  }
}

std::string FeatureSpec::name(size_t t, const int32_t* codes, const std::vector<AttributeVocab>& vocabs) const {
  const FeatureTemplate& tp = templates_[t];
  std::string out = tp.name;
  char sep = '=';
  for (size_t k = 0; k < tp.parts.size(); ++k) {
    if (tp.parts[k].attribute == SpecPart::kFlag) continue;
    out += sep;
    const std::string_view v = vocabs[tp.parts[k].attribute].value(codes[k]);
    out.append(v.data(), v.size());
    sep = '|';
  }
  return out;
}

}  // namespace conjunct
