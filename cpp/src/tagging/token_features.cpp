#include "conjunct/tagging/token_features.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace conjunct {

namespace {

bool is_flag(TokenAttribute a) { return a >= TokenAttribute::kHyphen && a <= TokenAttribute::kAllCaps; }

// A position's token offset: "0", "-2", "+1", ...
int32_t offset_of(const std::string& position) {
  const std::string where = "tagger feature position '" + position + "'";
  if (position == "0") return 0;
  if (position.size() < 2 || (position[0] != '-' && position[0] != '+'))
    throw std::invalid_argument(where + ": expected a token offset such as -1, 0, +2");
  int32_t v = 0;
  for (size_t i = 1; i < position.size(); ++i) {
    if (position[i] < '0' || position[i] > '9' || v > TokenTemplates::kMaxOffset)
      throw std::invalid_argument(where + ": expected a token offset such as -1, 0, +2");
    v = v * 10 + (position[i] - '0');
  }
  if (v == 0 || v > TokenTemplates::kMaxOffset)
    throw std::invalid_argument(where + ": offsets run from -" + std::to_string(TokenTemplates::kMaxOffset) + " to +" +
                                std::to_string(TokenTemplates::kMaxOffset));
  return position[0] == '-' ? -v : v;
}

// The sentence of each token is found from sent_ptr as the rows advance.
template <class Emit>
void each_token(const TokenBatch& b, Emit&& emit) {
  for (size_t s = 0; s < b.n_sentences; ++s)
    for (int64_t i = b.sent_ptr[s]; i < b.sent_ptr[s + 1]; ++i) emit(b.sent_ptr[s], b.sent_ptr[s + 1], i);
}

std::string_view token(const TokenBatch& b, size_t i) {
  return std::string_view(b.text + b.offsets[i], static_cast<size_t>(b.offsets[i + 1] - b.offsets[i]));
}

}  // namespace

TokenTemplates::TokenTemplates(const FeatureSpec& spec) {
  for (size_t a = 0; a < spec.n_attributes(); ++a) {
    const int32_t t = token_attribute_of(spec.attribute(a));
    if (t < 0) throw std::invalid_argument("tagger feature attribute '" + spec.attribute(a) + "' is not a token attribute");
    attributes.push_back(static_cast<TokenAttribute>(t));
  }
  std::vector<int32_t> offsets;
  for (size_t p = 0; p < spec.n_positions(); ++p) offsets.push_back(offset_of(spec.position(p)));
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    std::vector<Part> parts;
    for (const SpecPart& p : tp.parts) {
      if (p.attribute == SpecPart::kFlag || p.has_fallback)
        throw std::invalid_argument("tagger feature template '" + tp.name + "': every part is a token attribute at an offset");
      parts.push_back({p.attribute, offsets[static_cast<size_t>(p.position)]});
    }
    silent_off.push_back(parts.size() == 1 && parts[0].offset == 0 && is_flag(attributes[parts[0].attribute]));
    templates.push_back(std::move(parts));
  }
}

TokenFeatures::TokenFeatures(std::shared_ptr<const FeatureTables> tables)
    : tables_(std::move(tables)), compiled_(tables_->spec()) {
  for (size_t a = 0; a < compiled_.attributes.size(); ++a) {
    before_.push_back(tables_->vocab(a).find(kBeforeSentence));
    after_.push_back(tables_->vocab(a).find(kAfterSentence));
  }
  // Keys are unique (FeatureKeys refuses a key given twice): a code names one feature.
  direct_.resize(compiled_.templates.size());
  for (size_t t = 0; t < compiled_.templates.size(); ++t)
    if (compiled_.templates[t].size() == 1)
      direct_[t].assign(tables_->vocab(static_cast<size_t>(compiled_.templates[t][0].attribute)).size(), -1);
  for (size_t f = 0; f < tables_->size(); ++f) {
    std::vector<int32_t>& d = direct_[static_cast<size_t>(tables_->template_of(f))];
    const int32_t code = tables_->codes_of(f)[0];
    if (!d.empty() && code >= 0 && static_cast<size_t>(code) < d.size()) d[static_cast<size_t>(code)] = static_cast<int32_t>(f);
  }
}

void TokenFeatures::extract(const TokenBatch& b, std::vector<int64_t>& indptr, std::vector<int32_t>& ids) const {
  Prepared p;  // not kept: a call over a whole corpus would hold its buffers for good
  prepare(b, p);
  extract_range(b, p, 0, b.n_sentences, indptr, ids);
}

void TokenFeatures::prepare(const TokenBatch& b, Prepared& p) const {
  const size_t A = compiled_.attributes.size();
  // Each distinct word once: its attributes' codes (-1: a value the model never saw).
  p.type_of.clear();
  p.types.clear();
  p.tok_type.resize(b.n_tokens);
  for (size_t i = 0; i < b.n_tokens; ++i) {
    const std::string_view w = token(b, i);
    auto [it, fresh] = p.type_of.emplace(w, static_cast<int32_t>(p.types.size()));
    p.tok_type[i] = it->second;
    if (fresh) p.types.push_back(w);
  }
  // The values of a block of types, then each attribute's codes in one staged
  // look-up (AttributeVocab::find_many), so that the vocabularies' cache misses overlap.
  p.type_codes.resize(p.types.size() * A);
  constexpr size_t kBlock = 32;
  WordAttributes word;
  p.views.resize(kBlock);
  p.found_codes.resize(kBlock);
  for (size_t t0 = 0; t0 < p.types.size(); t0 += kBlock) {
    const size_t m = std::min(kBlock, p.types.size() - t0);
    p.arena.clear();
    p.starts.assign(1, 0);
    for (size_t k = 0; k < m; ++k) {  // value (k, a) is arena[starts[k * A + a], starts[k * A + a + 1])
      word.reset(p.types[t0 + k]);
      for (size_t a = 0; a < A; ++a) {
        word.value(compiled_.attributes[a], p.value);
        p.arena += p.value;
        p.starts.push_back(p.arena.size());
      }
    }
    for (size_t a = 0; a < A; ++a) {
      for (size_t k = 0; k < m; ++k)
        p.views[k] = std::string_view(p.arena.data() + p.starts[k * A + a], p.starts[k * A + a + 1] - p.starts[k * A + a]);
      tables_->vocab(a).find_many(p.views.data(), m, p.found_codes.data());
      for (size_t k = 0; k < m; ++k) p.type_codes[(t0 + k) * A + a] = p.found_codes[k];
    }
  }
}

void TokenFeatures::extract_range(const TokenBatch& b, Prepared& p, size_t s0, size_t s1, std::vector<int64_t>& indptr,
                                  std::vector<int32_t>& ids) const {
  const size_t A = compiled_.attributes.size(), T = compiled_.templates.size();
  const int64_t first_token = b.sent_ptr[s0];
  const size_t n = static_cast<size_t>(b.sent_ptr[s1] - first_token);
  // The keys of every token's templates of several parts first, then one
  // pass of look-ups whose table slots are prefetched in blocks (find_many);
  // then the ids in template order, a single-part template's by its code
  // (direct_). A template whose values the model's vocabularies lack (an
  // unknown word, a flag that is off) has no key and no look-up.
  const FeatureKeys& keys = tables_->keys();
  p.key.clear();
  int32_t codes[FeatureSpec::kMaxParts];
  const int32_t* tok_type = p.tok_type.data();
  const int32_t* type_codes = p.type_codes.data();
  auto known_codes = [&](const std::vector<TokenTemplates::Part>& parts, int64_t first, int64_t end, int64_t i) {
    for (size_t k = 0; k < parts.size(); ++k) {
      const int64_t j = i + parts[k].offset;
      const size_t a = static_cast<size_t>(parts[k].attribute);
      codes[k] = j < first ? before_[a] : j >= end ? after_[a] : type_codes[static_cast<size_t>(tok_type[j]) * A + a];
      if (codes[k] < 0) return false;
    }
    return true;
  };
  for (size_t s = s0; s < s1; ++s) {
    const int64_t first = b.sent_ptr[s], end = b.sent_ptr[s + 1];
    for (int64_t i = first; i < end; ++i)
      for (size_t t = 0; t < T; ++t)
        if (direct_[t].empty() && known_codes(compiled_.templates[t], first, end, i)) p.key.push_back(keys.key(t, codes));
  }
  p.found.resize(p.key.size());
  keys.find_many(p.key.data(), p.key.size(), p.found.data());
  indptr.resize(n + 1);
  indptr[0] = 0;
  ids.resize(n * T);
  int32_t* out = ids.data();
  size_t n_ids = 0, k = 0;
  for (size_t s = s0; s < s1; ++s) {
    const int64_t first = b.sent_ptr[s], end = b.sent_ptr[s + 1];
    for (int64_t i = first; i < end; ++i) {
      for (size_t t = 0; t < T; ++t) {
        const std::vector<TokenTemplates::Part>& parts = compiled_.templates[t];
        if (!known_codes(parts, first, end, i)) continue;
        const int32_t id = direct_[t].empty() ? p.found[k++] : direct_[t][static_cast<size_t>(codes[0])];
        out[n_ids] = id;
        n_ids += id >= 0;
      }
      indptr[static_cast<size_t>(i - first_token) + 1] = static_cast<int64_t>(n_ids);
    }
  }
  ids.resize(n_ids);
}

size_t TokenFeatureBuilder::KeyHash::operator()(const std::array<int32_t, 4>& k) const {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int32_t v : k) h = (h ^ static_cast<uint32_t>(v)) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
  return static_cast<size_t>(h);
}

TokenFeatureBuilder::TokenFeatureBuilder(FeatureSpec spec)
    : spec_(std::move(spec)), compiled_(spec_), values_(spec_.n_attributes()), index_(spec_.n_attributes()) {}

int32_t TokenFeatureBuilder::intern(size_t a, const std::string& value) {
  auto [it, fresh] = index_[a].emplace(value, static_cast<int32_t>(values_[a].size()));
  if (fresh) values_[a].push_back(value);
  return it->second;
}

void TokenFeatureBuilder::add(const TokenBatch& b, std::vector<int64_t>& indptr, std::vector<int32_t>& ids) {
  const size_t A = compiled_.attributes.size(), T = compiled_.templates.size();
  std::vector<Type*> tok_type(b.n_tokens);
  WordAttributes word;
  for (size_t i = 0; i < b.n_tokens; ++i) {
    const std::string_view w = token(b, i);
    auto [it, fresh] = types_.try_emplace(std::string(w));
    tok_type[i] = &it->second;
    if (!fresh) continue;
    word.reset(w);
    it->second.values.resize(A);
    it->second.codes.assign(A, -1);
    for (size_t a = 0; a < A; ++a) word.value(compiled_.attributes[a], it->second.values[a]);
  }
  const std::string before(kBeforeSentence), after(kAfterSentence);
  indptr.assign(1, 0);
  ids.clear();
  each_token(b, [&](int64_t first, int64_t end, int64_t i) {
    for (size_t t = 0; t < T; ++t) {
      const auto& parts = compiled_.templates[t];
      if (compiled_.silent_off[t] && tok_type[i]->values[parts[0].attribute] == "0") continue;
      std::array<int32_t, 4> key{static_cast<int32_t>(t), -1, -1, -1};
      for (size_t k = 0; k < parts.size(); ++k) {
        const int64_t j = i + parts[k].offset;
        const size_t a = static_cast<size_t>(parts[k].attribute);
        if (j < first || j >= end) {
          key[k + 1] = intern(a, j < first ? before : after);
        } else {
          Type& ty = *tok_type[j];
          if (ty.codes[a] < 0) ty.codes[a] = intern(a, ty.values[a]);
          key[k + 1] = ty.codes[a];
        }
      }
      auto [it, fresh] = features_.emplace(key, static_cast<int32_t>(template_of_.size()));
      if (fresh) {
        template_of_.push_back(static_cast<int32_t>(t));
        codes_.insert(codes_.end(), key.begin() + 1, key.end());
      }
      ids.push_back(it->second);
    }
    indptr.push_back(static_cast<int64_t>(ids.size()));
  });
}

}  // namespace conjunct
