// The tagging featurizer's integer-key look-up (TemplateKeys).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "common.h"
#include "conjunct/tagging/template_keys.h"

namespace conjunct::py {

namespace {

// TemplateKeys and the state between a lookup and its resolve. A lookup left
// unresolved (an exception in between) leaves placeholders in the maps, so
// the next lookup starts from empty maps.
struct PyTemplateKeys {
  TemplateKeys keys;
  PendingKeys pending;
  std::vector<int32_t> ids;
  size_t n_tokens = 0;
  bool open = false;

  PyTemplateKeys(std::vector<std::vector<TemplatePart>> templates, size_t n_attributes)
      : keys(std::move(templates), n_attributes) {}

  void clear() {
    keys.clear_keys();
    pending = PendingKeys{};
    open = false;
  }
};

void init_template_keys(PyTemplateKeys* self, const std::vector<std::vector<std::pair<int32_t, int32_t>>>& templates,
                        size_t n_attributes) {
  std::vector<std::vector<TemplatePart>> parts(templates.size());
  for (size_t t = 0; t < templates.size(); ++t)
    for (const auto& [attribute, offset] : templates[t]) parts[t].push_back({attribute, offset});
  try {
    new (self) PyTemplateKeys(std::move(parts), n_attributes);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

nb::tuple lookup(PyTemplateKeys& self, const Array1<int32_t>& tok_type, const Array1<int64_t>& sentence_ptr,
                 const ArrayN<int32_t>& type_codes) {
  if (self.open) self.clear();
  const size_t n_tokens = tok_type.size();
  if (type_codes.ndim() != 2 || type_codes.shape(1) != self.keys.n_attributes())
    throw nb::value_error("type codes must have shape (n_types, n_attributes)");
  check_sentence_offsets(sentence_ptr, n_tokens, "tokens");
  const size_t n_types = type_codes.shape(0);
  for (size_t i = 0; i < n_tokens; ++i)
    if (tok_type.data()[i] < 0 || static_cast<size_t>(tok_type.data()[i]) >= n_types)
      throw nb::value_error("token type out of range");
  self.ids.assign(n_tokens * self.keys.n_templates(), 0);
  self.n_tokens = n_tokens;
  self.pending = PendingKeys{};
  self.open = true;
  std::string error;
  {
    nb::gil_scoped_release release;
    try {
      self.keys.lookup(tok_type.data(), n_tokens, sentence_ptr.data(), sentence_ptr.size() - 1, type_codes.data(),
                       self.ids.data(), self.pending);
    } catch (const std::invalid_argument& e) {
      error = e.what();
    }
  }
  if (!error.empty()) {
    self.clear();
    throw nb::value_error(error.c_str());
  }
  std::vector<int32_t> templates(self.pending.template_of);
  std::vector<int32_t> codes(self.pending.codes);
  const size_t n = templates.size();
  return nb::make_tuple(to_numpy(std::move(templates)), owned(std::move(codes), n, self.keys.max_parts()));
}

nb::tuple resolve(PyTemplateKeys& self, const Array1<int32_t>& pending_ids) {
  if (!self.open) throw nb::value_error("resolve needs a lookup first");
  if (pending_ids.size() != self.pending.size()) throw nb::value_error("one feature id per pending key is needed");
  std::vector<int64_t> indptr;
  std::vector<int32_t> features;
  try {
    nb::gil_scoped_release release;
    self.keys.resolve(self.pending, pending_ids.data(), self.ids.data(), self.n_tokens, indptr, features);
  } catch (const std::invalid_argument& e) {
    self.clear();
    throw nb::value_error(e.what());
  }
  self.open = false;
  self.pending = PendingKeys{};
  std::vector<int32_t>().swap(self.ids);
  return nb::make_tuple(to_numpy(std::move(indptr)), to_numpy(std::move(features)));
}

// (blob, offsets) of n strings, checked against each other.
size_t strings_of(const Array1<uint8_t>& blob, const Array1<int64_t>& offsets) {
  if (offsets.size() == 0) throw nb::value_error("string offsets need at least one entry");
  const size_t n = offsets.size() - 1;
  if (offsets.data()[0] != 0 || offsets.data()[n] != static_cast<int64_t>(blob.size()))
    throw nb::value_error("string offsets do not cover the blob");
  return n;
}

bool set_names(PyTemplateKeys& self, const Array1<uint8_t>& blob, const Array1<int64_t>& offsets,
               const Array1<int32_t>& ids, const std::vector<std::string>& template_names) {
  const size_t n = strings_of(blob, offsets);
  if (ids.size() != n) throw nb::value_error("one id per feature string is needed");
  try {
    return self.keys.set_names(reinterpret_cast<const char*>(blob.data()), offsets.data(), ids.data(), n,
                               template_names);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

void add_values(PyTemplateKeys& self, size_t attribute, const Array1<uint8_t>& blob, const Array1<int64_t>& offsets) {
  const size_t n = strings_of(blob, offsets);
  try {
    self.keys.add_values(attribute, reinterpret_cast<const char*>(blob.data()), offsets.data(), n);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

}  // namespace

void bind_featurize(nb::module_& m) {
  nb::class_<PyTemplateKeys>(m, "TemplateKeys")
      .def("__init__", &init_template_keys, nb::arg("templates"), nb::arg("n_attributes"),
           "templates: per template, its parts as (attribute, offset) pairs")
      .def("lookup", &lookup, nb::arg("tok_type"), nb::arg("sentence_ptr"), nb::arg("type_codes"),
           "Looks every token's templates up; returns the keys met for the first time as (template, part codes),\n"
           "to be given their feature ids with resolve()")
      .def("resolve", &resolve, nb::arg("pending_ids"),
           "Feature ids (>= -1) of the pending keys; returns the tokens' features as CSR (indptr, ids)")
      .def("set_names", &set_names, nb::arg("blob"), nb::arg("offsets"), nb::arg("ids"), nb::arg("template_names"),
           "The vocabulary (UTF-8 feature strings and their ids), so new keys are named here; False if two\n"
           "strings share a hash (new keys are then left to the caller)")
      .def("add_values", &add_values, nb::arg("attribute"), nb::arg("blob"), nb::arg("offsets"),
           "Appends an attribute's value strings (UTF-8) for the next codes")
      .def("n_values", [](const PyTemplateKeys& k, size_t a) {
        if (a >= k.keys.n_attributes()) throw nb::value_error("no such attribute");
        return k.keys.n_values(a);
      }, nb::arg("attribute"))
      .def("clear", [](PyTemplateKeys& k) {
        k.clear();
        k.keys.clear_values();
      }, "Forgets the keys and the value strings")
      .def_prop_ro("size", [](const PyTemplateKeys& k) { return k.keys.size(); })
      .def_prop_ro("nbytes", [](const PyTemplateKeys& k) { return k.keys.bytes(); })
      .def_prop_ro("n_templates", [](const PyTemplateKeys& k) { return k.keys.n_templates(); })
      .def_prop_ro("max_parts", [](const PyTemplateKeys& k) { return k.keys.max_parts(); });
}

}  // namespace conjunct::py
