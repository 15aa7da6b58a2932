#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <limits>

#include "common.h"
#include "conjunct/classify/decision.h"
#include "conjunct/classify/fstrie.h"
#include "conjunct/classify/kernel_expansion.h"
#include "conjunct/classify/pkb.h"
#include "conjunct/classify/pke.h"
#include "conjunct/classify/split.h"
#include "conjunct/classify/pki.h"

namespace conjunct::py {

namespace {

// The Python-facing handle of any compiled classifier.
struct CompiledClassifier {
  std::unique_ptr<Classifier> impl;
  KeepAlive arrays;
  std::string method;
};

CsrView csr_of(const Array1<int64_t>& indptr, const Array1<int32_t>& indices) {
  if (indptr.size() == 0) throw nb::value_error("indptr must have at least one entry");
  if (indptr.data()[indptr.size() - 1] > static_cast<int64_t>(indices.size()) || indptr.data()[0] != 0)
    throw nb::value_error("indptr does not match indices");
  return CsrView{span_of(indptr), span_of(indices)};
}

OutArray margins_batch(const CompiledClassifier& c, const Array1<int64_t>& indptr,
                       const Array1<int32_t>& indices, int n_threads) {
  const CsrView X = csr_of(indptr, indices);
  const size_t K = c.impl->n_outputs();
  std::vector<double> out(X.rows() * K);
  {
    nb::gil_scoped_release release;
    c.impl->margins_batch(X, out.data(), n_threads);
  }
  return owned_array(std::move(out), X.rows(), K);
}

OutArray margins_one(const CompiledClassifier& c, const Array1<int32_t>& columns) {
  std::vector<double> out(c.impl->n_outputs());
  {
    nb::gil_scoped_release release;
    c.impl->margins(span_of(columns), out.data());
  }
  return owned_array(std::move(out), out.size(), 0);
}

Decision decision_of(const CompiledClassifier& c, const std::string& kind, size_t n_classes) {
  return checked_decision(kind, n_classes, c.impl->n_outputs());
}

nb::ndarray<nb::numpy, int64_t> predict_batch(const CompiledClassifier& c, const Array1<int64_t>& indptr,
                                                const Array1<int32_t>& indices, const std::string& kind,
                                                size_t n_classes, int n_threads, bool early_exit) {
  const Decision d = decision_of(c, kind, n_classes);
  const CsrView X = csr_of(indptr, indices);
  auto* labels = new std::vector<int64_t>(X.rows());
  {
    nb::gil_scoped_release release;
    c.impl->predict_batch(X, d, early_exit, labels->data(), n_threads);
  }
  nb::capsule owner(labels, [](void* p) noexcept { delete static_cast<std::vector<int64_t>*>(p); });
  size_t shape[1] = {labels->size()};
  return nb::ndarray<nb::numpy, int64_t>(labels->data(), 1, shape, owner);
}

int64_t predict_one(const CompiledClassifier& c, const Array1<int32_t>& columns, const std::string& kind,
                    size_t n_classes, bool early_exit) {
  const Decision d = decision_of(c, kind, n_classes);
  nb::gil_scoped_release release;
  return c.impl->predict(span_of(columns), d, early_exit);
}

// A store's view from a dict of its arrays (kept alive by `keep`).
ConjunctionStoreView store_view(const nb::dict& d, size_t K, int degree, int32_t n_dense, KeepAlive& keep) {
  auto dense = array_from<double>(d, "dense");
  auto child_begin = array_from<int32_t>(d, "child_begin");
  auto label = array_from<int32_t>(d, "label");
  auto root_map = array_from<int32_t>(d, "root_map");
  auto weight = array_from<double>(d, "weight");
  keep.hold(dense), keep.hold(child_begin), keep.hold(label), keep.hold(root_map), keep.hold(weight);
  ConjunctionStoreView v;
  v.n_outputs = K;
  v.degree = degree;
  v.n_dense = n_dense;
  v.dense = span_of(dense);
  v.trie = TrieView{span_of(child_begin), span_of(label), span_of(root_map)};
  v.weight = span_of(weight);
  for (int32_t c : v.trie.child_begin)
    if (c < 0 || static_cast<size_t>(c) > v.trie.n_nodes()) throw nb::value_error("malformed trie");
  for (int32_t n : v.trie.root_map)
    if (n < -1 || (n >= 0 && static_cast<size_t>(n) >= v.trie.n_nodes())) throw nb::value_error("malformed trie root map");
  return v;
}

nb::dict store_dict(ConjunctionStoreArrays&& a) {
  nb::dict d;
  d["dense"] = to_numpy(std::move(a.dense));
  d["child_begin"] = to_numpy(std::move(a.trie.child_begin));
  d["label"] = to_numpy(std::move(a.trie.label));
  d["root_map"] = to_numpy(std::move(a.trie.root_map));
  d["weight"] = to_numpy(std::move(a.weight));
  d["count_by_size"] = to_numpy(std::move(a.count_by_size));
  return d;
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

template <class F>
auto translating(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  } catch (const std::length_error& e) {
    throw nb::value_error(e.what());
  }
}

// Dense alpha (n_sv x K) when `dense` is non-empty, else the sparse CSR triplet.
AlphaRows alpha_rows(size_t n_sv, size_t K, const ArrayN<double>& dense, const Array1<int64_t>& ptr,
                     const Array1<int32_t>& output, const Array1<double>& value, KeepAlive& keep) {
  keep.hold(dense), keep.hold(ptr), keep.hold(output), keep.hold(value);
  AlphaRows a;
  a.n_rows = n_sv;
  a.n_outputs = K;
  if (dense.size() > 0 || ptr.size() == 0) a.dense = span_of(dense);
  else a.ptr = span_of(ptr), a.output = span_of(output), a.value = span_of(value);
  try {
    a.validate();
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
  return a;
}

}  // namespace

nb::object wrap_classifier(std::unique_ptr<Classifier> impl, KeepAlive&& arrays, const std::string& method) {
  auto c = std::make_unique<CompiledClassifier>();
  c->impl = std::move(impl);
  c->arrays = std::move(arrays);
  c->method = method;
  return nb::cast(std::move(c));
}

const Classifier& classifier_of(nb::handle compiled) {
  try {
    return *nb::cast<const CompiledClassifier&>(compiled).impl;
  } catch (const nb::cast_error&) {
    throw nb::type_error("expected a compiled classifier (conjunct.Classifier._core)");
  }
}

void bind_classify(nb::module_& m) {
  nb::class_<CompiledClassifier>(m, "CompiledClassifier", "An immutable compiled classifier (thread-safe).")
      .def_prop_ro("n_outputs", [](const CompiledClassifier& c) { return c.impl->n_outputs(); })
      .def_ro("method", &CompiledClassifier::method)
      .def("margins_batch", &margins_batch, nb::arg("indptr"), nb::arg("indices"), nb::arg("n_threads") = 1,
           "Margins of every CSR row (column ids), shape (rows, n_outputs).")
      .def("margins_one", &margins_one, nb::arg("columns"), "Margins of one vector of column ids, shape (n_outputs,).")
      .def("predict_batch", &predict_batch, nb::arg("indptr"), nb::arg("indices"), nb::arg("rule"), nb::arg("n_classes"),
           nb::arg("n_threads") = 1, nb::arg("early_exit") = false,
           "Class index of every CSR row under a decision rule (sign, argmax, ovo).")
      .def("predict_one", &predict_one, nb::arg("columns"), nb::arg("rule"), nb::arg("n_classes"),
           nb::arg("early_exit") = false, "Class index of one vector of column ids under a decision rule.");

  m.def(
      "make_pkb",
      [](const Array1<int32_t>& col_map, double gamma, double coef0, int degree, const Array1<int64_t>& sv_indptr,
         const Array1<int32_t>& sv_indices, const ArrayN<double>& alpha, const Array1<int64_t>& alpha_ptr,
         const Array1<int32_t>& alpha_out, const Array1<double>& alpha_val, const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        const CsrView svs = csr_of(sv_indptr, sv_indices);
        const AlphaRows rows = alpha_rows(svs.rows(), bias.size(), alpha, alpha_ptr, alpha_out, alpha_val, c->arrays);
        const KernelModelView view{PolyKernel(gamma, coef0, degree), svs, rows, span_of(bias)};
        c->impl = std::make_unique<Pkb>(FeatureMap{span_of(col_map)}, view);
        c->arrays.hold(col_map), c->arrays.hold(sv_indptr), c->arrays.hold(sv_indices), c->arrays.hold(bias);
        c->method = "pkb";
        return c;
      },
      nb::arg("col_map"), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("sv_indptr"),
      nb::arg("sv_indices"), nb::arg("alpha"), nb::arg("alpha_ptr"), nb::arg("alpha_out"), nb::arg("alpha_val"),
      nb::arg("bias"));

  m.def(
      "make_pki",
      [](const Array1<int32_t>& col_map, double gamma, double coef0, int degree, const Array1<int64_t>& inv_indptr,
         const Array1<int32_t>& inv_indices, size_t n_sv, int64_t max_sv_length, const ArrayN<double>& alpha,
         const Array1<int64_t>& alpha_ptr, const Array1<int32_t>& alpha_out, const Array1<double>& alpha_val,
         const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        InvertedIndexView index{csr_of(inv_indptr, inv_indices), n_sv, max_sv_length};
        for (int32_t s : span_of(inv_indices))
          if (s < 0 || static_cast<size_t>(s) >= n_sv) throw nb::value_error("inverted index names an unknown support vector");
        const AlphaRows rows = alpha_rows(n_sv, bias.size(), alpha, alpha_ptr, alpha_out, alpha_val, c->arrays);
        c->impl = std::make_unique<Pki>(FeatureMap{span_of(col_map)}, PolyKernel(gamma, coef0, degree), index, rows,
                                        span_of(bias));
        c->arrays.hold(col_map), c->arrays.hold(inv_indptr), c->arrays.hold(inv_indices), c->arrays.hold(bias);
        c->method = "pki";
        return c;
      },
      nb::arg("col_map"), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("inv_indptr"),
      nb::arg("inv_indices"), nb::arg("n_sv"), nb::arg("max_sv_length"), nb::arg("alpha"), nb::arg("alpha_ptr"),
      nb::arg("alpha_out"), nb::arg("alpha_val"), nb::arg("bias"));

  m.def(
      "expand_kernel",
      [](double gamma, double coef0, int degree, const Array1<int64_t>& sv_indptr, const Array1<int32_t>& sv_indices,
         const ArrayN<double>& alpha, const Array1<int64_t>& alpha_ptr, const Array1<int32_t>& alpha_out,
         const Array1<double>& alpha_val, size_t n_outputs, int32_t n_features, double sigma, int64_t min_support,
         int32_t n_dense, int32_t max_feature, int64_t max_nodes, const nb::object& progress) {
        KeepAlive keep;
        Progress ticks = python_progress(progress);
        const CsrView svs = csr_of(sv_indptr, sv_indices);
        const AlphaRows rows = alpha_rows(svs.rows(), n_outputs, alpha, alpha_ptr, alpha_out, alpha_val, keep);
        ExpansionOptions opt;
        opt.sigma = sigma;
        opt.min_support = min_support;
        opt.n_dense = n_dense;
        opt.max_feature = max_feature;
        opt.max_nodes = max_nodes < 0 ? std::numeric_limits<int64_t>::max() : max_nodes;
        opt.progress = &ticks;
        ConjunctionStoreArrays arrays;
        {
          nb::gil_scoped_release release;
          arrays = translating([&] { return expand_kernel(PolyKernel(gamma, coef0, degree), svs, rows, n_features, opt); });
        }
        return store_dict(std::move(arrays));
      },
      nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("sv_indptr"), nb::arg("sv_indices"),
      nb::arg("alpha"), nb::arg("alpha_ptr"), nb::arg("alpha_out"), nb::arg("alpha_val"), nb::arg("n_outputs"),
      nb::arg("n_features"), nb::arg("sigma"), nb::arg("min_support"), nb::arg("n_dense"), nb::arg("max_feature"),
      nb::arg("max_nodes") = -1, nb::arg("progress") = nb::none(),
      "Mine the conjunction weights of a kernel model (support vectors in internal ids); progress(done) is called "
      "about every 0.1 s with the conjunctions visited, and Ctrl-C stops it.");

  m.def(
      "build_conjunction_store",
      [](const Array1<int64_t>& indptr, const Array1<int32_t>& indices, const ArrayN<double>& weights, size_t n_outputs,
         int32_t n_features, int32_t n_dense) {
        const CsrView conj = csr_of(indptr, indices);
        ConjunctionStoreArrays arrays;
        {
          nb::gil_scoped_release release;
          arrays = translating([&] { return build_conjunction_store(conj, span_of(weights), n_outputs, n_features, n_dense); });
        }
        return store_dict(std::move(arrays));
      },
      nb::arg("indptr"), nb::arg("indices"), nb::arg("weights"), nb::arg("n_outputs"), nb::arg("n_features"),
      nb::arg("n_dense"), "Store explicit conjunctions (internal ids, ascending rows).");

  m.def(
      "make_pke",
      [](const Array1<int32_t>& col_map, const nb::dict& store, int degree, int32_t n_dense, const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        const ConjunctionStoreView view = store_view(store, bias.size(), degree, n_dense, c->arrays);
        c->impl = translating([&] { return std::make_unique<Pke>(FeatureMap{span_of(col_map)}, view, span_of(bias)); });
        c->arrays.hold(col_map), c->arrays.hold(bias);
        c->method = "pke";
        return c;
      },
      nb::arg("col_map"), nb::arg("store"), nb::arg("degree"), nb::arg("n_dense"), nb::arg("bias"));

  m.def(
      "make_split",
      [](const Array1<int32_t>& col_map, const nb::dict& store, int32_t n_dense, int32_t n_common, double gamma,
         double coef0, int degree, const Array1<int64_t>& sv_indptr, const Array1<int32_t>& sv_indices,
         const Array1<int64_t>& rare_indptr, const Array1<int32_t>& rare_indices, const ArrayN<double>& alpha,
         const Array1<int64_t>& alpha_ptr, const Array1<int32_t>& alpha_out, const Array1<double>& alpha_val,
         int64_t max_sv_length, const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        SplitView v;
        v.common = store_view(store, bias.size(), degree, n_dense, c->arrays);
        v.n_common = n_common;
        v.kernel = PolyKernel(gamma, coef0, degree);
        v.support_vectors = csr_of(sv_indptr, sv_indices);
        v.rare_postings = csr_of(rare_indptr, rare_indices);
        v.alpha = alpha_rows(v.support_vectors.rows(), bias.size(), alpha, alpha_ptr, alpha_out, alpha_val, c->arrays);
        v.max_sv_length = max_sv_length;
        for (size_t i = 0; i < v.support_vectors.rows(); ++i)
          if (static_cast<int64_t>(v.support_vectors.row(i).size) > max_sv_length) throw nb::value_error("max_sv_length is too small");
        c->impl = translating([&] { return std::make_unique<Split>(FeatureMap{span_of(col_map)}, v, span_of(bias)); });
        c->arrays.hold(col_map), c->arrays.hold(sv_indptr), c->arrays.hold(sv_indices), c->arrays.hold(rare_indptr);
        c->arrays.hold(rare_indices), c->arrays.hold(bias);
        c->method = "split";
        return c;
      },
      nb::arg("col_map"), nb::arg("store"), nb::arg("n_dense"), nb::arg("n_common"), nb::arg("gamma"), nb::arg("coef0"),
      nb::arg("degree"), nb::arg("sv_indptr"), nb::arg("sv_indices"), nb::arg("rare_indptr"), nb::arg("rare_indices"),
      nb::arg("alpha"), nb::arg("alpha_ptr"), nb::arg("alpha_out"), nb::arg("alpha_val"), nb::arg("max_sv_length"),
      nb::arg("bias"));

  m.def(
      "build_fstrie",
      [](const CompiledClassifier& base, const Array1<int64_t>& indptr, const Array1<int32_t>& indices, int degree,
         int32_t n_features, int64_t max_nodes, const nb::object& progress) {
        const auto* b = dynamic_cast<const ConjunctiveBase*>(base.impl.get());
        if (b == nullptr) throw nb::value_error("the fstrie's base must be a pke or split classifier");
        const CsrView events = csr_of(indptr, indices);
        Progress ticks = python_progress(progress);
        FstrieArrays arrays;
        {
          nb::gil_scoped_release release;
          arrays = translating(
              [&] { return build_fstrie(events, *b, base.impl->n_outputs(), degree, n_features, max_nodes, &ticks); });
        }
        nb::dict d;
        d["child_begin"] = to_numpy(std::move(arrays.trie.child_begin));
        d["label"] = to_numpy(std::move(arrays.trie.label));
        d["root_map"] = to_numpy(std::move(arrays.trie.root_map));
        d["weight"] = to_numpy(std::move(arrays.weight));
        d["events"] = arrays.stats.events;
        d["distinct_events"] = arrays.stats.distinct_events;
        d["nodes_before_pruning"] = arrays.stats.nodes_before;
        d["nodes"] = arrays.stats.nodes;
        return d;
      },
      nb::arg("base"), nb::arg("indptr"), nb::arg("indices"), nb::arg("degree"), nb::arg("n_features"),
      nb::arg("max_nodes"), nb::arg("progress") = nb::none(),
      "Build an fstrie from events (rows of internal ids; -1 = unknown feature); progress(done) as expand_kernel's.");

  m.def(
      "make_fstrie",
      [](const Array1<int32_t>& col_map, const nb::dict& trie, nb::object base_obj) {
        const auto& base = nb::cast<const CompiledClassifier&>(base_obj);
        const auto* b = dynamic_cast<const ConjunctiveBase*>(base.impl.get());
        if (b == nullptr) throw nb::value_error("the fstrie's base must be a pke or split classifier");
        auto c = std::make_unique<CompiledClassifier>();
        auto child_begin = array_from<int32_t>(trie, "child_begin");
        auto label = array_from<int32_t>(trie, "label");
        auto root_map = array_from<int32_t>(trie, "root_map");
        auto weight = array_from<double>(trie, "weight");
        c->arrays.hold(col_map), c->arrays.hold(child_begin), c->arrays.hold(label), c->arrays.hold(root_map);
        c->arrays.hold(weight);
        c->arrays.objects.push_back(base_obj);
        TrieView view{span_of(child_begin), span_of(label), span_of(root_map)};
        for (int32_t x : view.child_begin)
          if (x < 0 || static_cast<size_t>(x) > view.n_nodes()) throw nb::value_error("malformed fstrie");
        for (int32_t n : view.root_map)
          if (n < -1 || (n >= 0 && static_cast<size_t>(n) >= view.n_nodes())) throw nb::value_error("malformed fstrie root map");
        c->impl = translating([&] {
          return std::make_unique<Fstrie>(FeatureMap{span_of(col_map)}, view, span_of(weight), *b, base.impl->n_outputs());
        });
        c->method = "fstrie";
        return c;
      },
      nb::arg("col_map"), nb::arg("trie"), nb::arg("base"));

  m.def(
      "early_exit_counters",
      [](bool reset) {
        const EarlyExitCounters c = early_exit_counters(reset);
        return nb::make_tuple(c.stops, c.positions_skipped);
      },
      nb::arg("reset") = false, "(decisions settled early, remainder positions skipped) since the last reset.");

  m.def(
      "prefix_lengths",
      [](const CompiledClassifier& c, const Array1<int64_t>& indptr, const Array1<int32_t>& indices) {
        const auto* f = dynamic_cast<const Fstrie*>(c.impl.get());
        if (f == nullptr) throw nb::value_error("not an fstrie classifier");
        const CsrView X = csr_of(indptr, indices);
        std::vector<int64_t> out(X.rows());
        std::vector<int32_t> mapped;
        for (size_t i = 0; i < X.rows(); ++i) {
          f->feature_map().apply(X.row(i), mapped);
          out[i] = static_cast<int64_t>(f->prefix_length(Span<int32_t>(mapped)));
        }
        return to_numpy(std::move(out));
      },
      nb::arg("classifier"), nb::arg("indptr"), nb::arg("indices"), "Length of each row's longest stored fstrie prefix.");
}

}  // namespace conjunct::py
