#include "conjunct/scratch.h"
#include "conjunct/classify/pki.h"

#include <algorithm>
#include <stdexcept>

#include "conjunct/classify/checks.h"

namespace conjunct {

namespace {
struct PkiScratch {
  std::vector<int32_t> count, touched;
};
}  // namespace

Pki::Pki(FeatureMap map, PolyKernel kernel, InvertedIndexView index, AlphaRows alpha, Span<double> bias)
    : Classifier(map, bias.size), index_(index), alpha_(alpha) {
  if (alpha.n_rows != index.n_sv || alpha.n_outputs != bias.size)
    throw std::invalid_argument("pki: alpha must have n_sv rows of n_outputs");
  alpha.validate();
  const double k0 = kernel.value(0);
  base_.assign(bias.begin(), bias.end());
  for (size_t i = 0; i < index.n_sv; ++i) alpha.add_scaled(i, k0, base_.data());
  delta_ = kernel.table(index.max_sv_length);
  for (double& v : delta_) v -= k0;
}

void Pki::margins_internal(Span<int32_t> x, double* out) const {
  // Overlap counts per support vector; zero on entry and on exit.
  PkiScratch& sc = thread_scratch<PkiScratch>();
  std::vector<int32_t>&count = sc.count, &touched = sc.touched;
  if (count.size() < index_.n_sv) count.resize(index_.n_sv, 0);
  touched.clear();
  for (int32_t f : x) {
    if (static_cast<size_t>(f) + 1 >= index_.postings.indptr.size) continue;
    for (int32_t s : index_.postings.row(static_cast<size_t>(f)))
      if (count[s]++ == 0) touched.push_back(s);
  }
  const size_t K = n_outputs();
  for (size_t o = 0; o < K; ++o) out[o] = base_[o];
  if (K == 1 && !alpha_.sparse()) {
    double sum = 0.0;
    for (int32_t s : touched) {
      sum += delta_[count[s]] * alpha_.dense[s];
      count[s] = 0;
    }
    out[0] += sum;
    return;
  }
  for (int32_t s : touched) {
    alpha_.add_scaled(static_cast<size_t>(s), delta_[count[s]], out);
    count[s] = 0;
  }
}


Compiled compile_pki(const Sections& inputs, const Meta& model, const Meta&) {
  const ModelInput m = model_input(inputs, model);
  if (!m.is_kernel) throw std::invalid_argument("method 'pki' needs a kernel model (support vectors)");
  std::vector<int64_t> indptr;
  std::vector<int32_t> indices;
  transpose(m.rows, 0, m.n_features, indptr, indices);
  int64_t longest = 0;
  for (size_t i = 0; i < m.rows.rows(); ++i) longest = std::max<int64_t>(longest, static_cast<int64_t>(m.rows.row(i).size));
  Compiled c;
  c.meta.set("gamma", m.kernel.gamma);
  c.meta.set("coef0", m.kernel.coef0);
  c.meta.set("degree", int64_t{m.kernel.degree});
  c.meta.set("n_sv", static_cast<int64_t>(m.rows.rows()));
  c.meta.set("max_sv_length", longest);
  c.arrays.pass("col_map", "col_map", inputs);
  c.arrays.put("inv_indptr", std::move(indptr));
  c.arrays.put("inv_indices", std::move(indices));
  put_alpha(m, c.arrays);
  c.arrays.pass("bias", "intercept", inputs);
  return c;
}

std::unique_ptr<Classifier> open_pki(const Meta& meta, const Sections& arrays) {
  const PolyKernel kernel = kernel_of(meta);
  const int64_t n_sv = meta.integer("n_sv");
  if (n_sv < 0 || n_sv > INT32_MAX) throw std::invalid_argument("n_sv is out of range");
  const CsrView postings = csr_of(arrays, "inv_indptr", "inv_indices");
  if (postings.indptr.empty()) throw std::invalid_argument("inverted index: row pointers are empty");
  const int32_t F = static_cast<int32_t>(std::min<size_t>(postings.rows(), INT32_MAX));
  check_csr(postings, n_sv, true, "inverted index");
  const Span<int32_t> col_map = arrays.span<int32_t>("col_map");
  check_col_map(col_map, F);
  // The overlap of x with a vector counts its postings: at most its length,
  // which sizes the kernel table.
  std::vector<int64_t> length(static_cast<size_t>(n_sv), 0);
  int64_t longest = 0;
  for (int32_t s : postings.indices) longest = std::max(longest, ++length[static_cast<size_t>(s)]);
  const Span<double> bias = bias_of(arrays);
  const AlphaRows alpha = alpha_of(arrays, static_cast<size_t>(n_sv), bias.size);
  return std::make_unique<Pki>(FeatureMap{col_map}, kernel, InvertedIndexView{postings, static_cast<size_t>(n_sv), longest},
                               alpha, bias);
}

}  // namespace conjunct
