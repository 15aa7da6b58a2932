#include "common.h"
#include "conjunct/decode/maxplus.h"

NB_MODULE(_core, m) {
  m.doc() = "conjunct's C++ core: kernels, classifiers, trainers and decoders";
  // Which vector instructions the decoders' max-plus loops use (benchmarks record it).
  m.attr("simd") = conjunct::kMaxPlusSimd;
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
