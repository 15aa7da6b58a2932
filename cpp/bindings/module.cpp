#include "common.h"
#include "conjunct/decode/maxplus.h"
#include "conjunct/util/errors.h"

NB_MODULE(_core, m) {
  m.doc() = "conjunct's C++ core: kernels, classifiers, trainers and decoders";
  // Which vector instructions the decoders' max-plus loops use (benchmarks record it).
  m.attr("simd") = conjunct::kMaxPlusSimd;
  // A size limit the caller set (max_conjunctions, max_bytes) was reached: a
  // ValueError of its own type, which Python turns into a budget error.
  nanobind::exception<conjunct::LimitExceeded>(m, "LimitExceededError", PyExc_ValueError);
  conjunct::py::bind_kernel(m);
  conjunct::py::bind_classify(m);
  conjunct::py::bind_features(m);
  conjunct::py::bind_tasks(m);
  conjunct::py::bind_task_chunk(m);
  conjunct::py::bind_task_english(m);
  conjunct::py::bind_task_boundary(m);
  conjunct::py::bind_task_japanese(m);
  conjunct::py::bind_decode(m);
  conjunct::py::bind_train(m);
  conjunct::py::bind_featurize(m);
  conjunct::py::bind_adaptive(m);
}
