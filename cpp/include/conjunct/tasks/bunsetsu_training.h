// The bunsetsu parser's training examples, built by the feature engine: every
// decision Sassano's algorithm asks on the gold trees, with its features as
// ids numbered in order of first occurrence -- the ids, counts and names the
// Python reference path (strings through a FeatureIndex) gives, without a
// string per feature.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "conjunct/tasks/bunsetsu_features.h"

namespace conjunct {

struct BunsetsuExamples {
  std::vector<int64_t> indptr{0};  // decision r's features are indices[indptr[r], indptr[r + 1])
  std::vector<int32_t> indices;    // in the reference path's order, each once
  std::vector<int8_t> labels;      // +1: i depends on j
  std::vector<int64_t> counts;     // per feature, the decisions it occurs in
  // Per feature, its template and parts' codes (-1 past the parts); vocabs[a]
  // holds attribute a's values in order of first use by feature id, as
  // FeatureKeys.from_names numbers them.
  std::vector<int32_t> template_of, codes;
  std::vector<std::vector<std::string>> vocabs;
  std::vector<std::string> names;
  int64_t skipped = 0;  // sentences whose gold tree is not head-final and projective
};

// Whether heads (bunsetsu indices, -1 for the root) is a tree Sassano's algorithm can build.
bool head_final_projective(const int32_t* heads, size_t n);

// The examples of sentences [0, n_sentences) (bunsetsu sentence_ptr[s] ..
// sentence_ptr[s + 1]) of tokens, gold[b] the head of bunsetsu b within its
// sentence, under spec. Throws std::invalid_argument on a spec this task
// does not read.
BunsetsuExamples bunsetsu_examples(const FeatureSpec& spec, const BunsetsuTokens& tokens, const int64_t* sentence_ptr,
                                   size_t n_sentences, const int32_t* gold);

}  // namespace conjunct
