// The Japanese text pipeline after the segmenter in one call per batch: words
// in (from the segmenter's cuts or given), tags, bunsetsu and heads out as
// arrays, every stage in C++ without the GIL.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "common.h"
#include "compiled.h"
#include "conjunct/tasks/japanese_pipeline.h"
#include "featurize.h"

namespace conjunct::py {

const ChainModel& chain_model_of(nb::handle model);
std::shared_ptr<const BoundaryFeaturizer> boundary_featurizer_of(nb::handle features);

namespace {

struct PyJapanesePipeline {
  JapaneseStages stages;
  std::vector<nb::object> held;  // the Python objects whose C++ parts the stages use
};

void init(PyJapanesePipeline* self, nb::object tag_features, nb::object chain, const std::string& method,
          size_t beam_width, const std::vector<std::string>& tag_xpos, std::shared_ptr<FeatureTables> chunk_tables,
          const std::vector<std::string>& chunk_classes, const CompiledClassifier& chunk_classifier,
          bool chunk_early_exit, std::shared_ptr<FeatureTables> parser_tables,
          const CompiledClassifier& parser_classifier, int64_t depends, bool parser_early_exit,
          nb::object segment_features, const CompiledClassifier* segment_classifier,
          const std::vector<std::string>& segment_classes, bool segment_early_exit) {
  // Built aside and moved into place at the end: a refusal midway leaves nothing half made.
  PyJapanesePipeline made;
  JapaneseStages& st = made.stages;
  try {
    st.tag_features = &nb::cast<const TokenFeatures&>(tag_features);
  } catch (const nb::cast_error&) {
    throw nb::type_error("tag_features must be a _core.TokenFeatures");
  }
  st.chain = &chain_model_of(chain);
  if (st.tag_features->tables().size() != st.chain->weights.n_features())
    throw nb::value_error("the tagger's feature tables and weights have different numbers of features");
  if (tag_xpos.size() != st.chain->n_labels()) throw nb::value_error("one XPOS per tagger label is needed");
  st.method = value_errors([&] { return parse_method(method); });
  if (beam_width < 1) throw nb::value_error("beam_width must be positive");
  st.beam_width = beam_width;
  st.tag_xpos = tag_xpos;
  st.chunk_clf = &chunk_classifier.classifier();
  st.chunk_decision = chunk_classifier.decision;
  if (chunk_classes.size() != chunk_classifier.n_classes())
    throw nb::value_error("one chunk class name per class of the chunk classifier is needed");
  st.chunk_early_exit = chunk_early_exit;
  st.chunk = value_errors([&] { return std::make_shared<const ChunkFeaturizer>(std::move(chunk_tables), chunk_classes); });
  for (const std::string& c : chunk_classes) st.chunk_starts.push_back(!c.empty() && c[0] == 'B');
  st.parser = value_errors([&] { return std::make_shared<const BunsetsuFeaturizer>(std::move(parser_tables)); });
  st.judge.clf = &parser_classifier.classifier();
  st.judge.decision = parser_classifier.decision;
  st.judge.depends = depends;
  st.judge.early_exit = parser_early_exit;
  made.held = {tag_features, chain, nb::find(&chunk_classifier), nb::find(&parser_classifier)};
  if (!segment_features.is_none()) {
    if (segment_classifier == nullptr) throw nb::value_error("the segmenter's features need its classifier");
    JapaneseSegmenter& seg = st.segmenter;
    seg.features = boundary_featurizer_of(segment_features);
    if (seg.features->has_piece_features()) throw nb::value_error("the segmenter's features read whitespace pieces");
    seg.clf = &segment_classifier->classifier();
    seg.decision = segment_classifier->decision;
    if (segment_classes.size() != segment_classifier->n_classes())
      throw nb::value_error("one segmenter class name per class of its classifier is needed");
    seg.early_exit = segment_early_exit;
    const auto cut = std::find(segment_classes.begin(), segment_classes.end(), "1");
    if (cut == segment_classes.end()) throw nb::value_error("the segmenter has no class '1' (a word ends here)");
    seg.cut_class = cut - segment_classes.begin();
    made.held.push_back(segment_features);
    made.held.push_back(nb::find(segment_classifier));
  }
  new (self) PyJapanesePipeline(std::move(made));
}

// Python strings of the words (flat), made once the GIL is back.
nb::list word_strings(const char* text, const std::vector<int64_t>& offsets) {
  nb::list out;
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    PyObject* s = PyUnicode_DecodeUTF8(text + offsets[i], static_cast<Py_ssize_t>(offsets[i + 1] - offsets[i]),
                                       "surrogatepass");
    if (s == nullptr) throw nb::python_error();
    out.append(nb::steal(s));
  }
  return out;
}

nb::tuple analyze(const PyJapanesePipeline& self, const TokenBatch& words, const std::vector<int64_t>& offsets,
                  int n_threads) {
  JapaneseAnalysis out;
  {
    nb::gil_scoped_release release;
    analyze_japanese(self.stages, words, out, n_threads);
  }
  std::vector<int64_t> sent_ptr(words.sent_ptr, words.sent_ptr + words.n_sentences + 1);
  return nb::make_tuple(word_strings(words.text, offsets), to_numpy(std::move(sent_ptr)), to_numpy(std::move(out.tags)),
                        to_numpy(std::move(out.bunsetsu)), to_numpy(std::move(out.heads)),
                        to_numpy(std::move(out.bunsetsu_ptr)));
}

void check_ptr(const Array1<int64_t>& ptr, int64_t end, const char* what) {
  const int64_t* p = ptr.data();
  if (ptr.size() == 0 || p[0] != 0 || p[ptr.size() - 1] != end)
    throw nb::value_error((std::string(what) + " must run from 0 to " + std::to_string(end)).c_str());
  for (size_t k = 1; k < ptr.size(); ++k)
    if (p[k] < p[k - 1]) throw nb::value_error((std::string(what) + " decrease").c_str());
}

}  // namespace

void bind_task_japanese(nb::module_& m) {
  nb::class_<PyJapanesePipeline>(m, "JapanesePipeline",
                                 "The Japanese text pipeline's stages after the segmenter (tagger, bunsetsu chunker, "
                                 "bunsetsu parser), run in one call per batch.")
      .def("__init__", &init, nb::arg("tag_features"), nb::arg("chain"), nb::arg("method"), nb::arg("beam_width"),
           nb::arg("tag_xpos"), nb::arg("chunk_tables"), nb::arg("chunk_classes"), nb::arg("chunk_classifier"),
           nb::arg("chunk_early_exit"), nb::arg("parser_tables"), nb::arg("parser_classifier"), nb::arg("depends"),
           nb::arg("parser_early_exit"), nb::arg("segment_features") = nb::none(),
           nb::arg("segment_classifier").none() = nb::none(), nb::arg("segment_classes") = std::vector<std::string>(),
           nb::arg("segment_early_exit") = true)
      .def(
          "analyze_words",
          [](const PyJapanesePipeline& self, const Array1<uint8_t>& text, const Array1<int64_t>& offsets,
             const Array1<int64_t>& sent_ptr, int n_threads) {
            const TokenBatch words = token_batch(text, offsets, sent_ptr);
            return analyze(self, words, std::vector<int64_t>(offsets.data(), offsets.data() + offsets.size()), n_threads);
          },
          nb::arg("text"), nb::arg("offsets"), nb::arg("sent_ptr"), nb::arg("n_threads") = 1,
          "Sentences of words text[offsets[i]:offsets[i + 1]] (UTF-8; sentence s is words [sent_ptr[s],\n"
          "sent_ptr[s + 1])): (words, sent_ptr, tag ids, bunsetsu of each word, heads, bunsetsu offsets).")
      .def(
          "analyze_pieces",
          [](const PyJapanesePipeline& self, const nb::bytes& text, const Array1<int64_t>& piece_offsets,
             const Array1<int64_t>& piece_ptr, int n_threads) {
            if (!self.stages.segmenter.features) throw nb::value_error("this pipeline was built without its segmenter");
            const size_t n_pieces = piece_offsets.size() - (piece_offsets.size() > 0);
            check_ptr(piece_offsets, static_cast<int64_t>(text.size()), "piece offsets");
            check_ptr(piece_ptr, static_cast<int64_t>(n_pieces), "piece sentence offsets");
            const char* data = text.c_str();
            std::vector<int64_t> offsets, sent_ptr;
            {
              nb::gil_scoped_release release;
              value_errors([&] {
                segment_pieces(self.stages.segmenter, data, piece_offsets.data(), n_pieces, piece_ptr.data(),
                               piece_ptr.size() - 1, offsets, sent_ptr, n_threads);
                return 0;
              });
            }
            const TokenBatch words{data, offsets.data(), offsets.size() - 1, sent_ptr.data(), sent_ptr.size() - 1};
            return analyze(self, words, offsets, n_threads);
          },
          nb::arg("text"), nb::arg("piece_offsets"), nb::arg("piece_ptr"), nb::arg("n_threads") = 1,
          "Every stage from raw text: pieces text[piece_offsets[p]:piece_offsets[p + 1]] (UTF-8, no whitespace),\n"
          "the pieces of sentence s (piece_ptr[s]:piece_ptr[s + 1]); the segmenter cuts each piece into words.");
}

}  // namespace conjunct::py
