#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "common.h"
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

KernelModelView kernel_model_view(double gamma, double coef0, int degree, const CsrView& svs,
                                  const ArrayN<double>& alpha, const Array1<double>& bias) {
  return KernelModelView{PolyKernel(gamma, coef0, degree), svs, span_of(alpha), span_of(bias)};
}

}  // namespace

void bind_classify(nb::module_& m) {
  nb::class_<CompiledClassifier>(m, "CompiledClassifier", "An immutable compiled classifier (thread-safe).")
      .def_prop_ro("n_outputs", [](const CompiledClassifier& c) { return c.impl->n_outputs(); })
      .def_ro("method", &CompiledClassifier::method)
      .def("margins_batch", &margins_batch, nb::arg("indptr"), nb::arg("indices"), nb::arg("n_threads") = 1,
           "Margins of every CSR row (column ids), shape (rows, n_outputs).")
      .def("margins_one", &margins_one, nb::arg("columns"), "Margins of one vector of column ids, shape (n_outputs,).");

  m.def(
      "make_pkb",
      [](const Array1<int32_t>& col_map, double gamma, double coef0, int degree, const Array1<int64_t>& sv_indptr,
         const Array1<int32_t>& sv_indices, const ArrayN<double>& alpha, const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        const auto view = kernel_model_view(gamma, coef0, degree, csr_of(sv_indptr, sv_indices), alpha, bias);
        c->impl = std::make_unique<Pkb>(FeatureMap{span_of(col_map)}, view);
        c->arrays.hold(col_map), c->arrays.hold(sv_indptr), c->arrays.hold(sv_indices);
        c->arrays.hold(alpha), c->arrays.hold(bias);
        c->method = "pkb";
        return c;
      },
      nb::arg("col_map"), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("sv_indptr"),
      nb::arg("sv_indices"), nb::arg("alpha"), nb::arg("bias"));

  m.def(
      "make_pki",
      [](const Array1<int32_t>& col_map, double gamma, double coef0, int degree, const Array1<int64_t>& inv_indptr,
         const Array1<int32_t>& inv_indices, size_t n_sv, int64_t max_sv_length, const ArrayN<double>& alpha,
         const Array1<double>& bias) {
        auto c = std::make_unique<CompiledClassifier>();
        InvertedIndexView index{csr_of(inv_indptr, inv_indices), n_sv, max_sv_length};
        for (int32_t s : span_of(inv_indices))
          if (s < 0 || static_cast<size_t>(s) >= n_sv) throw nb::value_error("inverted index names an unknown support vector");
        c->impl = std::make_unique<Pki>(FeatureMap{span_of(col_map)}, PolyKernel(gamma, coef0, degree), index,
                                        span_of(alpha), span_of(bias));
        c->arrays.hold(col_map), c->arrays.hold(inv_indptr), c->arrays.hold(inv_indices);
        c->arrays.hold(alpha), c->arrays.hold(bias);
        c->method = "pki";
        return c;
      },
      nb::arg("col_map"), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("inv_indptr"),
      nb::arg("inv_indices"), nb::arg("n_sv"), nb::arg("max_sv_length"), nb::arg("alpha"), nb::arg("bias"));
}

}  // namespace conjunct::py
