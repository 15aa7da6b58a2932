// The feature engine's tables (conjunct/features/): a model's template spec,
// attribute vocabularies and feature keys, built once from the file's arrays.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <stdexcept>
#include <tuple>

#include "common.h"
#include "conjunct/features/feature_tables.h"

namespace conjunct::py {

namespace {


std::shared_ptr<FeatureTables> make_tables(const std::vector<std::string>& attributes,
                                                 const std::vector<std::string>& positions,
                                                 const std::vector<TemplateSpec>& templates,
                                                 const Array1<uint8_t>& values_blob, const Array1<int64_t>& values_offsets,
                                                 const Array1<int64_t>& vocab_ptr, const Array1<int32_t>& template_of,
                                                 const ArrayN<int32_t>& codes) {
  std::vector<FeatureTemplate> tps = feature_templates(templates);
  const size_t n = template_of.size();
  if (codes.ndim() != 2 || codes.shape(0) != n || codes.shape(1) != FeatureSpec::kMaxParts)
    throw nb::value_error("feature codes must have shape (n_features, 3)");
  if (vocab_ptr.size() != attributes.size() + 1) throw nb::value_error("vocab_ptr needs one entry per attribute, plus one");
  const int64_t* vp = vocab_ptr.data();
  const int64_t n_values = static_cast<int64_t>(values_offsets.size()) - 1;
  if (vp[0] != 0 || vp[attributes.size()] != n_values) throw nb::value_error("vocab_ptr does not cover the values");
  for (size_t a = 0; a < attributes.size(); ++a)
    if (vp[a + 1] < vp[a]) throw nb::value_error("vocab_ptr decreases");
  const int64_t* off = values_offsets.data();
  if (n_values < 0 || off[0] != 0 || off[n_values] != static_cast<int64_t>(values_blob.size()))
    throw nb::value_error("value offsets do not cover the values blob");
  try {
    FeatureSpec spec(attributes, positions, std::move(tps));
    std::vector<AttributeVocab> vocabs;
    const char* blob = reinterpret_cast<const char*>(values_blob.data());
    for (size_t a = 0; a < attributes.size(); ++a) {
      // Each vocabulary's offsets relative to its own first byte.
      std::vector<int64_t> rel(off + vp[a], off + vp[a + 1] + 1);
      for (int64_t& x : rel) x -= off[vp[a]];
      try {
        vocabs.emplace_back(blob + off[vp[a]], static_cast<size_t>(rel.back()), rel.data(), rel.size() - 1);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("attribute '" + attributes[a] + "': " + e.what());
      }
    }
    nb::gil_scoped_release release;
    return std::make_shared<FeatureTables>(std::move(spec), std::move(vocabs), template_of.data(), codes.data(), n);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

}  // namespace

void bind_features(nb::module_& m) {
  nb::class_<FeatureTables>(m, "FeatureTables",
                            "A model's feature template spec, attribute vocabularies and feature keys.")
      .def_static("build", &make_tables, nb::arg("attributes"), nb::arg("positions"), nb::arg("templates"),
                  nb::arg("values_blob"), nb::arg("values_offsets"), nb::arg("vocab_ptr"), nb::arg("template_of"),
                  nb::arg("codes"),
                  "templates: (name, [(attribute or -1 for a flag, position, fallback or None), ...]);\n"
                  "every attribute's values are values_offsets[vocab_ptr[a] .. vocab_ptr[a + 1]] into values_blob;\n"
                  "template_of / codes: each feature id's template and part codes (-1 past its parts)")
      .def("name", [](const FeatureTables& t, size_t f) {
        if (f >= t.size()) throw nb::index_error("no such feature id");
        return t.name(f);
      }, nb::arg("feature"), "The readable name of a feature id, generated from the spec")
      .def("find", [](const FeatureTables& t, size_t templ, const std::vector<int32_t>& codes) {
        if (templ >= t.spec().n_templates()) throw nb::index_error("no such template");
        if (codes.size() != t.spec().templ(templ).parts.size()) throw nb::value_error("one code per part is needed");
        for (size_t p = 0; p < codes.size(); ++p) {
          const int32_t a = t.spec().templ(templ).parts[p].attribute;
          const size_t limit = a == SpecPart::kFlag ? 1 : t.vocab(a).size();
          if (codes[p] < 0 || static_cast<size_t>(codes[p]) >= limit) return -1;
        }
        return t.keys().find(t.keys().key(templ, codes.data()));
      }, nb::arg("template"), nb::arg("codes"), "The feature id of a template and its parts' codes (-1: none)")
      .def("code", [](const FeatureTables& t, size_t attribute, const std::string& value) {
        if (attribute >= t.spec().n_attributes()) throw nb::index_error("no such attribute");
        return t.vocab(attribute).find(value);
      }, nb::arg("attribute"), nb::arg("value"), "The code of an attribute's value (-1: not in its vocabulary)")
      .def("__len__", &FeatureTables::size)
      .def_prop_ro("nbytes", &FeatureTables::bytes);
}

}  // namespace conjunct::py
