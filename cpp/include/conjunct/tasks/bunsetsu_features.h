// The bunsetsu pair features, built from a sentence's tokens through the
// feature engine (conjunct/features/): the model's template spec names
// positions (the modifier's head word, the bunsetsu between, ...) that this
// compiles to roles; per token the attributes are looked up once, per
// bunsetsu its modifier-side, head-side and between keys are built once and
// turned into feature ids, and per decision the pair's ids are merged with
// the pair templates (distance, brackets between, coordination, siblings).
// The Python reference is conjunct.tasks.bunsetsu.features, over the same spec.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/features.h"
#include "conjunct/features/feature_tables.h"

namespace conjunct {

// The tokens of many sentences: token k's form, lemma and XPOS are
// text[field_ptr[3k + f], field_ptr[3k + f + 1]) for f = 0, 1, 2, and bunsetsu
// b holds tokens [bunsetsu_ptr[b], bunsetsu_ptr[b + 1]). With field_end, a
// field ends at field_end[3k + f] instead (fields read in place from a text).
struct BunsetsuTokens {
  const char* text;
  const int64_t* field_ptr;
  const int64_t* bunsetsu_ptr;
  const int64_t* field_end = nullptr;
  std::string_view field(int64_t k, int f) const {
    const int64_t a = field_ptr[3 * k + f];
    const int64_t z = field_end != nullptr ? field_end[3 * k + f] : field_ptr[3 * k + f + 1];
    return std::string_view(text + a, static_cast<size_t>(z - a));
  }
  std::string_view form(int64_t k) const { return field(k, 0); }
  std::string_view lemma(int64_t k) const { return field(k, 1); }
  std::string_view xpos(int64_t k) const { return field(k, 2); }
};

// The tokens of J.DepP's input text (the CaboCha lattice of J.DepP -I 2) as
// BunsetsuTokens buffers: per sentence, a "* <id> <head>D" line opens each
// bunsetsu, a token line is "<surface>\t<f0>,<f1>,<f2>,<XPOS>,<f4>,<INFL>" and
// "EOS" ends it; '#' lines are comments, the heads given are not read. INFL
// "*" means the form is its lemma (inflection "-"); any other value means an
// inflected form (its last character stands in), so the lemma is left empty.
// The fields are read in place: field_ptr / field_end (3 per token) are
// offsets into text, for BunsetsuTokens{text, field_ptr, bunsetsu_ptr, field_end}.
// Throws std::invalid_argument "line N: problem" on a malformed line.
void read_cabocha_tokens(const char* text, size_t size, std::vector<int64_t>& field_ptr, std::vector<int64_t>& field_end,
                         std::vector<int64_t>& bunsetsu_ptr, std::vector<int64_t>& sentence_ptr);

class BunsetsuFeaturizer {
 public:
  // Where a template's features go: a bunsetsu as modifier or as head
  // candidate, a bunsetsu between the pair (always, or as a sibling that
  // already depends on the head candidate), or the pair itself.
  enum Slot { kMod, kHead, kBetween, kSiblings, kPair, kSlots };

  struct Sentence {
    struct Parts {
      int64_t first, last, tail, head, func;  // token indices (-1: none)
      int32_t opens, closes;
      bool case_particle;
    };
    std::vector<Parts> parts;
    std::vector<int32_t> tok_codes;  // per token of the sentence, its token attributes' codes
    std::vector<uint8_t> tok_class;  // per token, its class bits
    int64_t first_token = 0;
    std::vector<int32_t> ids;  // the side and between ids of every bunsetsu
    std::vector<int64_t> ends;  // ends of each bunsetsu's four lists (mod, head, between, siblings) in ids
    std::vector<int64_t> keys;
    std::vector<int32_t> codes[FeatureSpec::kMaxParts];  // a template's parts' codes, while emitting
    uint64_t small[16] = {};  // pair's bit set of small internal ids, zero between calls
    const BunsetsuTokens* tokens = nullptr;
    const FeatureMap* map = nullptr;  // set: ids are a classifier's internal ids
    size_t size() const { return parts.size(); }
  };

  // Throws std::invalid_argument naming the template on a position or an
  // attribute this task does not know, or a part that does not fit its position.
  explicit BunsetsuFeaturizer(std::shared_ptr<const FeatureTables> tables);

  // Fill s with bunsetsu [b, e) of the tokens. With a classifier's feature
  // map, ids are its internal ids (unseen features dropped), so pair() hands
  // the classifier its own input and it maps and sorts nothing per decision.
  void prepare(const BunsetsuTokens& tokens, int64_t b, int64_t e, Sentence& s,
               const FeatureMap* map = nullptr) const;
  // Training, before the model has features: prepare's work up to the keys
  // (s.keys, each bunsetsu's four lists ending at s.ends), no ids.
  void prepare_keys(const BunsetsuTokens& tokens, int64_t b, int64_t e, Sentence& s) const;
  // Training: the keys of the pair (i, j) after prepare_keys, in the
  // reference path's order (the modifier's, the head candidate's, each
  // bunsetsu between's and, if it depends on j, its siblings' keys, then the
  // pair's), repeats kept.
  void pair_keys(Sentence& s, size_t i, size_t j, const int32_t* heads, std::vector<int64_t>& out) const;
  // The sorted, distinct feature ids of the pair (i, j), i < j, given the
  // heads of the bunsetsu between them (heads[k] for i < k < j): column ids,
  // or internal ids when prepare had a feature map.
  void pair(Sentence& s, size_t i, size_t j, const int32_t* heads, std::vector<int32_t>& x) const;

  const FeatureTables& tables() const { return *tables_; }

  // Training: one vocabulary per attribute of spec holding every value the
  // first n_tokens tokens give it (closed sets and fallback values too), so
  // that every feature of the training data has a key. Throws
  // std::invalid_argument naming an attribute this task does not know.
  static std::vector<AttributeVocab> training_vocabs(const FeatureSpec& spec, const BunsetsuTokens& tokens,
                                                     int64_t n_tokens);

  // Token attributes, unit attributes and roles the spec's names compile to.
  enum TokenAttr { kForm, kPos, kSubpos, kFullpos, kXpos, kInfl, kTokenAttrs };
  enum UnitAttr { kEnding = kTokenAttrs, kBalance, kDistance, kFlagAttr };

 private:
  struct Part {
    int attr;     // TokenAttr, UnitAttr or kFlagAttr
    int role;
    int32_t vocab;  // the spec's attribute index (-1 for a flag)
    int32_t fallback;
  };
  struct Compiled {
    size_t t;
    size_t n_parts;
    Part parts[FeatureSpec::kMaxParts];
    bool single = false;  // one part that is not a token set: its key is base + code * step
    int64_t base = 0, step = 0;
    // How prepare_keys reads a single template's code for one bunsetsu:
    // 0 a token's attribute, 1 a predicate of the bunsetsu, 2 its ending or
    // bracket balance, 3 through emit (sets, conjunctions).
    int fast = 3;
  };
  // The one code (-1: none) a part that is not a token set yields for bunsetsu k (or the pair i, j).
  int32_t scalar_code(const Sentence& s, const Part& p, size_t k, size_t i, size_t j) const;
  // The codes part p yields for bunsetsu k (or the pair i, j) into out.
  void part_codes(const Sentence& s, const Part& p, size_t k, size_t i, size_t j, std::vector<int32_t>& out) const;
  void emit(Sentence& s, const Compiled& c, size_t k, size_t i, size_t j, std::vector<int64_t>& keys) const;
  // The column id of a one-part pair template's code (-1: unknown), from a
  // table filled at construction for the small codes of closed values and flags.
  int32_t pair_id(size_t q, int32_t code) const;

  struct XposInfo {
    int32_t codes[3];  // pos, subpos, fullpos (-1: none or not in the vocabulary)
    uint8_t cls;       // token class bits
  };

  std::shared_ptr<const FeatureTables> tables_;
  std::vector<XposInfo> xpos_info_;  // per code of the xpos attribute's vocabulary
  std::vector<Compiled> slots_[kSlots];
  static constexpr int32_t kPairCodes = 8;
  std::vector<int32_t> pair_ids_;  // per pair template q, the ids of codes 0..kPairCodes-1
  int32_t closed_[kFlagAttr - kEnding][4];  // codes of the unit attributes' values (-1: not in the vocabulary)
  int32_t token_vocab_[kTokenAttrs];        // the spec's attribute of each token attribute (-1: unused)
};

}  // namespace conjunct
