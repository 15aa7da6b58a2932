#include "conjunct/classify/compile.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "conjunct/classify/adaptive.h"
#include "conjunct/classify/checks.h"
#include "conjunct/classify/fstrie.h"
#include "conjunct/classify/pkb.h"
#include "conjunct/classify/pke.h"
#include "conjunct/classify/pki.h"
#include "conjunct/classify/split.h"

namespace conjunct {

namespace {

struct Method {
  const char* name;
  const char* options;  // the options it accepts, separated by spaces
  Compiled (*compile)(const Sections& inputs, const Meta& model, const Meta& options);
  std::unique_ptr<Classifier> (*open)(const Meta& meta, const Sections& arrays);
};

const Method kMethods[] = {
    {"pkb", "", compile_pkb, open_pkb},
    {"pki", "", compile_pki, open_pki},
    {"pke", "sigma min_support dense_bytes dense_features dense_growth max_conjunctions", compile_pke, open_pke},
    {"split", "common_features min_support dense_bytes dense_features dense_growth max_conjunctions", compile_split,
     open_split},
    {"fstrie", nullptr, compile_fstrie, open_fstrie},  // its options include its base's
    {"adaptive", nullptr, compile_adaptive, open_adaptive},
};

const Method& method_named(const std::string& name) {
  for (const Method& m : kMethods)
    if (name == m.name) return m;
  std::string known;
  for (const Method& m : kMethods) known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw std::invalid_argument("unknown classification method '" + name + "'; expected one of " + known);
}

}  // namespace

std::vector<std::string> classification_methods() {
  std::vector<std::string> names;
  for (const Method& m : kMethods) names.emplace_back(m.name);
  return names;
}

Compiled compile_classifier(const std::string& method, const Sections& inputs, const Meta& model, const Meta& options) {
  const Method& m = method_named(method);
  if (m.options != nullptr) check_parameters(method, options, m.options);
  return m.compile(inputs, model, options);
}

std::unique_ptr<Classifier> open_classifier(const std::string& method, const Meta& meta, const Sections& arrays) {
  return method_named(method).open(meta, arrays);
}

bool is_named(const char* names, const std::string& key) {
  std::istringstream in(names);
  std::string name;
  while (in >> name)
    if (name == key) return true;
  return false;
}

void check_parameters(const std::string& method, const Meta& params, const char* allowed) {
  for (const auto& kv : params.values()) {
    if (!is_named(allowed, kv.first)) throw std::invalid_argument("method '" + method + "': unexpected keyword argument '" + kv.first + "'");
  }
}

PolyKernel kernel_of(const Meta& meta) {
  const int64_t degree = meta.integer("degree");
  if (degree < 1 || degree > 63) throw std::invalid_argument("the kernel's degree must be in [1, 63]");
  PolyKernel k(meta.real("gamma"), meta.real("coef0"), static_cast<int>(degree));
  if (!std::isfinite(k.gamma) || !std::isfinite(k.coef0)) throw std::invalid_argument("gamma and coef0 must be finite");
  return k;
}

Span<double> bias_of(const Sections& arrays) {
  const Span<double> bias = arrays.span<double>("bias");
  if (bias.empty()) throw std::invalid_argument("bias: the classifier has no outputs");
  check_finite(bias, "bias");
  return bias;
}

CsrView csr_of(const Sections& arrays, const std::string& indptr, const std::string& indices) {
  return CsrView{arrays.span<int64_t>(indptr), arrays.span<int32_t>(indices)};
}

int ModelInput::degree() const {
  if (is_kernel) return kernel.degree;
  int d = 1;
  for (size_t t = 0; t < rows.rows(); ++t) d = std::max(d, static_cast<int>(rows.row(t).size));
  return d;
}

ModelInput model_input(const Sections& in, const Meta& model) {
  ModelInput m;
  m.inputs = &in;
  m.col_map = in.span<int32_t>("col_map");
  int32_t F = 0;
  for (int32_t c : m.col_map) F = std::max(F, c + 1);
  check_col_map(m.col_map, F);
  m.n_features = F;
  m.intercept = in.span<double>("intercept");
  m.n_outputs = m.intercept.size;
  if (m.n_outputs == 0) throw std::invalid_argument("the model has no outputs");
  check_finite(m.intercept, "intercept");
  m.is_kernel = in.has("sv_indptr");
  if (m.is_kernel) {
    m.kernel = kernel_of(model);
    m.rows = csr_of(in, "sv_indptr", "sv_indices");
    m.coef = in.span<double>("dual_coef");
  } else {
    m.rows = csr_of(in, "conj_indptr", "conj_indices");
    m.coef = in.span<double>("weights");
  }
  check_csr(m.rows, F, true, m.is_kernel ? "support vectors" : "conjunctions");
  if (m.coef.size != m.rows.rows() * m.n_outputs)
    throw std::invalid_argument("the model needs K coefficients per row");
  check_finite(m.coef, m.is_kernel ? "dual_coef" : "weights");
  return m;
}

std::vector<double> constant_bias(const ModelInput& m) {
  std::vector<double> b(m.intercept.begin(), m.intercept.end());
  if (!m.is_kernel) return b;
  const double c0 = m.kernel.subset_weights()[0];
  std::vector<double> sum(m.n_outputs, 0.0);
  for (size_t i = 0; i < m.rows.rows(); ++i)
    for (size_t o = 0; o < m.n_outputs; ++o) sum[o] += m.coef[i * m.n_outputs + o];
  for (size_t o = 0; o < m.n_outputs; ++o) b[o] += c0 * sum[o];
  return b;
}

void put_alpha(const ModelInput& m, Sections& out) {
  const size_t K = m.n_outputs, n = m.rows.rows();
  size_t nonzero = 0;
  for (double a : m.coef) nonzero += a != 0.0;
  if (K > 1 && 2 * nonzero <= m.coef.size) {
    std::vector<int64_t> ptr{0};
    std::vector<int32_t> output;
    std::vector<double> value;
    for (size_t i = 0; i < n; ++i) {
      for (size_t o = 0; o < K; ++o)
        if (const double a = m.coef[i * K + o]; a != 0.0) output.push_back(static_cast<int32_t>(o)), value.push_back(a);
      ptr.push_back(static_cast<int64_t>(output.size()));
    }
    out.put("alpha", std::vector<double>(), {0, K});
    out.put("alpha_ptr", std::move(ptr));
    out.put("alpha_out", std::move(output));
    out.put("alpha_val", std::move(value));
    return;
  }
  out.pass("alpha", "dual_coef", *m.inputs);
  out.put("alpha_ptr", std::vector<int64_t>());
  out.put("alpha_out", std::vector<int32_t>());
  out.put("alpha_val", std::vector<double>());
}

AlphaRows alpha_of(const Sections& arrays, size_t n_rows, size_t n_outputs) {
  AlphaRows a;
  a.n_rows = n_rows;
  a.n_outputs = n_outputs;
  const Span<double> dense = arrays.span<double>("alpha");
  const Span<int64_t> ptr = arrays.span<int64_t>("alpha_ptr");
  if (!dense.empty() || ptr.empty()) {
    a.dense = dense;
  } else {
    a.ptr = ptr;
    a.output = arrays.span<int32_t>("alpha_out");
    a.value = arrays.span<double>("alpha_val");
  }
  check_alpha(a, "alpha");
  return a;
}

void transpose(const CsrView& m, int32_t first_column, int32_t n_columns, std::vector<int64_t>& indptr,
               std::vector<int32_t>& indices) {
  const size_t width = static_cast<size_t>(std::max(n_columns - first_column, 0));
  indptr.assign(width + 1, 0);
  for (int32_t c : m.indices)
    if (c >= first_column && c < n_columns) ++indptr[static_cast<size_t>(c - first_column) + 1];
  for (size_t c = 0; c < width; ++c) indptr[c + 1] += indptr[c];
  indices.assign(static_cast<size_t>(indptr[width]), 0);
  std::vector<int64_t> fill(indptr.begin(), indptr.end() - 1);
  for (size_t r = 0; r < m.rows(); ++r)
    for (int32_t c : m.row(r))
      if (c >= first_column && c < n_columns) indices[fill[static_cast<size_t>(c - first_column)]++] = static_cast<int32_t>(r);
}

}  // namespace conjunct
