// The bunsetsu pair features (the templates of conjunct.tasks.bunsetsu.features,
// whose Python code is the reference) built in C++ from a sentence's tokens:
// per bunsetsu once (its modifier side, head-candidate side and what it adds
// between a pair), then per decision the pair's columns from those lists, the
// heads found so far (siblings), distance, brackets and coordination.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "conjunct/tasks/feature_vocab.h"

namespace conjunct {

// Bit k enables group k, in the order of features.FEATURE_GROUPS.
enum BunsetsuGroup : uint32_t {
  kCore = 1u << 0,
  kEdge = 1u << 1,
  kContext = 1u << 2,
  kParticles = 1u << 3,
  kSiblings = 1u << 4,
  kCoord = 1u << 5,
  kBrackets = 1u << 6,
  kAllGroups = (1u << 7) - 1,
};

// The tokens of many sentences: every token's form, lemma and XPOS (three
// values per token, in this order) and the token offsets of every bunsetsu.
struct BunsetsuTokens {
  const TokenField* fields;
  const int64_t* bunsetsu_ptr;  // bunsetsu b holds tokens [bunsetsu_ptr[b], bunsetsu_ptr[b + 1])
  std::string_view form(int64_t k) const { return (*fields)[3 * k]; }
  std::string_view lemma(int64_t k) const { return (*fields)[3 * k + 1]; }
  std::string_view xpos(int64_t k) const { return (*fields)[3 * k + 2]; }
};

class BunsetsuFeaturizer {
 public:
  // Per-sentence state: the words each template reads and the columns of
  // every bunsetsu's static features.
  struct Sentence {
    struct Parts {
      int64_t first, last, tail, head, func;  // token indices (-1: none)
      int32_t opens, closes;
      bool case_particle;
    };
    std::vector<Parts> parts;
    std::vector<int32_t> ids;       // modifier, head and between columns of every bunsetsu
    std::vector<int64_t> mod, head, between, siblings;  // ends of each bunsetsu's four lists in ids
    KeyBatch keys;
    const BunsetsuTokens* tokens = nullptr;
    size_t size() const { return parts.size(); }
  };

  // groups: a mask of BunsetsuGroup (core is required).
  BunsetsuFeaturizer(FeatureVocab vocab, uint32_t groups);

  // Fill s with bunsetsu [b, e) of the tokens.
  void prepare(const BunsetsuTokens& tokens, int64_t b, int64_t e, Sentence& s) const;
  // The sorted, distinct columns of the pair (i, j), i < j, given the heads of
  // the bunsetsu between them (heads[k] for i < k < j).
  void pair(const Sentence& s, size_t i, size_t j, const int32_t* heads, std::vector<int32_t>& x) const;

  uint32_t groups() const { return groups_; }
  const FeatureVocab& vocab() const { return vocab_; }

 private:
  void word(KeyBatch& key, const BunsetsuTokens& t, int64_t k, std::string_view prefix, std::vector<int32_t>& out) const;
  void side(KeyBatch& key, const Sentence& s, size_t k, bool modifier, std::vector<int32_t>& out) const;
  // Columns (>= 0) and KeyBatch placeholders (<= -2) are kept; -1 (unknown) is not.
  void push(int32_t column, std::vector<int32_t>& out) const {
    if (column != -1) out.push_back(column);
  }
  FeatureVocab vocab_;
  uint32_t groups_;
  // Columns of the keys that do not depend on the tokens (-1: unknown to the model).
  int32_t distance_[3], between_brackets_[4], mod_brackets_[4], head_brackets_[4], coord_[3], ending_[2][3];
  int32_t begin_, end_, no_prev_, no_next_;
};

}  // namespace conjunct
