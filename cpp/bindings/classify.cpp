#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "common.h"
#include "conjunct/classify/decision.h"
#include "conjunct/classify/pkb.h"
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
  Decision d;
  try {
    d = Decision::parse(kind, n_classes);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
  if (d.n_outputs() != c.impl->n_outputs()) throw nb::value_error("decision rule does not match the number of outputs");
  return d;
}

nb::ndarray<nb::numpy, int64_t> predict_batch(const CompiledClassifier& c, const Array1<int64_t>& indptr,
                                                const Array1<int32_t>& indices, const std::string& kind,
                                                size_t n_classes, int n_threads) {
  const Decision d = decision_of(c, kind, n_classes);
  const CsrView X = csr_of(indptr, indices);
  const size_t K = c.impl->n_outputs();
  auto* labels = new std::vector<int64_t>(X.rows());
  {
    nb::gil_scoped_release release;
    std::vector<double> margins(X.rows() * K);
    c.impl->margins_batch(X, margins.data(), n_threads);
    for (size_t i = 0; i < X.rows(); ++i) (*labels)[i] = d.decide(margins.data() + i * K);
  }
  nb::capsule owner(labels, [](void* p) noexcept { delete static_cast<std::vector<int64_t>*>(p); });
  size_t shape[1] = {labels->size()};
  return nb::ndarray<nb::numpy, int64_t>(labels->data(), 1, shape, owner);
}

int64_t predict_one(const CompiledClassifier& c, const Array1<int32_t>& columns, const std::string& kind,
                    size_t n_classes) {
  const Decision d = decision_of(c, kind, n_classes);
  nb::gil_scoped_release release;
  thread_local std::vector<double> margins;
  margins.resize(c.impl->n_outputs());
  c.impl->margins(span_of(columns), margins.data());
  return d.decide(margins.data());
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

void bind_classify(nb::module_& m) {
  nb::class_<CompiledClassifier>(m, "CompiledClassifier", "An immutable compiled classifier (thread-safe).")
      .def_prop_ro("n_outputs", [](const CompiledClassifier& c) { return c.impl->n_outputs(); })
      .def_ro("method", &CompiledClassifier::method)
      .def("margins_batch", &margins_batch, nb::arg("indptr"), nb::arg("indices"), nb::arg("n_threads") = 1,
           "Margins of every CSR row (column ids), shape (rows, n_outputs).")
      .def("margins_one", &margins_one, nb::arg("columns"), "Margins of one vector of column ids, shape (n_outputs,).")
      .def("predict_batch", &predict_batch, nb::arg("indptr"), nb::arg("indices"), nb::arg("rule"), nb::arg("n_classes"),
           nb::arg("n_threads") = 1, "Class index of every CSR row under a decision rule (sign, argmax, ovo).")
      .def("predict_one", &predict_one, nb::arg("columns"), nb::arg("rule"), nb::arg("n_classes"),
           "Class index of one vector of column ids under a decision rule.");

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
}

}  // namespace conjunct::py
