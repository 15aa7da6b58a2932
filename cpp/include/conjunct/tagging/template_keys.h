// Feature ids of tokens from feature templates, through integer keys.
//
// A template is a list of parts (attribute, offset): the value of one
// attribute (word, lower-cased word, a suffix, ...) of the word type at a
// fixed offset from the token. Attributes are computed once per word type by
// the caller and given as value codes (0 = before the sentence, 1 = after it,
// v + 2 = the type's value v). A token's parts' codes pack into one 64-bit
// key per template (parts beyond the second through a per-template table of
// the leading parts' keys), which a per-template map turns into the feature
// id. Keys the map has not seen yet are reported, so the caller can name the
// feature (as a string) once and add its id.
#pragma once
#include <cstdint>
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
  static constexpr int64_t kMaxCode = (int64_t{1} << 31) - 1;

  TemplateKeys(std::vector<std::vector<TemplatePart>> templates, size_t n_attributes);

  size_t n_templates() const { return templates_.size(); }
  size_t n_attributes() const { return n_attributes_; }
  size_t max_parts() const { return max_parts_; }
  // Keys known to the maps (feature ids and the leading parts' keys).
  size_t size() const;
  size_t bytes() const;
  void clear();

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
  std::vector<KeyMap> ids_, leading_;
};

}  // namespace conjunct
