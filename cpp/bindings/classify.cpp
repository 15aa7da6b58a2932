// Compiled classifiers: compile a model into named arrays, open named arrays
// (fresh or memory-mapped) into an immutable classifier, and classify.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "common.h"
#include "compiled.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunction_store.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/classify/derived.h"
#include "conjunct/classify/fstrie.h"
#include "conjunct/classify/split.h"
#include "conjunct/util/progress.h"

namespace conjunct::py {

namespace {

using AnyArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// Views of a dict of numpy arrays (int32, int64 or float64), kept alive by `keep`.
Sections sections_from(const nb::dict& arrays, KeepAlive& keep) {
  Sections out;
  for (auto [key, value] : arrays) {
    const std::string name = nb::cast<std::string>(key);
    AnyArray a;
    if (!nb::try_cast(value, a)) throw nb::value_error(("array '" + name + "' is not a contiguous numeric array").c_str());
    Array view;
    if (a.dtype() == nb::dtype<int32_t>()) view.dtype = DType::Int32;
    else if (a.dtype() == nb::dtype<int64_t>()) view.dtype = DType::Int64;
    else if (a.dtype() == nb::dtype<double>()) view.dtype = DType::Float64;
    else throw nb::value_error(("array '" + name + "' has an unsupported dtype").c_str());
    view.data = a.data();
    for (size_t d = 0; d < a.ndim(); ++d) view.shape.push_back(a.shape(d));
    if (a.ndim() == 0) view.shape.push_back(1);
    keep.hold(a);
    out.add(name, std::move(view));
  }
  return out;
}

// Numbers, strings, None, lists of integers and nested dicts.
Meta meta_from(const nb::dict& d) {
  Meta meta;
  for (auto [key, value] : d) {
    const std::string k = nb::cast<std::string>(key);
    if (value.is_none()) meta.set(k, Meta::Value());
    else if (nb::isinstance<nb::bool_>(value)) meta.set(k, nb::cast<bool>(value));
    else if (nb::isinstance<nb::str>(value)) meta.set(k, nb::cast<std::string>(value));
    else if (nb::isinstance<nb::dict>(value)) meta.set(k, std::make_shared<const Meta>(meta_from(nb::borrow<nb::dict>(value))));
    else if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
      std::vector<int64_t> v;
      for (nb::handle item : value) v.push_back(nb::cast<int64_t>(nb::int_(item)));
      meta.set(k, std::move(v));
    } else if (nb::hasattr(value, "__index__")) meta.set(k, nb::cast<int64_t>(nb::int_(value)));
    else if (nb::isinstance<nb::float_>(value) || nb::hasattr(value, "__float__")) meta.set(k, nb::cast<double>(nb::float_(value)));
    else throw nb::value_error(("parameter '" + k + "' has an unsupported type").c_str());
  }
  return meta;
}

nb::dict meta_dict(const Meta& meta) {
  nb::dict d;
  for (const auto& [key, value] : meta.values()) {
    const char* k = key.c_str();
    if (std::holds_alternative<std::monostate>(value)) d[k] = nb::none();
    else if (const auto* b = std::get_if<bool>(&value)) d[k] = *b;
    else if (const auto* i = std::get_if<int64_t>(&value)) d[k] = *i;
    else if (const auto* x = std::get_if<double>(&value)) d[k] = *x;
    else if (const auto* s = std::get_if<std::string>(&value)) d[k] = *s;
    else if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) {
      nb::list l;
      for (int64_t e : *v) l.append(e);
      d[k] = l;
    } else if (const auto* m = std::get_if<std::shared_ptr<const Meta>>(&value)) d[k] = meta_dict(**m);
  }
  return d;
}

template <class T>
nb::object owned_numpy(const Array& a) {
  static const T empty{};
  auto* owner = new std::shared_ptr<const void>(a.owner);
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<std::shared_ptr<const void>*>(p); });
  const T* data = a.size() == 0 ? &empty : static_cast<const T*>(a.data);
  return nb::cast(nb::ndarray<nb::numpy, T>(const_cast<T*>(data), a.shape.size(), a.shape.data(), capsule));
}

// Compiled arrays as numpy arrays: new ones take their storage along, the
// ones passed through are the very input arrays.
nb::dict arrays_dict(const Sections& arrays, const nb::dict& inputs) {
  nb::dict d;
  for (const auto& [name, a] : arrays.items()) {
    if (!a.source.empty()) {
      d[name.c_str()] = inputs[a.source.c_str()];
      continue;
    }
    switch (a.dtype) {
      case DType::Int32: d[name.c_str()] = owned_numpy<int32_t>(a); break;
      case DType::Int64: d[name.c_str()] = owned_numpy<int64_t>(a); break;
      case DType::Float64: d[name.c_str()] = owned_numpy<double>(a); break;
    }
  }
  return d;
}

// Rows of the caller's CSR input (column ids), checked so that no row reads
// outside `indices`.
CsrView input_rows(const Array1<int64_t>& indptr, const Array1<int32_t>& indices) {
  const size_t n = indptr.size();
  const int64_t* p = indptr.data();
  if (n == 0) throw nb::value_error("indptr must have at least one entry");
  if (p[0] != 0 || static_cast<uint64_t>(p[n - 1]) > indices.size()) throw nb::value_error("indptr does not match indices");
  for (size_t r = 1; r < n; ++r)
    if (p[r] < p[r - 1]) throw nb::value_error("indptr decreases");
  return CsrView{span_of(indptr), span_of(indices)};
}

OutArray margins_batch(const CompiledClassifier& c, const Array1<int64_t>& indptr, const Array1<int32_t>& indices,
                       int n_threads) {
  const CsrView X = input_rows(indptr, indices);
  const size_t K = c.impl->n_outputs();
  std::vector<double> out(X.rows() * K);
  {
    nb::gil_scoped_release release;
    c.impl->margins_batch(X, out.data(), n_threads);
  }
  return owned_array(std::move(out), X.rows(), K);
}

// The column ids of one vector. A contiguous int32 buffer (numpy array,
// array.array('i'), ...) is read through the buffer protocol, a few times
// faster than a general array conversion; anything else goes through one.
class Columns {
 public:
  explicit Columns(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
      const char* f = view_.format;
      if (f != nullptr && (f[0] == '<' || f[0] == '=' || f[0] == '@')) ++f;
      if (view_.ndim <= 1 && view_.itemsize == 4 && f != nullptr && (f[0] == 'i' || f[0] == 'l') && f[1] == 0) {
        span_ = Span<int32_t>(static_cast<const int32_t*>(view_.buf), static_cast<size_t>(view_.len / 4));
        return;
      }
      PyBuffer_Release(&view_);
      view_.obj = nullptr;
    } else {
      PyErr_Clear();
    }
    view_.obj = nullptr;
    array_ = nb::cast<Array1<int32_t>>(obj);  // raises for what is not a vector of integer ids
    span_ = span_of(array_);
  }
  ~Columns() {
    if (view_.obj != nullptr) PyBuffer_Release(&view_);
  }
  Columns(const Columns&) = delete;
  Columns& operator=(const Columns&) = delete;
  Span<int32_t> span() const { return span_; }

 private:
  Py_buffer view_{};
  Array1<int32_t> array_;
  Span<int32_t> span_;
};

OutArray margins_one(const CompiledClassifier& c, nb::handle columns) {
  const Columns x(columns);
  std::vector<double> out(c.impl->n_outputs());
  {
    nb::gil_scoped_release release;
    c.impl->margins(x.span(), out.data());
  }
  return owned_array(std::move(out), out.size(), 0);
}

nb::ndarray<nb::numpy, int64_t> predict_batch(const CompiledClassifier& c, const Array1<int64_t>& indptr,
                                                const Array1<int32_t>& indices, int n_threads, bool early_exit) {
  const CsrView X = input_rows(indptr, indices);
  std::vector<int64_t> labels(X.rows());
  {
    nb::gil_scoped_release release;
    c.impl->predict_batch(X, c.decision, early_exit, labels.data(), n_threads);
  }
  return owned(std::move(labels), X.rows());
}

int64_t predict_one(const CompiledClassifier& c, nb::handle columns, bool early_exit) {
  const Columns x(columns);
  nb::gil_scoped_release release;
  return c.impl->predict(x.span(), c.decision, early_exit);
}

int64_t predict_allowed_one(const CompiledClassifier& c, nb::handle columns, const Array1<uint8_t>& allowed,
                            bool early_exit) {
  if (c.decision.kind == DecisionKind::Ovo) throw nb::value_error("a choice among allowed classes needs a sign or argmax rule");
  if (allowed.size() != c.decision.n_classes) throw nb::value_error("allowed needs one entry per class");
  const Columns x(columns);
  nb::gil_scoped_release release;
  return c.impl->predict_allowed(x.span(), c.decision, allowed.data(), early_exit);
}

// A Progress for a long loop run without the GIL: every ~0.1 s it takes the
// GIL, lets Python handle signals (Ctrl-C raises KeyboardInterrupt out of the
// loop) and calls `callback(done)` unless it is None. The callback is
// borrowed: the caller's argument keeps it alive for the call.
Progress python_progress(const nb::object& callback) {
  PyObject* cb = callback.is_none() ? nullptr : callback.ptr();
  return Progress([cb](int64_t done) {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    if (cb != nullptr) nb::handle{cb}(done);
    return true;
  });
}

nb::tuple compile_classifier_py(const std::string& method, const nb::dict& arrays, const nb::dict& model,
                                const nb::dict& options, const nb::object& progress) {
  KeepAlive keep;
  const Sections inputs = sections_from(arrays, keep);
  const Meta model_meta = meta_from(model), option_meta = meta_from(options);
  Progress ticks = python_progress(progress);
  Compiled compiled;
  {
    nb::gil_scoped_release release;
    const ProgressScope scope(&ticks);  // the expansion and fstrie loops tick it
    compiled = compile_classifier(method, inputs, model_meta, option_meta);
  }
  return nb::make_tuple(meta_dict(compiled.meta), arrays_dict(compiled.arrays, arrays));
}

// Sections a model file may leave out, recomputed from the others (split or fstrie).
template <Sections (*Derive)(const Meta&, const Sections&, size_t)>
nb::dict derived_py(const nb::dict& meta, const nb::dict& arrays, size_t n_threads) {
  KeepAlive keep;
  const Sections views = sections_from(arrays, keep);
  const Meta m = meta_from(meta);
  Sections out;
  {
    nb::gil_scoped_release release;
    out = Derive(m, views, n_threads);
  }
  return arrays_dict(out, arrays);
}

std::unique_ptr<CompiledClassifier> open_classifier_py(const std::string& method, const nb::dict& meta,
                                                       const nb::dict& arrays, const std::string& rule,
                                                       size_t n_classes) {
  auto c = std::make_unique<CompiledClassifier>();
  const Sections views = sections_from(arrays, c->arrays);
  const Meta m = meta_from(meta);
  {
    nb::gil_scoped_release release;
    c->impl = open_classifier(method, m, views);
  }
  c->decision = checked_decision(rule, n_classes, c->impl->n_outputs());
  c->method = method;
  c->rule = rule;
  return c;
}

}  // namespace

void bind_classify(nb::module_& m) {
  nb::class_<CompiledClassifier>(m, "CompiledClassifier",
                                 "An immutable compiled classifier with its decision rule and classes (thread-safe): "
                                 "conjunct.Classifier.compiled, the handle the task functions take.")
      .def_prop_ro("n_outputs", [](const CompiledClassifier& c) { return c.impl->n_outputs(); })
      .def_ro("method", &CompiledClassifier::method)
      .def_ro("rule", &CompiledClassifier::rule)
      .def_prop_ro("n_classes", [](const CompiledClassifier& c) { return c.decision.n_classes; })
      .def("margins_batch", &margins_batch, nb::kw_only(), nb::arg("indptr"), nb::arg("indices"),
           nb::arg("n_threads") = 1, "Margins of every CSR row (column ids), shape (rows, n_outputs).")
      .def("margins_one", &margins_one, nb::arg("columns"),
           "Margins of one vector of column ids, shape (n_outputs,).")
      .def("predict_batch", &predict_batch, nb::kw_only(), nb::arg("indptr"), nb::arg("indices"),
           nb::arg("n_threads") = 1, nb::arg("early_exit") = true,
           "Class index of every CSR row under the classifier's decision rule.")
      .def("predict_one", &predict_one, nb::arg("columns"), nb::arg("early_exit") = true,
           "Class index of one vector of column ids.")
      .def("predict_allowed_one", &predict_allowed_one, nb::arg("columns"), nb::arg("allowed"),
           nb::arg("early_exit") = true,
           "The best class among those with allowed[c] != 0 (a sign rule's classes score -m and m; the first "
           "maximum), -1 when none is: what a parser's choice of move or label is.")
      .def(
          "prefix_lengths",
          [](const CompiledClassifier& c, const Array1<int64_t>& indptr, const Array1<int32_t>& indices) {
            const auto* f = dynamic_cast<const Fstrie*>(c.impl.get());
            if (f == nullptr) throw nb::value_error("not an fstrie classifier");
            const CsrView X = input_rows(indptr, indices);
            std::vector<int64_t> out(X.rows());
            MappedIds mapped;
            for (size_t i = 0; i < X.rows(); ++i) {
              const size_t n = f->feature_map().apply(X.row(i), mapped);
              out[i] = static_cast<int64_t>(f->prefix_length(Span<int32_t>(mapped.ids.data(), n)));
            }
            return to_numpy(std::move(out));
          },
          nb::kw_only(), nb::arg("indptr"), nb::arg("indices"), "Length of each row's longest stored fstrie prefix.");

  m.def("compile_classifier", &compile_classifier_py, nb::kw_only(), nb::arg("method"), nb::arg("arrays"),
        nb::arg("model"), nb::arg("options"), nb::arg("progress") = nb::none(),
        "Compile a model's arrays (internal feature ids) with a method: (meta, arrays) of the classifier. "
        "progress(done) is called about every 0.1 s while it runs (steps of the expansion and fstrie loops); "
        "Ctrl-C stops it.");
  m.def("open_classifier", &open_classifier_py, nb::kw_only(), nb::arg("method"), nb::arg("meta"), nb::arg("arrays"),
        nb::arg("rule"), nb::arg("n_classes"),
        "Check a classifier's arrays and open them (no copy) with a decision rule (sign, argmax, ovo).");
  m.def("split_derived", &derived_py<split_derived_sections>, nb::kw_only(), nb::arg("meta"), nb::arg("arrays"),
        nb::arg("n_threads") = 0,
        "The sections a degree-2 split classifier's file may leave out (store weights, rare postings, and, when "
        "the arrays lack it, the store's trie), recomputed from its support vectors, alpha and trie exactly as "
        "compile_classifier computes them, "
        "on up to n_threads threads (0: as many as the work is worth; the result does not depend on it).");
  m.def("fstrie_derived", &derived_py<fstrie_derived_sections>, nb::kw_only(), nb::arg("meta"), nb::arg("arrays"),
        nb::arg("n_threads") = 0,
        "An fstrie classifier's trie.weight, recomputed from its base and trie exactly as compile_classifier "
        "computes it, on up to n_threads threads (0: as many as the work is worth; the result does not depend on it).");
  m.attr("DEFAULT_DENSE_BYTES") = kDefaultDenseBytes;
  nb::list methods;
  for (const std::string& name : classification_methods()) methods.append(name);
  m.attr("METHODS") = nb::tuple(methods);

  m.def(
      "early_exit_counters",
      [](bool reset) {
        const EarlyExitCounters c = early_exit_counters(reset);
        return nb::make_tuple(c.stops, c.positions_skipped);
      },
      nb::arg("reset") = false, "(decisions settled early, remainder positions skipped) since the last reset.");
}

}  // namespace conjunct::py
