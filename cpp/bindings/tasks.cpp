#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <memory>
#include <stdexcept>

#include "common.h"
#include "conjunct/tasks/sassano.h"

namespace conjunct::py {

// Defined in classify.cpp: the C++ classifier behind a compiled Python handle.
const Classifier& classifier_of(nb::handle compiled);

namespace {

// A model's feature strings (the feature index's names blob and offsets) as a
// C++ vocabulary, checked.
FeatureVocab vocab_from(const Array1<uint8_t>& names_blob, const Array1<int64_t>& names_offsets) {
  if (names_offsets.size() == 0) throw nb::value_error("feature name offsets are empty");
  try {
    return FeatureVocab(reinterpret_cast<const char*>(names_blob.data()), names_blob.size(), names_offsets.data(),
                        names_offsets.size() - 1);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

// The token fields and bunsetsu offsets of one call, checked before the loop reads them.
struct TokenInput {
  TokenField fields;
  BunsetsuTokens tokens;
  size_t n_bunsetsu;
  TokenInput(const nb::bytes& f, const Array1<int64_t>& bunsetsu_ptr, const Array1<int64_t>& sentence_ptr)
      : fields(values(f, bunsetsu_ptr)) {
    const int64_t* bp = bunsetsu_ptr.data();
    n_bunsetsu = bunsetsu_ptr.size() - 1;
    if (bp[0] != 0) throw nb::value_error("bunsetsu token offsets must start at 0");
    for (size_t k = 0; k < n_bunsetsu; ++k)
      if (bp[k + 1] <= bp[k]) throw nb::value_error("a bunsetsu has no tokens (bunsetsu token offsets must increase)");
    check_sentence_offsets(sentence_ptr, n_bunsetsu, "bunsetsu");
    tokens = BunsetsuTokens{&fields, bp};
  }
  // Three values (form, lemma, XPOS) per token of the bunsetsu.
  static TokenField values(const nb::bytes& b, const Array1<int64_t>& bunsetsu_ptr) {
    if (bunsetsu_ptr.size() == 0) throw nb::value_error("bunsetsu token offsets are empty");
    const int64_t n = bunsetsu_ptr.data()[bunsetsu_ptr.size() - 1];
    if (n < 0) throw nb::value_error("bunsetsu token offsets are negative");
    try {
      return TokenField(b.c_str(), b.size(), 3 * static_cast<size_t>(n));
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }
};

struct PyBunsetsuFeatures {
  std::shared_ptr<const BunsetsuFeaturizer> impl;
};

// Runs Sassano's loop over every sentence; judge.gold, when set, holds every bunsetsu's gold head.
nb::tuple run(const BunsetsuFeaturizer& f, SassanoJudge judge, const TokenInput& in, const Array1<int64_t>& sentence_ptr,
              bool timing, bool collect, bool labels_too) {
  std::vector<int32_t> heads(in.n_bunsetsu, -1);
  std::vector<int64_t> ev_ptr{0};
  std::vector<int32_t> ev;
  std::vector<int8_t> labels;
  ParseStats stats;
  const int32_t* gold = judge.gold;
  const double total = for_each_sentence(sentence_ptr, [&](int64_t b, int64_t e) {
    SassanoJudge j = judge;
    if (gold != nullptr) j.gold = gold + b;
    sassano_parse(f, j, in.tokens, b, e, heads.data() + b, stats, timing, collect ? &ev_ptr : nullptr,
                  collect ? &ev : nullptr, labels_too ? &labels : nullptr);
  });
  nb::object lab = labels_too ? nb::cast(to_numpy(std::move(labels))) : nb::none();
  return nb::make_tuple(to_numpy(std::move(heads)), stats.decisions, stats.classifier_seconds, total,
                        collected(collect, std::move(ev_ptr), std::move(ev)), lab);
}

}  // namespace

void bind_tasks(nb::module_& m) {
  nb::class_<PyBunsetsuFeatures>(m, "BunsetsuFeatures",
                                 "The bunsetsu pair templates over a model's feature strings, built in C++ from tokens.")
      .def(
          "__init__",
          [](PyBunsetsuFeatures* self, const Array1<uint8_t>& names_blob, const Array1<int64_t>& names_offsets,
             uint32_t groups) {
            FeatureVocab vocab = vocab_from(names_blob, names_offsets);
            try {
              new (self) PyBunsetsuFeatures{std::make_shared<const BunsetsuFeaturizer>(std::move(vocab), groups)};
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("names_blob"), nb::arg("names_offsets"), nb::arg("groups"))
      .def(
          "parse",
          [](const PyBunsetsuFeatures& self, nb::handle classifier, const std::string& rule, size_t n_classes,
             int64_t depends, bool early_exit, const nb::bytes& fields, const Array1<int64_t>& bunsetsu_ptr, const Array1<int64_t>& sentence_ptr, bool timing, bool collect) {
            SassanoJudge judge;
            judge.clf = &classifier_of(classifier);
            judge.decision = checked_decision(rule, n_classes, judge.clf->n_outputs());
            judge.depends = depends;
            judge.early_exit = early_exit;
            const TokenInput in(fields, bunsetsu_ptr, sentence_ptr);
            return run(*self.impl, judge, in, sentence_ptr, timing, collect, false);
          },
          nb::arg("classifier"), nb::arg("rule"), nb::arg("n_classes"), nb::arg("depends"), nb::arg("early_exit"),
          nb::arg("fields"), nb::arg("bunsetsu_ptr"), nb::arg("sentence_ptr"),
          nb::arg("timing") = false, nb::arg("collect") = false,
          "Sassano's parser over many sentences' tokens: (heads, decisions, classifier seconds, total seconds, events, None).")
      .def(
          "oracle",
          [](const PyBunsetsuFeatures& self, const nb::bytes& fields, const Array1<int64_t>& bunsetsu_ptr, const Array1<int64_t>& sentence_ptr, const Array1<int32_t>& gold) {
            const TokenInput in(fields, bunsetsu_ptr, sentence_ptr);
            if (gold.size() != in.n_bunsetsu) throw nb::value_error("one gold head per bunsetsu is needed");
            SassanoJudge judge;
            judge.gold = gold.data();
            return run(*self.impl, judge, in, sentence_ptr, false, true, true);
          },
          nb::arg("fields"), nb::arg("bunsetsu_ptr"), nb::arg("sentence_ptr"),
          nb::arg("gold"),
          "The decisions Sassano's algorithm asks on gold heads: (heads, decisions, 0, seconds, (indptr, columns), labels).")
      .def_prop_ro("groups", [](const PyBunsetsuFeatures& self) { return self.impl->groups(); })
      .def_prop_ro("n_features", [](const PyBunsetsuFeatures& self) { return self.impl->vocab().size(); });
}

}  // namespace conjunct::py
