// The sequence taggers' features on the feature engine: the extractor of a
// model's tables, the builder of training data's tables, and the token
// attributes themselves (for the tests that compare them with Python's).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "common.h"
#include "conjunct/tagging/token_features.h"
#include "featurize.h"

namespace conjunct::py {

TokenBatch token_batch(const Array1<uint8_t>& text, const Array1<int64_t>& offsets, const Array1<int64_t>& sent_ptr) {
  if (offsets.size() == 0 || offsets.data()[0] != 0 || offsets.data()[offsets.size() - 1] != static_cast<int64_t>(text.size()))
    throw nb::value_error("token offsets must run from 0 to the size of the text");
  const int64_t* o = offsets.data();
  for (size_t i = 1; i < offsets.size(); ++i)
    if (o[i] < o[i - 1]) throw nb::value_error("token offsets must be non-decreasing");
  const size_t n_tokens = offsets.size() - 1;
  check_sentence_offsets(sent_ptr, n_tokens, "tokens");
  return TokenBatch{reinterpret_cast<const char*>(text.data()), o, n_tokens, sent_ptr.data(), sent_ptr.size() - 1};
}

namespace {


void init_builder(TokenFeatureBuilder* self, const std::vector<std::string>& attributes,
                  const std::vector<std::string>& positions, const std::vector<TemplateSpec>& templates) {
  std::vector<FeatureTemplate> tps = feature_templates(templates);
  try {
    new (self) TokenFeatureBuilder(FeatureSpec(attributes, positions, std::move(tps)));
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

nb::tuple builder_add(TokenFeatureBuilder& self, const Array1<uint8_t>& text, const Array1<int64_t>& offsets,
                      const Array1<int64_t>& sent_ptr) {
  const TokenBatch batch = token_batch(text, offsets, sent_ptr);
  std::vector<int64_t> indptr;
  std::vector<int32_t> ids;
  {
    nb::gil_scoped_release release;
    self.add(batch, indptr, ids);
  }
  return nb::make_tuple(to_numpy(std::move(indptr)), to_numpy(std::move(ids)));
}

// (values_blob, values_offsets, vocab_ptr, template_of, codes): the arrays of FeatureKeys.to_arrays.
nb::tuple builder_keys(const TokenFeatureBuilder& self) {
  std::vector<uint8_t> blob;
  std::vector<int64_t> offsets{0}, vocab_ptr{0};
  for (const auto& values : self.values()) {
    for (const std::string& v : values) {
      blob.insert(blob.end(), v.begin(), v.end());
      offsets.push_back(static_cast<int64_t>(blob.size()));
    }
    vocab_ptr.push_back(static_cast<int64_t>(offsets.size() - 1));
  }
  std::vector<int32_t> template_of(self.template_of()), codes(self.codes());
  const size_t n = template_of.size();
  return nb::make_tuple(to_numpy(std::move(blob)), to_numpy(std::move(offsets)), to_numpy(std::move(vocab_ptr)),
                        to_numpy(std::move(template_of)), owned(std::move(codes), n, FeatureSpec::kMaxParts));
}

}  // namespace

void bind_featurize(nb::module_& m) {
  nb::class_<TokenFeatures>(m, "TokenFeatures", "A tagger's token templates over a model's feature tables.")
      .def(
          "__init__",
          [](TokenFeatures* self, std::shared_ptr<FeatureTables> tables) {
            try {
              new (self) TokenFeatures(std::move(tables));
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("tables"))
      .def(
          "extract",
          [](const TokenFeatures& self, const Array1<uint8_t>& text, const Array1<int64_t>& offsets,
             const Array1<int64_t>& sent_ptr) {
            const TokenBatch batch = token_batch(text, offsets, sent_ptr);
            std::vector<int64_t> indptr;
            std::vector<int32_t> ids;
            {
              nb::gil_scoped_release release;
              self.extract(batch, indptr, ids);
            }
            return nb::make_tuple(to_numpy(std::move(indptr)), to_numpy(std::move(ids)));
          },
          nb::arg("text"), nb::arg("offsets"), nb::arg("sent_ptr"),
          "Feature ids (CSR indptr, ids) of tokens text[offsets[i]:offsets[i + 1]] (UTF-8), sentences by sent_ptr");
  nb::class_<TokenFeatureBuilder>(m, "TokenFeatureBuilder",
                                  "The vocabularies and feature keys of a tagger's training data, grown as tokens come.")
      .def("__init__", &init_builder, nb::arg("attributes"), nb::arg("positions"), nb::arg("templates"),
           "The spec as FeatureSpec.core_templates gives it")
      .def("add", &builder_add, nb::arg("text"), nb::arg("offsets"), nb::arg("sent_ptr"),
           "Feature ids (CSR indptr, ids) of the tokens, new features numbered in order of first appearance")
      .def("keys", &builder_keys, "(values_blob, values_offsets, vocab_ptr, template_of, codes) of every feature so far");
  m.def(
      "token_attribute",
      [](const std::string& name, const nb::bytes& word) {
        const int32_t a = token_attribute_of(name);
        if (a < 0) throw nb::value_error(("no token attribute " + name).c_str());
        WordAttributes w;
        w.reset(std::string_view(word.c_str(), word.size()));
        std::string out;
        w.value(static_cast<TokenAttribute>(a), out);
        return nb::bytes(out.data(), out.size());
      },
      nb::arg("name"), nb::arg("word"), "A word's escaped attribute value (UTF-8 bytes), as the tagger's features see it");
}

}  // namespace conjunct::py
