// The bunsetsu parser: Sassano's loop over a batch of sentences in one call,
// from flat buffers or straight from the Python sentence objects.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "common.h"
#include "compiled.h"
#include "conjunct/tasks/bunsetsu_training.h"
#include "conjunct/tasks/sassano.h"

namespace conjunct::py {

namespace {

// The tokens of one call: UTF-8 text, three field offsets per token (form,
// lemma, XPOS), bunsetsu and sentence offsets; checked before the loop reads them.
struct TokenInput {
  std::string text;
  std::vector<int64_t> field_ptr, bunsetsu_ptr, sentence_ptr;
  // Fields read in place from a caller's text (kept alive by the call): base and field ends.
  const char* base = nullptr;
  std::vector<int64_t> field_end;
  BunsetsuTokens tokens() const {
    if (base != nullptr) return BunsetsuTokens{base, field_ptr.data(), bunsetsu_ptr.data(), field_end.data()};
    return BunsetsuTokens{text.data(), field_ptr.data(), bunsetsu_ptr.data()};
  }
  size_t n_bunsetsu() const { return bunsetsu_ptr.size() - 1; }

  void check() const {
    const size_t nb_ = bunsetsu_ptr.size() - 1;
    if (bunsetsu_ptr.empty() || bunsetsu_ptr[0] != 0) throw nb::value_error("bunsetsu token offsets must start at 0");
    for (size_t k = 0; k < nb_; ++k)
      if (bunsetsu_ptr[k + 1] <= bunsetsu_ptr[k])
        throw nb::value_error("a bunsetsu has no tokens (bunsetsu token offsets must increase)");
    if (field_ptr.size() != 3 * static_cast<size_t>(bunsetsu_ptr[nb_]) + 1)
      throw nb::value_error("field offsets need three entries per token, plus one");
    if (field_ptr[0] != 0 || field_ptr.back() != static_cast<int64_t>(text.size()))
      throw nb::value_error("field offsets do not cover the text");
    for (size_t k = 1; k < field_ptr.size(); ++k)
      if (field_ptr[k] < field_ptr[k - 1]) throw nb::value_error("field offsets decrease");
    if (sentence_ptr.empty() || sentence_ptr[0] != 0 || static_cast<size_t>(sentence_ptr.back()) != nb_)
      throw nb::value_error("sentence offsets do not cover the bunsetsu");
    for (size_t k = 1; k < sentence_ptr.size(); ++k)
      if (sentence_ptr[k] < sentence_ptr[k - 1]) throw nb::value_error("sentence offsets decrease");
  }
};

TokenInput from_buffers(const nb::bytes& text, const Array1<int64_t>& field_ptr, const Array1<int64_t>& bunsetsu_ptr,
                        const Array1<int64_t>& sentence_ptr) {
  TokenInput in;
  in.text.assign(text.c_str(), text.size());
  in.field_ptr.assign(field_ptr.data(), field_ptr.data() + field_ptr.size());
  in.bunsetsu_ptr.assign(bunsetsu_ptr.data(), bunsetsu_ptr.data() + bunsetsu_ptr.size());
  in.sentence_ptr.assign(sentence_ptr.data(), sentence_ptr.data() + sentence_ptr.size());
  in.check();
  return in;
}

// The flat buffers of BunsetsuSentence objects, read in C++ (attribute reads
// through the C API, no Python code per token).
TokenInput from_sentences(nb::handle sentences) {
  static PyObject* s_bunsetsu = PyUnicode_InternFromString("bunsetsu");
  static PyObject* s_tokens = PyUnicode_InternFromString("tokens");
  static PyObject* s_fields[3] = {PyUnicode_InternFromString("form"), PyUnicode_InternFromString("lemma"),
                                  PyUnicode_InternFromString("xpos")};
  TokenInput in;
  in.field_ptr.push_back(0);
  in.bunsetsu_ptr.push_back(0);
  in.sentence_ptr.push_back(0);
  const nb::object seq = nb::steal(PySequence_Fast(sentences.ptr(), "sentences must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const Py_ssize_t n_sent = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** sents = PySequence_Fast_ITEMS(seq.ptr());
  int64_t n_tokens = 0;
  for (Py_ssize_t s = 0; s < n_sent; ++s) {
    const nb::object bl = nb::steal(PyObject_GetAttr(sents[s], s_bunsetsu));
    if (!bl.is_valid()) throw nb::python_error();
    Py_ssize_t n_b;
    PyObject* const* bs = items_of(bl.ptr(), n_b, "a sentence's bunsetsu");
    for (Py_ssize_t b = 0; b < n_b; ++b) {
      const nb::object tl = nb::steal(PyObject_GetAttr(bs[b], s_tokens));
      if (!tl.is_valid()) throw nb::python_error();
      Py_ssize_t n_t;
      PyObject* const* ts = items_of(tl.ptr(), n_t, "a bunsetsu's tokens");
      if (n_t == 0)
        throw nb::value_error(("sentence " + std::to_string(s) + ", bunsetsu " + std::to_string(b) + " has no tokens").c_str());
      for (Py_ssize_t t = 0; t < n_t; ++t) {
        for (PyObject* name : s_fields) {
          const nb::object v = nb::steal(PyObject_GetAttr(ts[t], name));
          if (!v.is_valid()) throw nb::python_error();
          if (!PyUnicode_Check(v.ptr()))
            throw nb::type_error(("sentence " + std::to_string(s) + ": a token's " + PyUnicode_AsUTF8(name) +
                                  " is not a string").c_str());
          Py_ssize_t len;
          const char* utf8 = PyUnicode_AsUTF8AndSize(v.ptr(), &len);
          if (utf8 == nullptr) throw nb::python_error();
          in.text.append(utf8, static_cast<size_t>(len));
          in.field_ptr.push_back(static_cast<int64_t>(in.text.size()));
        }
      }
      n_tokens += n_t;
      in.bunsetsu_ptr.push_back(n_tokens);
    }
    in.sentence_ptr.push_back(static_cast<int64_t>(in.bunsetsu_ptr.size() - 1));
  }
  return in;
}

// The tokens of J.DepP's input text, read by the core (read_cabocha_tokens)
// in place: `text` must outlive the input.
TokenInput from_cabocha_text(const char* text, size_t size) {
  TokenInput in;
  in.base = text;
  read_cabocha_tokens(text, size, in.field_ptr, in.field_end, in.bunsetsu_ptr, in.sentence_ptr);
  return in;
}

struct PyBunsetsuFeatures {
  std::shared_ptr<const BunsetsuFeaturizer> impl;
};

// Runs Sassano's loop over every sentence; judge.gold, when set, holds every bunsetsu's gold head.
nb::tuple run(const BunsetsuFeaturizer& f, SassanoJudge judge, const TokenInput& in, bool timing, bool collect,
              bool labels_too) {
  std::vector<int32_t> heads(in.n_bunsetsu(), -1);
  std::vector<int64_t> ev_ptr{0};
  std::vector<int32_t> ev;
  std::vector<int8_t> labels;
  ParseStats stats;
  const int32_t* gold = judge.gold;
  const BunsetsuTokens tokens = in.tokens();
  double total;
  {
    nb::gil_scoped_release release;
    const auto start = std::chrono::steady_clock::now();
    for (size_t k = 0; k + 1 < in.sentence_ptr.size(); ++k) {
      const int64_t b = in.sentence_ptr[k], e = in.sentence_ptr[k + 1];
      SassanoJudge j = judge;
      if (gold != nullptr) j.gold = gold + b;
      sassano_parse(f, j, tokens, b, e, heads.data() + b, stats, timing, collect ? &ev_ptr : nullptr,
                    collect ? &ev : nullptr, labels_too ? &labels : nullptr);
    }
    total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  nb::object lab = labels_too ? nb::cast(to_numpy(std::move(labels))) : nb::none();
  return nb::make_tuple(to_numpy(std::move(heads)), stats.decisions, stats.classifier_seconds, total,
                        collected(collect, std::move(ev_ptr), std::move(ev)), lab, to_numpy(std::vector<int64_t>(in.sentence_ptr)));
}

SassanoJudge judge_of(const CompiledClassifier& classifier, int64_t depends, bool early_exit) {
  SassanoJudge judge;
  judge.clf = &classifier.classifier();
  judge.decision = classifier.decision;
  judge.depends = depends;
  judge.early_exit = early_exit;
  return judge;
}

}  // namespace

void bind_tasks(nb::module_& m) {
  nb::class_<PyBunsetsuFeatures>(m, "BunsetsuFeatures",
                                 "The bunsetsu pair templates of a model's feature tables, built in C++ from tokens.")
      .def(
          "__init__",
          [](PyBunsetsuFeatures* self, std::shared_ptr<FeatureTables> tables) {
            try {
              new (self) PyBunsetsuFeatures{std::make_shared<const BunsetsuFeaturizer>(std::move(tables))};
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("tables"))
      .def(
          "parse",
          [](const PyBunsetsuFeatures& self, const CompiledClassifier& classifier,
             int64_t depends, bool early_exit, nb::handle sentences, bool timing, bool collect) {
            const SassanoJudge judge = judge_of(classifier, depends, early_exit);
            const TokenInput in = from_sentences(sentences);
            return run(*self.impl, judge, in, timing, collect, false);
          },
          nb::arg("classifier"), nb::arg("depends"), nb::arg("early_exit"),
          nb::arg("sentences"), nb::arg("timing") = false, nb::arg("collect") = false,
          "Sassano's parser over BunsetsuSentence objects (their tokens' form, lemma and xpos read in C++):\n"
          "(heads, decisions, classifier seconds, loop seconds, events, None, sentence offsets).")
      .def(
          "parse_buffers",
          [](const PyBunsetsuFeatures& self, const CompiledClassifier& classifier,
             int64_t depends, bool early_exit, const nb::bytes& text, const Array1<int64_t>& field_ptr,
             const Array1<int64_t>& bunsetsu_ptr, const Array1<int64_t>& sentence_ptr, bool timing, bool collect) {
            const SassanoJudge judge = judge_of(classifier, depends, early_exit);
            const TokenInput in = from_buffers(text, field_ptr, bunsetsu_ptr, sentence_ptr);
            return run(*self.impl, judge, in, timing, collect, false);
          },
          nb::arg("classifier"), nb::arg("depends"), nb::arg("early_exit"),
          nb::arg("text"), nb::arg("field_ptr"), nb::arg("bunsetsu_ptr"), nb::arg("sentence_ptr"),
          nb::arg("timing") = false, nb::arg("collect") = false,
          "The same from flat buffers: UTF-8 text, 3 field offsets per token (form, lemma, XPOS) plus one,\n"
          "bunsetsu token offsets and sentence bunsetsu offsets.")
      .def(
          "parse_text",
          [](const PyBunsetsuFeatures& self, const CompiledClassifier& classifier,
             int64_t depends, bool early_exit, const nb::bytes& text, bool timing, bool collect) {
            const SassanoJudge judge = judge_of(classifier, depends, early_exit);
            TokenInput in;
            std::string error;
            {
              nb::gil_scoped_release release;
              try {
                in = from_cabocha_text(text.c_str(), text.size());
              } catch (const std::invalid_argument& e) {
                error = e.what();
              }
            }
            if (!error.empty()) throw nb::value_error(error.c_str());
            return run(*self.impl, judge, in, timing, collect, false);
          },
          nb::arg("classifier"), nb::arg("depends"), nb::arg("early_exit"),
          nb::arg("text"), nb::arg("timing") = false, nb::arg("collect") = false,
          "The same from J.DepP's input text (UTF-8 bytes): '* <id> <head>D' bunsetsu lines, token lines\n"
          "'<surface>\\t*,*,*,<XPOS>,*,<INFL>' and an EOS line per sentence; the heads given are not read.")
      .def(
          "oracle",
          [](const PyBunsetsuFeatures& self, nb::handle sentences, const Array1<int32_t>& gold) {
            const TokenInput in = from_sentences(sentences);
            if (gold.size() != in.n_bunsetsu()) throw nb::value_error("one gold head per bunsetsu is needed");
            SassanoJudge judge;
            judge.gold = gold.data();
            return run(*self.impl, judge, in, false, true, true);
          },
          nb::arg("sentences"), nb::arg("gold"),
          "The decisions Sassano's algorithm asks on gold heads: (heads, decisions, 0, seconds, (indptr, ids), labels, offsets).");
  m.def(
      "bunsetsu_training_examples",
      [](const FeatureTables& templates, nb::handle sentences, const Array1<int32_t>& gold) {
        const TokenInput in = from_sentences(sentences);
        if (gold.size() != in.n_bunsetsu()) throw nb::value_error("one gold head per bunsetsu is needed");
        BunsetsuExamples ex;
        std::string error;
        {
          nb::gil_scoped_release release;
          try {
            ex = bunsetsu_examples(templates.spec(), in.tokens(), in.sentence_ptr.data(), in.sentence_ptr.size() - 1,
                                   gold.data());
          } catch (const std::invalid_argument& e) {
            error = e.what();
          }
        }
        if (!error.empty()) throw nb::value_error(error.c_str());
        const size_t n = ex.template_of.size();
        nb::ndarray<nb::numpy, int32_t> codes = to_numpy(std::move(ex.codes));
        return nb::make_tuple(to_numpy(std::move(ex.indptr)), to_numpy(std::move(ex.indices)),
                              to_numpy(std::move(ex.labels)), to_numpy(std::move(ex.counts)),
                              to_numpy(std::move(ex.template_of)), codes, ex.vocabs, ex.names, ex.skipped, n);
      },
      nb::arg("templates"), nb::arg("sentences"), nb::arg("gold"),
      "The training decisions of Sassano's algorithm on the gold heads of BunsetsuSentence objects under the\n"
      "templates' spec (their vocabularies and keys are not read): (indptr, feature ids in first-occurrence\n"
      "order, labels +1/-1, per-feature counts, template of each feature, its codes (flat, 3 per feature),\n"
      "vocabularies in first-use order, feature names, skipped sentences, number of features).");
}

}  // namespace conjunct::py
