#include "conjunct/tagging/template_keys.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

TemplateKeys::TemplateKeys(std::vector<std::vector<TemplatePart>> templates, size_t n_attributes)
    : templates_(std::move(templates)), n_attributes_(n_attributes) {
  for (const auto& parts : templates_) {
    if (parts.empty()) throw std::invalid_argument("a template needs at least one part");
    if (parts.size() > kMaxParts) throw std::invalid_argument("a template has more than 64 parts");
    for (const TemplatePart& p : parts)
      if (p.attribute < 0 || static_cast<size_t>(p.attribute) >= n_attributes_)
        throw std::invalid_argument("template part refers to an unknown attribute");
    max_parts_ = std::max(max_parts_, parts.size());
  }
  ids_.resize(templates_.size());
  leading_.resize(templates_.size());
  clear_values();
}

namespace {
// FNV-1a over the bytes, mixed, kept non-negative (KeyMap keys).
int64_t hash_bytes(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
  h ^= h >> 29;
  return static_cast<int64_t>(h & 0x7fffffffffffffffull);
}
}  // namespace

bool TemplateKeys::set_names(const char* blob, const int64_t* offsets, const int32_t* ids, size_t n,
                             const std::vector<std::string>& template_names) {
  if (template_names.size() != templates_.size()) throw std::invalid_argument("one name per template is needed");
  if (offsets[0] != 0) throw std::invalid_argument("string offsets must start at 0");
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i]) throw std::invalid_argument("string offsets decrease");
    if (ids[i] < 0) throw std::invalid_argument("feature ids are >= 0");
  }
  named_ = false;
  names_.clear();
  name_blob_.assign(blob, static_cast<size_t>(offsets[n]));
  name_offsets_.assign(offsets, offsets + n + 1);
  name_ids_.assign(ids, ids + n);
  prefixes_.clear();
  for (const std::string& t : template_names) prefixes_.push_back(t + "=");
  for (size_t i = 0; i < n; ++i) {
    const int64_t h = hash_bytes(name_blob_.data() + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
    if (names_.find(h) != KeyMap::kAbsent) {  // shared hash: leave naming to the caller
      names_.clear();
      return false;
    }
    names_.put(h, static_cast<int32_t>(i));
  }
  named_ = true;
  return true;
}

void TemplateKeys::add_values(size_t attribute, const char* blob, const int64_t* offsets, size_t n) {
  if (attribute >= n_attributes_) throw std::invalid_argument("no such attribute");
  if (offsets[0] != 0) throw std::invalid_argument("string offsets must start at 0");
  std::string& b = value_blob_[attribute];
  std::vector<int64_t>& o = value_offsets_[attribute];
  const int64_t base = static_cast<int64_t>(b.size());
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i]) throw std::invalid_argument("string offsets decrease");
    o.push_back(base + offsets[i + 1]);
  }
  b.append(blob, static_cast<size_t>(offsets[n]));
}

// The feature id of template t's key with these part codes, -1 if the
// vocabulary does not have its string.
int32_t TemplateKeys::name_id(const int32_t* codes, size_t t) {
  const std::vector<TemplatePart>& parts = templates_[t];
  scratch_ = prefixes_[t];
  for (size_t k = 0; k < parts.size(); ++k) {
    const size_t a = static_cast<size_t>(parts[k].attribute), c = static_cast<size_t>(codes[k]);
    const std::vector<int64_t>& o = value_offsets_[a];
    if (c + 1 >= o.size()) throw std::invalid_argument("a value code has no string");
    if (k) scratch_.push_back('|');
    scratch_.append(value_blob_[a], static_cast<size_t>(o[c]), static_cast<size_t>(o[c + 1] - o[c]));
  }
  const int32_t i = names_.find(hash_bytes(scratch_.data(), scratch_.size()));
  if (i == KeyMap::kAbsent) return -1;
  const int64_t b = name_offsets_[static_cast<size_t>(i)], e = name_offsets_[static_cast<size_t>(i) + 1];
  if (static_cast<size_t>(e - b) != scratch_.size() || name_blob_.compare(static_cast<size_t>(b), scratch_.size(), scratch_) != 0)
    return -1;
  return name_ids_[static_cast<size_t>(i)];
}

size_t TemplateKeys::size() const {
  size_t n = 0;
  for (size_t t = 0; t < ids_.size(); ++t) n += ids_[t].size() + leading_[t].size();
  return n;
}

size_t TemplateKeys::bytes() const {
  size_t n = names_.bytes() + name_blob_.size() + name_offsets_.size() * 8 + name_ids_.size() * 4;
  for (size_t a = 0; a < n_attributes_; ++a) n += value_blob_[a].size() + value_offsets_[a].size() * 8;
  for (size_t t = 0; t < ids_.size(); ++t) n += ids_[t].bytes() + leading_[t].bytes();
  return n;
}

void TemplateKeys::clear_keys() {
  for (size_t t = 0; t < ids_.size(); ++t) ids_[t].clear(), leading_[t].clear();
}

void TemplateKeys::clear_values() {
  value_blob_.assign(n_attributes_, "<s></s>");
  value_offsets_.assign(n_attributes_, std::vector<int64_t>{0, 3, 7});
}

// Template by template (one map in cache at a time), sentence by sentence.
void TemplateKeys::lookup(const int32_t* tok_type, size_t n_tokens, const int64_t* sentence_ptr,
                          size_t n_sentences, const int32_t* type_codes, int32_t* ids, PendingKeys& pending) {
  const size_t T = templates_.size(), P = max_parts_, A = n_attributes_;
  (void)n_tokens;  // the sentence offsets bound every token index
  int32_t codes[kMaxParts];
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
        if (id == KeyMap::kAbsent && named_) {
          id = name_id(codes, t);
          map.put(key, id);
        } else if (id == KeyMap::kAbsent) {  // first sight: pending until the caller names it
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
