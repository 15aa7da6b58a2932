// Feature ids of tokens from feature templates, through integer keys.
//
// A template is a list of parts (attribute, offset): the value of one
// attribute (word, lower-cased word, a suffix, ...) of the word type at a
// fixed offset from the token. Attributes are computed once per word type by
// the caller and given as value codes (0 = before the sentence, 1 = after it,
// v + 2 = the type's value v). A token's parts' codes pack into one 64-bit
// key per template (parts beyond the second through a per-template table of
// the leading parts' keys), which a per-template map turns into the feature
// id. A key the map has not seen yet is named once: with the vocabulary and
// the attributes' value strings given (set_names, add_values), its feature
// string is composed here and looked up; without them it is reported, so the
// caller can name it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "conjunct/util/key_map.h"

namespace conjunct {

struct TemplatePart {
  int32_t attribute;
  int32_t offset;
};

// The keys one lookup met for the first time, each once, in template order.
struct PendingKeys {
  std::vector<int32_t> template_of;
  std::vector<int64_t> key;
  std::vector<int32_t> codes;  // size() x max_parts, -1 past a template's parts
  size_t size() const { return key.size(); }
};

class TemplateKeys {
 public:
  static constexpr size_t kMaxParts = 64;

  TemplateKeys(std::vector<std::vector<TemplatePart>> templates, size_t n_attributes);

  // The vocabulary: feature strings (UTF-8, blob + n + 1 offsets) and their
  // ids; the templates' names ("w-1|w"); every attribute's values from code 2
  // on, appended as they get codes. Returns false (and keeps reporting new
  // keys) if two feature strings share a 63-bit hash.
  bool set_names(const char* blob, const int64_t* offsets, const int32_t* ids, size_t n,
                 const std::vector<std::string>& template_names);
  void add_values(size_t attribute, const char* blob, const int64_t* offsets, size_t n);
  size_t n_values(size_t attribute) const { return value_offsets_[attribute].size() - 1; }

  size_t n_templates() const { return templates_.size(); }
  size_t n_attributes() const { return n_attributes_; }
  size_t max_parts() const { return max_parts_; }
  // Keys known to the maps (feature ids and the leading parts' keys).
  size_t size() const;
  size_t bytes() const;
  // Forgets the keys (the value strings stay: codes keep their meaning).
  void clear_keys();
  // Forgets the value strings too (codes start again from 2).
  void clear_values();

  // ids[token * n_templates + t]: the feature id, -1 for a feature the model
  // does not have, or -2 - p for the p-th key met for the first time (in
  // pending, which must be resolved before the next lookup).
  // sentence_ptr: the tokens' sentence offsets; type_codes: n_types x
  // n_attributes value codes; tok_type: each token's type.
  void lookup(const int32_t* tok_type, size_t n_tokens, const int64_t* sentence_ptr, size_t n_sentences,
              const int32_t* type_codes, int32_t* ids, PendingKeys& pending);
  // Gives the pending keys their feature ids (>= -1) and turns ids into a
  // CSR of the features the model has (indptr: n_tokens + 1).
  void resolve(const PendingKeys& pending, const int32_t* pending_ids, const int32_t* ids, size_t n_tokens,
               std::vector<int64_t>& indptr, std::vector<int32_t>& features);

 private:
  std::vector<std::vector<TemplatePart>> templates_;
  size_t n_attributes_, max_parts_ = 0;
  int32_t name_id(const int32_t* codes, size_t t);

  std::vector<KeyMap> ids_, leading_;
  // Naming new keys here: feature strings by 63-bit hash, their bytes, value strings.
  bool named_ = false;
  KeyMap names_;
  std::string name_blob_;
  std::vector<int64_t> name_offsets_;
  std::vector<int32_t> name_ids_;
  std::vector<std::string> prefixes_;
  std::vector<std::string> value_blob_;
  std::vector<std::vector<int64_t>> value_offsets_;
  std::string scratch_;
};

}  // namespace conjunct
