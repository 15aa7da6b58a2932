#include "conjunct/tasks/bunsetsu_training.h"

#include <memory>

#include "conjunct/tasks/sassano.h"
#include "conjunct/util/key_map.h"

namespace conjunct {

bool head_final_projective(const int32_t* heads, size_t n) {
  if (n == 0 || heads[n - 1] != -1) return false;
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t h = heads[i];
    if (h <= static_cast<int64_t>(i) || h >= static_cast<int64_t>(n)) return false;
    for (int64_t k = static_cast<int64_t>(i) + 1; k < h; ++k)
      if (heads[k] > h) return false;
  }
  return true;
}

BunsetsuExamples bunsetsu_examples(const FeatureSpec& spec, const BunsetsuTokens& tokens, const int64_t* sentence_ptr,
                                   size_t n_sentences, const int32_t* gold) {
  const int64_t n_tokens = tokens.bunsetsu_ptr[sentence_ptr[n_sentences]];
  std::vector<AttributeVocab> vocabs = BunsetsuFeaturizer::training_vocabs(spec, tokens, n_tokens);
  // Every value of the training tokens is in the vocabularies, so every
  // feature has a key; the table maps none to an id yet.
  const auto tables = std::make_shared<const FeatureTables>(spec, vocabs, nullptr, nullptr, 0);
  const BunsetsuFeaturizer features(tables);
  const FeatureKeys& fk = tables->keys();

  BunsetsuExamples ex;
  KeyMap ids;                      // key -> feature id, in order of first occurrence
  std::vector<int64_t> key_of;     // feature id -> key
  std::vector<int64_t> last_row;   // feature id -> the last decision it was added to
  BunsetsuFeaturizer::Sentence s;
  std::vector<int64_t> keys;
  std::vector<int32_t> heads, stack;
  auto ask = [&](size_t i, size_t j, bool answer) {
    features.pair_keys(s, i, j, heads.data(), keys);
    const int64_t row = static_cast<int64_t>(ex.labels.size());
    for (const int64_t key : keys) {
      const int32_t id = ids.intern(key);
      if (static_cast<size_t>(id) == key_of.size()) {
        key_of.push_back(key);
        last_row.push_back(-1);
        ex.counts.push_back(0);
      }
      if (last_row[id] == row) continue;  // a feature once per decision, where it first occurs
      last_row[id] = row;
      ++ex.counts[id];
      ex.indices.push_back(id);
    }
    ex.indptr.push_back(static_cast<int64_t>(ex.indices.size()));
    ex.labels.push_back(answer ? 1 : -1);
    return answer;
  };
  for (size_t q = 0; q < n_sentences; ++q) {
    const int64_t b = sentence_ptr[q], e = sentence_ptr[q + 1];
    const size_t n = static_cast<size_t>(e - b);
    const int32_t* g = gold + b;
    if (!head_final_projective(g, n)) {
      ++ex.skipped;
      continue;
    }
    if (n < 2) continue;
    features.prepare_keys(tokens, b, e, s);
    heads.assign(n, -1);
    // Sassano's algorithm asking the gold tree (the loop sassano_parse runs): when
    // (i, j) is asked, every bunsetsu between them has its head.
    sassano_loop(n, heads.data(), stack, [&](size_t i, size_t j) { return ask(i, j, g[i] == static_cast<int32_t>(j)); });
  }

  // Each feature's template and codes, its name, and the vocabularies
  // renumbered in order of first use by feature id.
  constexpr size_t P = FeatureSpec::kMaxParts;
  const size_t n_features = key_of.size();
  ex.template_of.resize(n_features);
  ex.codes.resize(n_features * P);
  ex.names.reserve(n_features);
  ex.vocabs.assign(spec.n_attributes(), {});
  std::vector<std::vector<int32_t>> renumber(spec.n_attributes());
  for (size_t a = 0; a < spec.n_attributes(); ++a) renumber[a].assign(vocabs[a].size(), -1);
  for (size_t f = 0; f < n_features; ++f) {
    int32_t* c = ex.codes.data() + f * P;
    const size_t t = fk.decode(key_of[f], c);
    ex.template_of[f] = static_cast<int32_t>(t);
    ex.names.push_back(spec.name(t, c, vocabs));
    const FeatureTemplate& tp = spec.templ(t);
    for (size_t p = 0; p < tp.parts.size(); ++p) {
      const int32_t a = tp.parts[p].attribute;
      if (a == SpecPart::kFlag) continue;
      int32_t& to = renumber[a][c[p]];
      if (to < 0) {
        to = static_cast<int32_t>(ex.vocabs[a].size());
        ex.vocabs[a].emplace_back(vocabs[a].value(c[p]));
      }
      c[p] = to;
    }
  }
  return ex;
}

}  // namespace conjunct
