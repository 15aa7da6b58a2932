// The feature engine's pieces on their own: attribute vocabularies, the
// template spec and its names, integer keys and the key table.
#include <string>
#include <vector>

#include "check.h"
#include "conjunct/features/feature_tables.h"

using namespace conjunct;

namespace {

AttributeVocab vocab(const std::vector<std::string>& values) {
  std::string blob;
  std::vector<int64_t> offsets{0};
  for (const std::string& v : values) {
    blob += v;
    offsets.push_back(static_cast<int64_t>(blob.size()));
  }
  return AttributeVocab(blob.data(), blob.size(), offsets.data(), values.size());
}

FeatureSpec spec() {
  // form at t0; form at t-1 with POS at t0; a flag at "first"; form at t+1 with a fallback.
  return FeatureSpec({"form", "pos"}, {"t-1", "t0", "t+1", "first"},
                     {{"w", {{0, 1, "", false}}},
                      {"pair", {{0, 0, "", false}, {1, 1, "", false}}},
                      {"bos", {{SpecPart::kFlag, 3, "", false}}},
                      {"nx", {{0, 2, "-", true}}}});
}

}  // namespace

int main() {
  // Vocabularies: codes are indices; unknown values are -1; repeats are refused.
  const AttributeVocab forms = vocab({"dog", "犬", "", "-", "the"});
  CHECK(forms.size() == 5 && forms.find("犬") == 1 && forms.find("") == 2 && forms.find("cat") == -1);
  CHECK(forms.value(4) == "the");
  CHECK(throws([] { vocab({"a", "b", "a"}); }, "appears twice"));
  CHECK(vocab({}).find("a") == -1);
  {  // the staged look-up of many values equals one find each (more values than one stage)
    std::vector<std::string> held, asked;
    for (int k = 0; k < 100; ++k) held.push_back("v" + std::to_string(k));
    const AttributeVocab big = vocab(held);
    for (int k = 0; k < 90; ++k) asked.push_back(k % 3 ? "v" + std::to_string(k * 7 % 130) : "x" + std::to_string(k));
    std::vector<std::string_view> views(asked.begin(), asked.end());
    std::vector<int32_t> got(views.size(), -7);
    big.find_many(views.data(), views.size(), got.data());
    for (size_t k = 0; k < views.size(); ++k) CHECK(got[k] == big.find(views[k]));
    CHECK(got[1] == 7 && got[0] == -1);
    vocab({}).find_many(views.data(), 3, got.data());
    CHECK(got[0] == -1 && got[1] == -1 && got[2] == -1);
  }

  // Names from the spec.
  const FeatureSpec s = spec();
  const std::vector<AttributeVocab> vocabs{forms, vocab({"N", "V"})};
  const int32_t pair_codes[2] = {4, 1};
  CHECK(s.name(1, pair_codes, vocabs) == "pair=the|V");
  const int32_t flag[1] = {0};
  CHECK(s.name(2, flag, vocabs) == "bos");
  CHECK(throws([] { FeatureSpec({}, {"p"}, {{"a|b", {{SpecPart::kFlag, 0, "", false}}}}); }, "may not hold '|'"));
  CHECK(throws([] { FeatureSpec({"f"}, {"p"}, {{"a", {{0, 0, "", false}}}, {"a=b", {{SpecPart::kFlag, 0, "", false}}}}); },
               "reads as a value"));
  CHECK(throws([] { FeatureSpec({"f"}, {"p"}, {{"a", {{1, 0, "", false}}}}); }, "attribute 1 out of range"));
  CHECK(throws([] { FeatureSpec({"f"}, {"p"}, {{"a", {}}}); }, "1 to 3 parts"));

  // Keys: every feature found by its template and codes, nothing else.
  const int32_t tmpl[5] = {0, 0, 1, 2, 3};
  const int32_t codes[15] = {0, -1, -1, 1, -1, -1, 4, 0, -1, 0, -1, -1, 3, -1, -1};
  const FeatureTables tables(spec(), vocabs, tmpl, codes, 5);
  const FeatureKeys& keys = tables.keys();
  for (int32_t f = 0; f < 5; ++f) CHECK(keys.find(keys.key(tmpl[f], codes + 3 * f)) == f);
  const int32_t other[2] = {4, 1};
  CHECK(keys.find(keys.key(1, other)) == -1);
  const int32_t form0[1] = {0};
  CHECK(keys.find(keys.key(3, form0)) == -1);  // the same code under another template
  CHECK(tables.name(2) == "pair=the|N" && tables.name(4) == "nx=-");
  CHECK(tables.fallback(3, 0) == 3 && tables.fallback(0, 0) == -1);
  int64_t many[3] = {keys.key(0, form0), keys.key(1, other), keys.key(2, flag)};
  int32_t found[3];
  keys.find_many(many, 3, found);
  CHECK(found[0] == 0 && found[1] == -1 && found[2] == 3);

  // Bad keys are refused naming the feature.
  const int32_t twice[5] = {0, 0, 1, 2, 3};
  int32_t dup[15];
  std::copy(codes, codes + 15, dup);
  dup[3] = 0;
  CHECK(throws([&] { FeatureTables(spec(), vocabs, twice, dup, 5); }, "feature 1: its template and codes"));
  int32_t wide[15];
  std::copy(codes, codes + 15, wide);
  wide[7] = 2;  // POS has 2 values
  CHECK(throws([&] { FeatureTables(spec(), vocabs, twice, wide, 5); }, "feature 2: code 2 out of range"));
  const int32_t bad_t[1] = {4};
  CHECK(throws([&] { FeatureTables(spec(), vocabs, bad_t, codes, 1); }, "feature 0: template 4 out of range"));
  return report("feature_engine");
}
