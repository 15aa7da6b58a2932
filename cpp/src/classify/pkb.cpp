#include "conjunct/scratch.h"
#include "conjunct/classify/pkb.h"

#include <stdexcept>

#include "conjunct/classify/checks.h"

namespace conjunct {

namespace {
struct PkbScratch {
  std::vector<uint8_t> marker;
};
}  // namespace

Pkb::Pkb(FeatureMap map, KernelModelView model) : Classifier(map, model.n_outputs()), model_(model) {
  if (model_.alpha.n_rows != model_.n_sv() || model_.alpha.n_outputs != model_.n_outputs())
    throw std::invalid_argument("pkb: alpha must have n_sv rows of n_outputs");
  model_.alpha.validate();
}

void Pkb::margins_internal(Span<int32_t> x, double* out) const {
  // Dense marker of x over internal ids: |s ∩ x| is then |s| lookups, for every s.
  std::vector<uint8_t>& marker = thread_scratch<PkbScratch>().marker;
  const size_t width = x.empty() ? 0 : static_cast<size_t>(x[x.size - 1]) + 1;
  if (marker.size() < width) marker.resize(width, 0);
  for (int32_t f : x) marker[f] = 1;
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = model_.bias[o];
  for (size_t i = 0; i < model_.n_sv(); ++i) {
    int64_t m = 0;
    for (int32_t f : model_.support_vectors.row(i)) m += static_cast<size_t>(f) < width ? marker[f] : 0;
    model_.alpha.add_scaled(i, model_.kernel.value(m), out);
  }
  for (int32_t f : x) marker[f] = 0;
}

Compiled compile_pkb(const Sections& inputs, const Meta& model, const Meta&) {
  const ModelInput m = model_input(inputs, model);
  if (!m.is_kernel) throw std::invalid_argument("method 'pkb' needs a kernel model (support vectors)");
  Compiled c;
  c.meta.set("gamma", m.kernel.gamma);
  c.meta.set("coef0", m.kernel.coef0);
  c.meta.set("degree", int64_t{m.kernel.degree});
  c.arrays.pass("col_map", "col_map", inputs);
  c.arrays.pass("sv_indptr", "sv_indptr", inputs);
  c.arrays.pass("sv_indices", "sv_indices", inputs);
  put_alpha(m, c.arrays);
  c.arrays.pass("bias", "intercept", inputs);
  return c;
}

std::unique_ptr<Classifier> open_pkb(const Meta& meta, const Sections& arrays) {
  const PolyKernel kernel = kernel_of(meta);
  const Span<int32_t> col_map = arrays.span<int32_t>("col_map");
  int32_t F = 0;
  for (int32_t c : col_map) F = std::max(F, c + 1);
  check_col_map(col_map, F);
  const CsrView svs = csr_of(arrays, "sv_indptr", "sv_indices");
  check_csr(svs, F, true, "support vectors");
  const Span<double> bias = bias_of(arrays);
  const AlphaRows alpha = alpha_of(arrays, svs.rows(), bias.size);
  return std::make_unique<Pkb>(FeatureMap{col_map}, KernelModelView{kernel, svs, alpha, bias});
}

}  // namespace conjunct
