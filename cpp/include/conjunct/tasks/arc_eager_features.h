// The arc-eager parser's configuration features, built through the feature
// engine (conjunct/features/): the model's template spec names positions
// (roles such as s0, b1, hs0, ld2b0; flags s0.root / s0.none; dependent sets
// s0.ldeps; pairs s0-b0; the arc) that this compiles to configuration roles.
// Per token the attributes (form, XPOS, UPOS) are looked up once; per
// configuration each template's codes become a feature id through a dense
// table (one-part templates) or the model's key table (conjunctions).
// The Python reference is conjunct.tasks.english.features, over the same spec.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/features/feature_tables.h"

namespace conjunct {

// The tokens of many sentences: token k's form, UPOS and XPOS are
// text[field_ptr[3k + f], field_ptr[3k + f + 1]) for f = 0, 1, 2; or, with
// tag ids (a tagger's output), its form is text[field_ptr[k], field_ptr[k + 1])
// and its tags tag_names[t][tag_ids[t][k]] (t = 0 UPOS, 1 XPOS).
struct ArcEagerTokens {
  const char* text;
  const int64_t* field_ptr;
  const int32_t* tag_ids[2] = {nullptr, nullptr};
  const std::string_view* tag_names[2] = {nullptr, nullptr};
  std::string_view field(int64_t k, int f) const {
    if (tag_ids[0] != nullptr) {
      if (f > 0) return tag_names[f - 1][tag_ids[f - 1][k]];
      return std::string_view(text + field_ptr[k], static_cast<size_t>(field_ptr[k + 1] - field_ptr[k]));
    }
    const int64_t a = field_ptr[3 * k + f];
    return std::string_view(text + a, static_cast<size_t>(field_ptr[3 * k + f + 1] - a));
  }
};

// A configuration as the features read it; tokens are 0 (ROOT) .. n1 - 1.
struct ArcEagerConfig {
  const int32_t* stack;
  size_t stack_size;
  int32_t b, n1;
  const int32_t* heads;   // -1: none yet
  const int32_t* labels;  // label values, -1: none yet
  const int32_t* deps[4];  // leftmost, rightmost, second leftmost, second rightmost dependent (-1: none)
  const int32_t* n_left;   // number of left / right dependents
  const int32_t* n_right;
  const uint8_t* left_set;   // [token * n_label_values + label]: a left / right dependent has the label
  const uint8_t* right_set;
};

class ArcEagerFeaturizer {
 public:
  enum Attr { kForm, kUpos, kXpos, kTokenAttrs, kDeprel = kTokenAttrs, kValency, kDistance, kMove, kFlag };

  struct Scratch {
    std::vector<int32_t> toks;
    std::vector<int32_t> values[FeatureSpec::kMaxParts];
  };

  // label_values: the parser's label values (what ArcEagerConfig::labels
  // index). Throws std::invalid_argument naming the template on a position
  // or attribute the parser does not know, or a part that does not fit its position.
  ArcEagerFeaturizer(std::shared_ptr<const FeatureTables> tables, const std::vector<std::string>& label_values);

  // The codes of the token attributes of tokens [b, e) of t into codes: row
  // 0 is ROOT (no values), row k the (k - 1)-th token; kTokenAttrs per row.
  void prepare(const ArcEagerTokens& t, int64_t b, int64_t e, std::vector<int32_t>& codes) const;
  // Appends the configuration's feature ids to x (move: -1, or the arc
  // 0 = LA / 1 = RA whose label is asked: templates on "arc" read it).
  void features(const ArcEagerConfig& c, const int32_t* codes, int move, Scratch& s, std::vector<int32_t>& x) const;

  // Whether a template reads dependents' labels or numbers (the loop then keeps them).
  bool reads_dependents() const { return reads_dependents_; }
  size_t n_label_values() const { return label_code_.size(); }
  const FeatureTables& tables() const { return *tables_; }

  struct Role {
    bool stack;  // s<k> (else b<k>)
    int32_t k;
    int n_ops;
    int ops[4];  // innermost first: 0 head, 1..4 deps[op - 1]
  };
  enum PositionKind { kTokenPos, kRootPos, kNonePos, kLeftDeps, kRightDeps, kPairPos, kArcPos };

 private:
  struct Part {
    int attr;
    int kind;
    int slot[2];  // role slots
    int32_t fallback;
  };
  struct Compiled {
    size_t t;
    size_t n_parts;
    Part parts[FeatureSpec::kMaxParts];
    int64_t dense = -1;  // offset of a one-part template's code -> id table in dense_ (-1: use the key table)
    int64_t dense_size = 0;
  };
  void values(const Part& p, const ArcEagerConfig& c, const int32_t* toks, const int32_t* codes, int move,
              std::vector<int32_t>& out) const;
  // emit(code) for each value of part p in the configuration (codes >= 0), in values()' order.
  template <class Emit>
  void each_value(const Part& p, const ArcEagerConfig& c, const int32_t* toks, const int32_t* codes, int move,
                  Emit&& emit) const;
  int32_t find(const Compiled& c, int32_t code) const {
    if (c.dense >= 0) return code < c.dense_size ? dense_[static_cast<size_t>(c.dense + code)] : -1;
    return tables_->keys().find(tables_->keys().key(c.t, &code));
  }

  std::shared_ptr<const FeatureTables> tables_;
  std::vector<Role> roles_;
  std::vector<Compiled> templates_;
  std::vector<int32_t> dense_;
  std::vector<int32_t> label_code_;    // label value -> code in the deprel vocabulary (-1: none)
  int32_t valency_code_[5], distance_code_[6], move_code_[2];
  int32_t token_vocab_[kTokenAttrs];   // the spec's attribute of each token attribute (-1: unused)
  bool reads_dependents_ = false;
};

}  // namespace conjunct
