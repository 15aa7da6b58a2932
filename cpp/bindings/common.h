// Shared pieces of the nanobind layer: array types, keep-alive, array output.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "conjunct/classify/decision.h"
#include "conjunct/features.h"
#include "conjunct/features/template_spec.h"

namespace conjunct {
class Classifier;
}

namespace conjunct::py {

namespace nb = nanobind;

template <class T>
using Array1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using ArrayN = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
using OutArray = nb::ndarray<nb::numpy, double>;

template <class A>
auto span_of(const A& a) {
  using T = std::remove_const_t<typename A::Scalar>;
  return Span<T>(a.data(), a.size());
}

// A sequence as a list or tuple (borrowed items); anything else is a TypeError naming what.
inline PyObject* const* items_of(PyObject* seq, Py_ssize_t& n, const std::string& what) {
  if (PyList_Check(seq)) {
    n = PyList_GET_SIZE(seq);
    return reinterpret_cast<PyListObject*>(seq)->ob_item;
  }
  if (PyTuple_Check(seq)) {
    n = PyTuple_GET_SIZE(seq);
    return reinterpret_cast<PyTupleObject*>(seq)->ob_item;
  }
  throw nb::type_error((what + " must be a list or tuple").c_str());
}

// A feature spec's templates as Python hands them over (conjunct.features.spec):
// (name, [(attribute, position, fallback or None), ...]).
using PartSpec = std::tuple<int32_t, int32_t, std::optional<std::string>>;
using TemplateSpec = std::tuple<std::string, std::vector<PartSpec>>;

inline std::vector<FeatureTemplate> feature_templates(const std::vector<TemplateSpec>& templates) {
  std::vector<FeatureTemplate> tps;
  for (const auto& [name, parts] : templates) {
    FeatureTemplate t{name, {}};
    for (const auto& [attribute, position, fallback] : parts)
      t.parts.push_back(SpecPart{attribute, position, fallback.value_or(""), fallback.has_value()});
    tps.push_back(std::move(t));
  }
  return tps;
}

// Keeps the arrays (and other Python objects) a compiled object views alive
// for as long as the object.
struct KeepAlive {
  std::vector<std::shared_ptr<void>> held;
  std::vector<nb::object> objects;
  template <class A>
  void hold(const A& a) { held.push_back(std::make_shared<A>(a)); }
};

// A numpy array of shape (rows, cols) (or (rows,) if cols == 0) that takes ownership of `data`.
template <class T>
nb::ndarray<nb::numpy, T> owned(std::vector<T>&& data, size_t rows, size_t cols = 0) {
  auto* heap = new std::vector<T>(std::move(data));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if (cols == 0) {
    size_t shape[1] = {rows};
    return nb::ndarray<nb::numpy, T>(heap->data(), 1, shape, owner);
  }
  size_t shape[2] = {rows, cols};
  return nb::ndarray<nb::numpy, T>(heap->data(), 2, shape, owner);
}

// A 1-D numpy array that takes ownership of `v`.
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& v) {
  const size_t n = v.size();
  return owned(std::move(v), n);
}

// Rows [b, e) of a CSR given as (indptr, indices): a view of indptr[b..e], whose
// offsets still index the whole indices array.
inline CsrView csr_rows(const Array1<int64_t>& indptr, const Array1<int32_t>& indices, int64_t b, int64_t e) {
  return CsrView{Span<int64_t>(indptr.data() + b, static_cast<size_t>(e - b + 1)), span_of(indices)};
}

// A typed 1-D array from a dict entry (a clear error when it is missing or of the wrong type).
template <class T>
Array1<T> array_from(const nb::dict& d, const char* key) {
  if (!d.contains(key)) throw nb::value_error((std::string("missing array: ") + key).c_str());
  try {
    return nb::cast<Array1<T>>(d[key]);
  } catch (const nb::cast_error&) {
    throw nb::value_error((std::string("array has the wrong type or layout: ") + key).c_str());
  }
}

inline OutArray owned_array(std::vector<double>&& data, size_t rows, size_t cols) {
  return owned(std::move(data), rows, cols);
}

// Sentence offsets must run from 0 to n_units without going back, so every
// sentence [b, e) the task loop slices lies inside the arrays.
inline void check_sentence_offsets(const Array1<int64_t>& sentence_ptr, size_t n_units, const char* what) {
  const size_t n = sentence_ptr.size();
  const int64_t* sp = sentence_ptr.data();
  if (n == 0 || sp[0] != 0 || static_cast<size_t>(sp[n - 1]) != n_units)
    throw nb::value_error((std::string("sentence offsets do not cover the ") + what).c_str());
  for (size_t k = 1; k < n; ++k)
    if (sp[k] < sp[k - 1]) throw nb::value_error("sentence offsets decrease");
}

// Calls fn(b, e) for every sentence [b, e) of sentence_ptr with the GIL
// released (the task loops); returns the seconds the whole loop took.
template <class Fn>
double for_each_sentence(const Array1<int64_t>& sentence_ptr, Fn&& fn) {
  nb::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  const int64_t* sp = sentence_ptr.data();
  for (size_t k = 0; k + 1 < sentence_ptr.size(); ++k) fn(sp[k], sp[k + 1]);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// (indptr, ids) of the vectors a task loop collected, or None.
inline nb::object collected(bool collect, std::vector<int64_t>&& ptr, std::vector<int32_t>&& ids) {
  if (!collect) return nb::none();
  return nb::make_tuple(to_numpy(std::move(ptr)), to_numpy(std::move(ids)));
}

// fn(), its std::invalid_argument (a core check's refusal) as a Python ValueError.
template <class Fn>
auto value_errors(Fn&& fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

// The decision rule `rule` over n_classes classes for a classifier with
// n_outputs outputs; a bad rule or a mismatch is a ValueError.
inline Decision checked_decision(const std::string& rule, size_t n_classes, size_t n_outputs) {
  Decision d;
  try {
    d = Decision::parse(rule, n_classes);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
  if (d.n_outputs() != n_outputs) throw nb::value_error("decision rule does not match the classifier's outputs");
  return d;
}

void bind_kernel(nb::module_& m);
void bind_classify(nb::module_& m);
void bind_features(nb::module_& m);
void bind_tasks(nb::module_& m);
void bind_task_chunk(nb::module_& m);
void bind_task_english(nb::module_& m);
void bind_task_boundary(nb::module_& m);
void bind_task_japanese(nb::module_& m);
void bind_decode(nb::module_& m);
void bind_train(nb::module_& m);
void bind_featurize(nb::module_& m);
void bind_adaptive(nb::module_& m);

}  // namespace conjunct::py
