// YamCha-style chunking: a batch of sentences (their words and POS tags read
// in C++, or flat buffers) through the chunk features of the feature engine
// and the left-to-right loop, in one call without the GIL.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "common.h"
#include "compiled.h"
#include "conjunct/tasks/chunk_features.h"
#include "conjunct/tasks/yamcha_chunk.h"

namespace conjunct::py {

namespace {

struct PyChunkFeatures {
  std::shared_ptr<const ChunkFeaturizer> impl;
};

// Words and tags of many sentences: two field offsets per token, and sentence token offsets.
struct ChunkInput {
  std::string text;
  std::vector<int64_t> field_ptr{0}, sentence_ptr{0};
  ChunkTokens tokens() const { return ChunkTokens{text.data(), field_ptr.data()}; }
};

// The items of a list or tuple (borrowed); false for anything else.
bool items(PyObject* seq, Py_ssize_t& n, PyObject* const*& out) {
  if (PyList_Check(seq)) {
    n = PyList_GET_SIZE(seq);
    out = reinterpret_cast<PyListObject*>(seq)->ob_item;
    return true;
  }
  if (PyTuple_Check(seq)) {
    n = PyTuple_GET_SIZE(seq);
    out = reinterpret_cast<PyTupleObject*>(seq)->ob_item;
    return true;
  }
  return false;
}

// Sentences as lists of (word, POS, ...) tuples, read through the C API.
ChunkInput from_sentences(nb::handle sentences) {
  ChunkInput in;
  Py_ssize_t n_sent;
  PyObject* const* sents;
  if (!items(sentences.ptr(), n_sent, sents)) throw nb::type_error("sentences must be a list or tuple");
  for (Py_ssize_t s = 0; s < n_sent; ++s) {
    Py_ssize_t n_tok;
    PyObject* const* toks;
    if (!items(sents[s], n_tok, toks)) throw nb::type_error(("sentence " + std::to_string(s + 1) + " is not a list or tuple").c_str());
    for (Py_ssize_t t = 0; t < n_tok; ++t) {
      Py_ssize_t n_f;
      PyObject* const* fields;
      if (!items(toks[t], n_f, fields) || n_f < 2)
        throw nb::type_error(("sentence " + std::to_string(s + 1) + ": a token is not a (word, POS) tuple").c_str());
      for (int f = 0; f < 2; ++f) {
        if (!PyUnicode_Check(fields[f]))
          throw nb::type_error(("sentence " + std::to_string(s + 1) + ": a token's word or POS is not a string").c_str());
        Py_ssize_t len;
        const char* utf8 = PyUnicode_AsUTF8AndSize(fields[f], &len);
        if (utf8 == nullptr) throw nb::python_error();
        in.text.append(utf8, static_cast<size_t>(len));
        in.field_ptr.push_back(static_cast<int64_t>(in.text.size()));
      }
    }
    in.sentence_ptr.push_back(in.sentence_ptr.back() + n_tok);
  }
  return in;
}

nb::tuple run(const ChunkFeaturizer& f, const Classifier& clf, const Decision& decision, bool early_exit,
              const ChunkInput& in, bool timing, bool collect) {
  const size_t n_tokens = static_cast<size_t>(in.sentence_ptr.back());
  std::vector<int32_t> labels(n_tokens, -1);
  std::vector<int64_t> ev_ptr{0};
  std::vector<int32_t> ev;
  ChunkStats stats;
  double total;
  {
    nb::gil_scoped_release release;
    const auto start = std::chrono::steady_clock::now();
    const ChunkTokens tokens = in.tokens();
    std::vector<int64_t> indptr;
    std::vector<int32_t> ids;
    for (size_t k = 0; k + 1 < in.sentence_ptr.size(); ++k) {
      const int64_t b = in.sentence_ptr[k], e = in.sentence_ptr[k + 1];
      indptr.assign(1, 0);
      ids.clear();
      f.sentence(tokens, b, e, indptr, ids);
      ChunkSentenceView s;
      s.tokens = CsrView{Span<int64_t>(indptr.data(), indptr.size()), Span<int32_t>(ids.data(), ids.size())};
      s.prev1 = Span<int32_t>(f.prev1().data(), f.prev1().size());
      s.prev2 = Span<int32_t>(f.prev2().data(), f.prev2().size());
      yamcha_chunk(clf, decision, early_exit, s, labels.data() + b, stats, timing, collect ? &ev_ptr : nullptr,
                   collect ? &ev : nullptr);
    }
    total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return nb::make_tuple(to_numpy(std::move(labels)), stats.decisions, stats.classifier_seconds, total,
                        collected(collect, std::move(ev_ptr), std::move(ev)),
                        to_numpy(std::vector<int64_t>(in.sentence_ptr)));
}

}  // namespace

void bind_task_chunk(nb::module_& m) {
  nb::class_<PyChunkFeatures>(m, "ChunkFeatures", "The chunk templates of a model's feature tables, built in C++ from tokens.")
      .def(
          "__init__",
          [](PyChunkFeatures* self, std::shared_ptr<FeatureTables> tables, const std::vector<std::string>& classes) {
            try {
              new (self) PyChunkFeatures{std::make_shared<const ChunkFeaturizer>(std::move(tables), classes)};
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("tables"), nb::arg("classes"))
      .def(
          "chunk",
          [](const PyChunkFeatures& self, const CompiledClassifier& classifier, bool early_exit, nb::handle sentences,
             bool timing, bool collect) {
            if (self.impl->prev1().size() != classifier.n_classes() + 1)
              throw nb::value_error("the chunk features were built for another number of classes");
            return run(*self.impl, classifier.classifier(), classifier.decision, early_exit, from_sentences(sentences),
                       timing, collect);
          },
          nb::arg("classifier"), nb::arg("early_exit"), nb::arg("sentences"),
          nb::arg("timing") = false, nb::arg("collect") = false,
          "YamCha-style left-to-right chunking of sentences of (word, POS, ...) tuples: (class indices, decisions,\n"
          "classifier seconds, total seconds, events, sentence offsets).")
      .def(
          "static_features",
          [](const PyChunkFeatures& self, nb::handle sentences) {
            const ChunkInput in = from_sentences(sentences);
            std::vector<int64_t> indptr{0};
            std::vector<int32_t> ids;
            {
              nb::gil_scoped_release release;
              for (size_t k = 0; k + 1 < in.sentence_ptr.size(); ++k)
                self.impl->sentence(in.tokens(), in.sentence_ptr[k], in.sentence_ptr[k + 1], indptr, ids);
            }
            return nb::make_tuple(to_numpy(std::move(indptr)), to_numpy(std::move(ids)));
          },
          nb::arg("sentences"), "The static feature ids of every token: (indptr, ids).")
      .def(
          "dynamic_ids",
          [](const PyChunkFeatures& self) {
            return nb::make_tuple(to_numpy(std::vector<int32_t>(self.impl->prev1())),
                                  to_numpy(std::vector<int32_t>(self.impl->prev2())));
          },
          "The ids of the previous decisions' features, per class and BOS last: (tag at -1, tag at -2).");
}

}  // namespace conjunct::py
