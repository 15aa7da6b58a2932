#include <nanobind/stl/vector.h>

#include "common.h"
#include "conjunct/kernel.h"

namespace conjunct::py {

void bind_kernel(nb::module_& m) {
  nb::class_<PolyKernel>(m, "PolyKernel",
                         "The polynomial kernel (gamma * |s ∩ x| + coef0) ** degree.\n\n"
                         "Parameters\n----------\n"
                         "gamma : float\n    Scale of the overlap |s ∩ x| (> 0).\n"
                         "coef0 : float\n    The constant c.\n"
                         "degree : int\n    The degree d.")
      .def(nb::init<double, double, int>(), nb::arg("gamma") = 1.0, nb::arg("coef0") = 1.0,
           nb::arg("degree") = 2)
      .def_ro("gamma", &PolyKernel::gamma)
      .def_ro("coef0", &PolyKernel::coef0)
      .def_ro("degree", &PolyKernel::degree)
      .def("value", &PolyKernel::value, nb::arg("overlap"), "Kernel value for `overlap` shared features.")
      .def("increment", &PolyKernel::increment, nb::arg("overlap"),
           "k(overlap + 1) - k(overlap): the sliced increment of one more shared feature.")
      .def("norm", &PolyKernel::norm, nb::arg("n_active"), "Kernel norm k(x, x) of a vector with n_active features.")
      .def("subset_weights", &PolyKernel::subset_weights,
           "c_d(r) for r = 0..degree, with k(m) = sum_r c_d(r) * C(m, r).");
}

}  // namespace conjunct::py
