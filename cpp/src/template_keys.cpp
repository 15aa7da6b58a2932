#include "conjunct/tagging/template_keys.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

TemplateKeys::TemplateKeys(std::vector<std::vector<TemplatePart>> templates, size_t n_attributes)
    : templates_(std::move(templates)), n_attributes_(n_attributes) {
  for (const auto& parts : templates_) {
    if (parts.empty()) throw std::invalid_argument("a template needs at least one part");
    for (const TemplatePart& p : parts)
      if (p.attribute < 0 || static_cast<size_t>(p.attribute) >= n_attributes_)
        throw std::invalid_argument("template part refers to an unknown attribute");
    max_parts_ = std::max(max_parts_, parts.size());
  }
  ids_.resize(templates_.size());
  leading_.resize(templates_.size());
}

size_t TemplateKeys::size() const {
  size_t n = 0;
  for (size_t t = 0; t < ids_.size(); ++t) n += ids_[t].size() + leading_[t].size();
  return n;
}

size_t TemplateKeys::bytes() const {
  size_t n = 0;
  for (size_t t = 0; t < ids_.size(); ++t) n += ids_[t].bytes() + leading_[t].bytes();
  return n;
}

void TemplateKeys::clear() {
  for (size_t t = 0; t < ids_.size(); ++t) ids_[t].clear(), leading_[t].clear();
}

// Template by template (one map in cache at a time), sentence by sentence.
void TemplateKeys::lookup(const int32_t* tok_type, size_t n_tokens, const int64_t* sentence_ptr,
                          size_t n_sentences, const int32_t* type_codes, int32_t* ids, PendingKeys& pending) {
  const size_t T = templates_.size(), P = max_parts_, A = n_attributes_;
  (void)n_tokens;
  int32_t codes[64];
  if (P > 64) throw std::invalid_argument("a template has more than 64 parts");
  for (size_t t = 0; t < T; ++t) {
    const std::vector<TemplatePart>& parts = templates_[t];
    KeyMap& map = ids_[t];
    for (size_t s = 0; s < n_sentences; ++s) {
      const int64_t b = sentence_ptr[s], e = sentence_ptr[s + 1];
      for (int64_t i = b; i < e; ++i) {
        int64_t key = 0;
        for (size_t k = 0; k < parts.size(); ++k) {
          const int64_t j = i + parts[k].offset;
          int32_t code = j < b ? 0 : 1;
          if (j >= b && j < e) {
            code = type_codes[static_cast<size_t>(tok_type[j]) * A + static_cast<size_t>(parts[k].attribute)];
            if (code < 2) throw std::invalid_argument("a word type's value code is below 2");
          }
          codes[k] = code;
          if (k >= 2) key = leading_[t].intern(key);
          key = k == 0 ? code : (key << 31) | code;
        }
        int32_t id = map.find(key);
        if (id == KeyMap::kAbsent) {  // first sight: pending until resolved
          id = -2 - static_cast<int32_t>(pending.size());
          map.put(key, id);
          pending.template_of.push_back(static_cast<int32_t>(t));
          pending.key.push_back(key);
          for (size_t k = 0; k < P; ++k) pending.codes.push_back(k < parts.size() ? codes[k] : -1);
        }
        ids[static_cast<size_t>(i) * T + t] = id;
      }
    }
  }
}

void TemplateKeys::resolve(const PendingKeys& pending, const int32_t* pending_ids, const int32_t* ids,
                           size_t n_tokens, std::vector<int64_t>& indptr, std::vector<int32_t>& features) {
  const size_t T = templates_.size();
  for (size_t p = 0; p < pending.size(); ++p) {
    if (pending_ids[p] < -1) throw std::invalid_argument("feature ids are >= -1");
    ids_[static_cast<size_t>(pending.template_of[p])].put(pending.key[p], pending_ids[p]);
  }
  indptr.assign(n_tokens + 1, 0);
  features.clear();
  features.reserve(n_tokens * T);
  for (size_t i = 0; i < n_tokens; ++i) {
    for (size_t t = 0; t < T; ++t) {
      int32_t id = ids[i * T + t];
      if (id < -1) id = pending_ids[static_cast<size_t>(-2 - id)];
      if (id >= 0) features.push_back(id);
    }
    indptr[i + 1] = static_cast<int64_t>(features.size());
  }
}

}  // namespace conjunct
