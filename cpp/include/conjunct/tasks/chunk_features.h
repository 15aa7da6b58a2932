// The chunker's features (YamCha's), built from tokens through the feature
// engine (conjunct/features/): the model's spec names attributes of a token
// -- "w" its word, "p" its POS tag, "t" the chunk tag decided for it -- at
// positions that are offsets from the current token ("-2" .. "+2"; "BOS" /
// "EOS" outside the sentence). Per token each word and tag is looked up once;
// the static templates (words and tags) become one row of feature ids per
// token, and the dynamic ones ("t" at "-1" and "-2": the previous decisions)
// one id per class, which the left-to-right loop adds as it decides. The
// Python reference is conjunct.tasks.chunk.features, over the same spec.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/features/feature_tables.h"

namespace conjunct {

// The tokens of many sentences: token k's word and POS tag are
// text[field_ptr[2k + f], field_ptr[2k + f + 1]) for f = 0, 1.
struct ChunkTokens {
  const char* text;
  const int64_t* field_ptr;
  std::string_view field(int64_t k, int f) const {
    const int64_t a = field_ptr[2 * k + f];
    return std::string_view(text + a, static_cast<size_t>(field_ptr[2 * k + f + 1] - a));
  }
};

class ChunkFeaturizer {
 public:
  // classes: the classifier's class names, in class-index order. Throws
  // std::invalid_argument naming the template on an attribute or position
  // this task does not know, or a decided tag read anywhere but at "-1" / "-2".
  ChunkFeaturizer(std::shared_ptr<const FeatureTables> tables, const std::vector<std::string>& classes);

  // Static feature ids of tokens [b, e) (one sentence), one row each
  // (unknown features left out), appended to (indptr, ids).
  void sentence(const ChunkTokens& t, int64_t b, int64_t e, std::vector<int64_t>& indptr,
                std::vector<int32_t>& ids) const;
  // The ids of "tag at -1 / -2 is class k" (index n_classes: BOS), -1 when unknown.
  const std::vector<int32_t>& prev1() const { return prev_[0]; }
  const std::vector<int32_t>& prev2() const { return prev_[1]; }

 private:
  struct Part {
    int column;  // 0 word, 1 POS
    int offset;
    int32_t vocab;
  };
  struct Compiled {
    size_t t, n_parts;
    Part parts[FeatureSpec::kMaxParts];
  };
  std::shared_ptr<const FeatureTables> tables_;
  std::vector<Compiled> static_;
  int32_t vocab_of_[2] = {-1, -1};  // the spec's attribute of the word and of the POS tag
  int32_t bos_[2] = {-1, -1}, eos_[2] = {-1, -1};
  std::vector<int32_t> prev_[2];
  // Per static template of one part, its feature id by the part's code (-1:
  // the model lacks it), found by index instead of a key look-up; empty for
  // templates of several parts.
  std::vector<std::vector<int32_t>> direct_;
};

}  // namespace conjunct
