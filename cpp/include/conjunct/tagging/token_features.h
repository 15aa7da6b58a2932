// The sequence taggers' features on the feature engine: a template spec whose
// attributes are token attributes (token_attributes.h) and whose positions
// are token offsets ("-2" .. "+2"), compiled once; a batch of tokens as one
// UTF-8 buffer and offsets. Each distinct word of a batch is decoded and its
// attributes looked up in the model's vocabularies once; a token's templates
// pack its neighbours' codes into keys (key_table.h) and the model's table
// turns keys into feature ids. No string is built per feature, and nothing is
// kept between batches, so new text costs what seen text costs.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "conjunct/features/feature_tables.h"
#include "conjunct/tagging/token_attributes.h"

namespace conjunct {

// Tokens [offsets[i], offsets[i + 1]) of text; sentence s is tokens [sent_ptr[s], sent_ptr[s + 1]).
struct TokenBatch {
  const char* text;
  const int64_t* offsets;
  size_t n_tokens;
  const int64_t* sent_ptr;
  size_t n_sentences;
};

// A tagger spec compiled: per spec attribute its token attribute, per template
// its parts (attribute, offset). Throws std::invalid_argument naming the
// attribute, position or template the tagger cannot read.
struct TokenTemplates {
  struct Part {
    int32_t attribute;
    int32_t offset;
  };
  static constexpr int32_t kMaxOffset = 9;
  explicit TokenTemplates(const FeatureSpec& spec);
  std::vector<TokenAttribute> attributes;
  std::vector<std::vector<Part>> templates;
  // Templates that are a word's own flag alone have no feature where it is off ("0").
  std::vector<bool> silent_off;
};

class TokenFeatures {
 public:
  explicit TokenFeatures(std::shared_ptr<const FeatureTables> tables);
  // Every token's feature ids, as CSR rows (features the model lacks left out).
  void extract(const TokenBatch& batch, std::vector<int64_t>& indptr, std::vector<int32_t>& ids) const;

  // A batch's distinct words and their attribute codes (each word's
  // attributes computed once per batch), and the buffers of extract_range:
  // kept by the caller and reused, so a call allocates nothing once they
  // have grown (a first pass then costs what a later one does).
  struct Prepared {
    std::unordered_map<std::string_view, int32_t> type_of;
    std::vector<int32_t> tok_type, type_codes, found, found_codes;
    std::vector<std::string_view> types, views;
    std::vector<int64_t> key;
    std::vector<size_t> starts;
    std::string value, arena;
  };
  void prepare(const TokenBatch& batch, Prepared& p) const;
  // The feature ids of the tokens of sentences [s0, s1) of the batch prepare
  // last saw, as CSR rows numbered from 0 (those sentences' first token is row 0).
  void extract_range(const TokenBatch& batch, Prepared& p, size_t s0, size_t s1, std::vector<int64_t>& indptr,
                     std::vector<int32_t>& ids) const;
  const FeatureTables& tables() const { return *tables_; }

 private:
  std::shared_ptr<const FeatureTables> tables_;
  TokenTemplates compiled_;
  std::vector<int32_t> before_, after_;  // per attribute, the code of "<s>" / "</s>" (-1: none)
  // Per single-part template, its feature id by its part's code (-1: the
  // model lacks it): found by index, not hashed per token. Empty for templates
  // of several parts, which go through the key table.
  std::vector<std::vector<int32_t>> direct_;
};

// The features of training data: vocabularies and feature ids grow as tokens
// come (ids in order of first appearance); keys() hands them to the model file.
class TokenFeatureBuilder {
 public:
  explicit TokenFeatureBuilder(FeatureSpec spec);
  void add(const TokenBatch& batch, std::vector<int64_t>& indptr, std::vector<int32_t>& ids);
  const FeatureSpec& spec() const { return spec_; }
  // Attribute a's values (code k is values[a][k]); each feature's template and codes (-1 past its parts).
  const std::vector<std::vector<std::string>>& values() const { return values_; }
  const std::vector<int32_t>& template_of() const { return template_of_; }
  const std::vector<int32_t>& codes() const { return codes_; }

 private:
  int32_t intern(size_t attribute, const std::string& value);
  struct KeyHash {
    size_t operator()(const std::array<int32_t, 4>& k) const;
  };
  FeatureSpec spec_;
  TokenTemplates compiled_;
  std::vector<std::vector<std::string>> values_;
  std::vector<std::unordered_map<std::string, int32_t>> index_;
  struct Type {
    std::vector<std::string> values;  // per attribute
    std::vector<int32_t> codes;       // -1 until a feature uses the value
  };
  std::unordered_map<std::string, Type> types_;
  std::unordered_map<std::array<int32_t, 4>, int32_t, KeyHash> features_;
  std::vector<int32_t> template_of_, codes_;
};

}  // namespace conjunct
