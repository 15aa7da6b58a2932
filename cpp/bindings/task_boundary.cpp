// Character-boundary decisions (the segmenter's, the tokenizer's gaps): a
// batch of texts as UTF-8 bytes + offsets in, every decided boundary's
// position and class out, features and classifier in one call without the GIL.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "common.h"
#include "compiled.h"
#include "conjunct/classify/classifier.h"
#include "conjunct/tasks/boundary_features.h"

namespace conjunct::py {

namespace {

struct PyBoundaryFeatures {
  std::shared_ptr<const BoundaryFeaturizer> impl;
};

struct Rows {
  std::vector<int64_t> positions, text_ptr{0}, indptr{0};
  std::vector<int32_t> ids;
};

BoundaryFeaturizer::Gaps gaps_of(const std::string& gaps) {
  if (gaps == "all") return BoundaryFeaturizer::kAll;
  if (gaps == "inner") return BoundaryFeaturizer::kInner;
  throw nb::value_error("gaps must be 'all' or 'inner'");
}

// The feature rows of every decided boundary of texts [offsets[k], offsets[k + 1]) of text (GIL released).
Rows rows_of(const BoundaryFeaturizer& f, const nb::bytes& text, const Array1<int64_t>& offsets,
             BoundaryFeaturizer::Gaps gaps) {
  const int64_t* off = offsets.data();
  const size_t n = offsets.size();
  if (n == 0 || off[0] != 0 || off[n - 1] != static_cast<int64_t>(text.size()))
    throw nb::value_error("text offsets do not cover the text");
  for (size_t k = 1; k < n; ++k)
    if (off[k] < off[k - 1]) throw nb::value_error("text offsets decrease");
  Rows r;
  const char* data = text.c_str();
  size_t k = 0;
  try {
    nb::gil_scoped_release release;
    BoundaryFeaturizer::Scratch s;
    for (; k + 1 < n; ++k) {
      f.text(std::string_view(data + off[k], static_cast<size_t>(off[k + 1] - off[k])), gaps, s, r.positions,
             r.indptr, r.ids);
      r.text_ptr.push_back(static_cast<int64_t>(r.positions.size()));
    }
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(("text " + std::to_string(k + 1) + ": " + e.what()).c_str());
  }
  return r;
}

}  // namespace

std::shared_ptr<const BoundaryFeaturizer> boundary_featurizer_of(nb::handle features) {
  try {
    return nb::cast<const PyBoundaryFeatures&>(features).impl;
  } catch (const nb::cast_error&) {
    throw nb::type_error("expected boundary features (a _core.BoundaryFeatures)");
  }
}

void bind_task_boundary(nb::module_& m) {
  nb::class_<PyBoundaryFeatures>(m, "BoundaryFeatures",
                                 "The character-boundary templates of a model's feature tables, built in C++ from text.")
      .def(
          "__init__",
          [](PyBoundaryFeatures* self, std::shared_ptr<FeatureTables> tables, std::optional<nb::bytes> words,
             std::optional<Array1<int64_t>> offsets) {
            if (words.has_value() != offsets.has_value())
              throw nb::value_error("the dictionary needs both its words and their offsets");
            try {
              new (self) PyBoundaryFeatures{
                  words ? std::make_shared<const BoundaryFeaturizer>(std::move(tables), words->c_str(), words->size(),
                                                                     offsets->data(), offsets->size())
                        : std::make_shared<const BoundaryFeaturizer>(std::move(tables))};
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("tables"), nb::arg("dictionary_words") = nb::none(), nb::arg("dictionary_offsets") = nb::none(),
          "dictionary_words / dictionary_offsets: the known words of the dictionary flags (UTF-8, n + 1 offsets).")
      .def_prop_ro("has_piece_features", [](const PyBoundaryFeatures& self) { return self.impl->has_piece_features(); })
      .def(
          "features",
          [](const PyBoundaryFeatures& self, const nb::bytes& text, const Array1<int64_t>& offsets,
             const std::string& gaps) {
            Rows r = rows_of(*self.impl, text, offsets, gaps_of(gaps));
            return nb::make_tuple(to_numpy(std::move(r.positions)), to_numpy(std::move(r.text_ptr)),
                                  to_numpy(std::move(r.indptr)), to_numpy(std::move(r.ids)));
          },
          nb::arg("text"), nb::arg("offsets"), nb::arg("gaps") = "all",
          "Feature ids of every decided boundary of the texts (UTF-8 text, offsets of each text plus one):\n"
          "(positions, per-text offsets into them, indptr, ids).")
      .def(
          "classify",
          [](const PyBoundaryFeatures& self, const CompiledClassifier& classifier, bool early_exit, int n_threads,
             const nb::bytes& text, const Array1<int64_t>& offsets, const std::string& gaps, bool collect) {
            const Classifier& clf = classifier.classifier();
            const Decision& decision = classifier.decision;
            const BoundaryFeaturizer::Gaps g = gaps_of(gaps);
            const auto t0 = std::chrono::steady_clock::now();
            Rows r = rows_of(*self.impl, text, offsets, g);
            std::vector<int64_t> classes(r.positions.size());
            const auto t1 = std::chrono::steady_clock::now();
            {
              nb::gil_scoped_release release;
              const CsrView X{Span<int64_t>(r.indptr.data(), r.indptr.size()), Span<int32_t>(r.ids.data(), r.ids.size())};
              clf.predict_batch(X, decision, early_exit, classes.data(), n_threads);
            }
            const auto t2 = std::chrono::steady_clock::now();
            nb::object events = collected(collect, std::move(r.indptr), std::move(r.ids));
            return nb::make_tuple(to_numpy(std::move(r.positions)), to_numpy(std::move(r.text_ptr)),
                                  to_numpy(std::move(classes)), events,
                                  std::chrono::duration<double>(t1 - t0).count(),
                                  std::chrono::duration<double>(t2 - t1).count());
          },
          nb::arg("classifier"), nb::arg("early_exit"), nb::arg("n_threads"),
          nb::arg("text"), nb::arg("offsets"), nb::arg("gaps") = "all", nb::arg("collect") = false,
          "Class index of every decided boundary: (positions, per-text offsets into them, classes, events or None,\n"
          "feature seconds, classifier seconds).")
      .def_static(
          "char_classes",
          [](const Array1<int64_t>& codepoints) {
            std::vector<uint8_t> cls(codepoints.size()), space(codepoints.size());
            for (size_t k = 0; k < codepoints.size(); ++k) {
              const int64_t cp = codepoints.data()[k];
              if (cp < 0 || cp > 0x10FFFF) throw nb::value_error("a code point is out of range");
              cls[k] = static_cast<uint8_t>(char_class(static_cast<uint32_t>(cp)));
              space[k] = is_space(static_cast<uint32_t>(cp));
            }
            return nb::make_tuple(to_numpy(std::move(cls)), to_numpy(std::move(space)));
          },
          nb::arg("codepoints"), "(class letter as a byte, is whitespace) of every code point.")
      .def_static(
          "char_class_ranges",
          []() {
            size_t n;
            const CharClassRange* r = char_class_ranges(n);
            std::vector<int64_t> first(n), last(n);
            std::vector<uint8_t> cls(n);
            for (size_t k = 0; k < n; ++k) first[k] = r[k].first, last[k] = r[k].last, cls[k] = static_cast<uint8_t>(r[k].cls);
            return nb::make_tuple(to_numpy(std::move(first)), to_numpy(std::move(last)), to_numpy(std::move(cls)),
                                  std::string(char_class_unicode()));
          },
          "The character-class table: (first code points, last code points, class letters, Unicode version).");
}

}  // namespace conjunct::py
