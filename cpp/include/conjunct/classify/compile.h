// Compiling a model into a classifier's arrays, and opening those arrays.
//
// compile_classifier takes a model in internal feature ids (frequency ranks;
// Python ranks the features) and a method's parameters, and returns the
// classifier's named arrays and scalar meta: what the model file stores.
// open_classifier takes such arrays -- freshly compiled, read from a file or
// memory-mapped -- checks every one of them, and returns the immutable
// classifier viewing them without a copy.
//
// Inputs of compile_classifier (arrays):
//   col_map                  int32, column -> internal id or -1
//   sv_indptr, sv_indices    kernel model: support vectors (internal ids, ascending rows)
//   dual_coef                kernel model: n_sv x K signed coefficients
//   conj_indptr, conj_indices, weights   linear model: conjunctions and their K weights
//   intercept                K biases
//   events_indptr, events_indices        fstrie: events (column ids; default: the support vectors)
//   base.*                   fstrie: the arrays of an already compiled base (reused, not rebuilt)
// `model` holds gamma, coef0 and degree for kernel models; `options` the
// method's options (see compile.cpp; an fstrie given base.* arrays also gets
// base = their method and base_params = their meta).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "conjunct/classify/alpha.h"
#include "conjunct/classify/classifier.h"
#include "conjunct/classify/sections.h"
#include "conjunct/kernel.h"

namespace conjunct {

struct Compiled {
  Meta meta;
  Sections arrays;
};

Compiled compile_classifier(const std::string& method, const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_classifier(const std::string& method, const Meta& meta, const Sections& arrays);
// The methods' names, in the order they are documented: the one list Python reads (_core.METHODS).
std::vector<std::string> classification_methods();

// ---- shared by the methods' compile_* / open_* functions -------------------------------

// A model to compile, checked, in internal feature ids.
struct ModelInput {
  const Sections* inputs = nullptr;  // for arrays passed through
  Span<int32_t> col_map;
  int32_t n_features = 0;  // internal ids are 0 .. n_features - 1
  size_t n_outputs = 1;
  Span<double> intercept;
  bool is_kernel = true;
  PolyKernel kernel;  // kernel models
  CsrView rows;       // support vectors or conjunctions, ascending rows
  Span<double> coef;  // dual_coef or weights, rows x K
  int degree() const;  // the kernel's, or the longest conjunction's
};
ModelInput model_input(const Sections& inputs, const Meta& model);

// Margin of the empty vector: b + c_d(0) * sum_i alpha_i for kernel models, b for linear ones.
std::vector<double> constant_bias(const ModelInput& model);

// alpha, alpha_ptr, alpha_out, alpha_val: the dual coefficients, stored sparse
// when K > 1 and at most half are non-zero (one-vs-one models).
void put_alpha(const ModelInput& model, Sections& out);
AlphaRows alpha_of(const Sections& arrays, size_t n_rows, size_t n_outputs);

// The columns of a CSR (rows [first_column, n_columns) of its transpose),
// each column's row ids ascending.
void transpose(const CsrView& m, int32_t first_column, int32_t n_columns, std::vector<int64_t>& indptr,
               std::vector<int32_t>& indices);

// The kernel of a classifier's meta (gamma, coef0, degree), checked.
PolyKernel kernel_of(const Meta& meta);
// bias: K finite values.
Span<double> bias_of(const Sections& arrays);

CsrView csr_of(const Sections& arrays, const std::string& indptr, const std::string& indices);
// Whether `key` is one of `names` (separated by spaces).
bool is_named(const char* names, const std::string& key);
// The method's parameters must all be in `allowed` (names separated by spaces).
void check_parameters(const std::string& method, const Meta& params, const char* allowed);

}  // namespace conjunct
