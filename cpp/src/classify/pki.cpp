#include "conjunct/scratch.h"
#include "conjunct/classify/pki.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "conjunct/classify/checks.h"

namespace conjunct {

namespace {

struct PkiScratch {
  // Overlap counters, one per support vector, of each width (zero between calls).
  std::vector<uint8_t> c8;
  std::vector<uint16_t> c16;
  std::vector<uint32_t> c32;
  std::vector<int32_t> touched;
  template <class Count>
  std::vector<Count>& counters();
};
template <>
std::vector<uint8_t>& PkiScratch::counters<uint8_t>() { return c8; }
template <>
std::vector<uint16_t>& PkiScratch::counters<uint16_t>() { return c16; }
template <>
std::vector<uint32_t>& PkiScratch::counters<uint32_t>() { return c32; }

// kSpread[b] holds bit i of b in byte i: adding it to eight one-byte counters
// counts a bitmap byte's eight vectors at once.
struct Spread {
  uint64_t table[256];
  Spread() {
    for (int b = 0; b < 256; ++b) {
      table[b] = 0;
      for (int i = 0; i < 8; ++i)
        if ((b >> i) & 1) table[b] |= uint64_t{1} << (8 * i);
    }
  }
};
const Spread kSpread;

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
  // With one-byte counters, the postings of features in at least an eighth of
  // the vectors are also kept as bitmaps: counted eight vectors per addition.
  if (index.max_sv_length < 256) {
    const size_t rows = index.postings.rows(), bytes = (index.n_sv + 7) / 8;
    bitmap_of_.assign(rows, -1);
    for (size_t f = 0; f < rows; ++f) {
      const Span<int32_t> row = index.postings.row(f);
      if (row.size * 8 < index.n_sv) continue;
      bitmap_of_[f] = static_cast<int64_t>(bitmaps_.size());
      bitmaps_.resize(bitmaps_.size() + bytes, 0);
      uint8_t* bm = bitmaps_.data() + bitmap_of_[f];
      for (int32_t sv : row) bm[sv >> 3] |= static_cast<uint8_t>(1u << (sv & 7));
    }
  }
}

void Pki::margins_internal(Span<int32_t> x, double* out) const {
  // An overlap never exceeds a vector's length: the narrowest counter that holds it.
  if (index_.max_sv_length < 256) accumulate<uint8_t>(x, out);
  else if (index_.max_sv_length < 65536) accumulate<uint16_t>(x, out);
  else accumulate<uint32_t>(x, out);
}

template <class Count>
void Pki::accumulate(Span<int32_t> x, double* out) const {
  PkiScratch& sc = thread_scratch<PkiScratch>();
  const size_t n_sv = index_.n_sv, K = n_outputs();
  std::vector<Count>& counters = sc.counters<Count>();
  const size_t padded = (n_sv + 7) / 8 * 8;  // whole words for the bitmap additions
  if (counters.size() < padded) counters.resize(padded, 0);
  Count* count = counters.data();
  const size_t rows = index_.postings.rows();
  size_t postings = 0;
  for (int32_t f : x)
    if (static_cast<size_t>(f) < rows) postings += index_.postings.row(static_cast<size_t>(f)).size;
  for (size_t o = 0; o < K; ++o) out[o] = base_[o];
  const bool single = K == 1 && !alpha_.sparse();
  if (postings * 8 < n_sv) {
    // Few postings: count them, remembering which vectors they touch.
    std::vector<int32_t>& touched = sc.touched;
    touched.clear();
    for (int32_t f : x) {
      if (static_cast<size_t>(f) >= rows) continue;
      for (int32_t s : index_.postings.row(static_cast<size_t>(f)))
        if (count[s]++ == 0) touched.push_back(s);
    }
    double sum = 0.0;
    for (int32_t s : touched) {
      if (single) sum += delta_[count[s]] * alpha_.dense[s];
      else alpha_.add_scaled(static_cast<size_t>(s), delta_[count[s]], out);
      count[s] = 0;
    }
    out[0] += single ? sum : 0.0;
    return;
  }
  // Many: count without branches (eight vectors per addition where a bitmap
  // exists), then sweep every vector in order.
  for (int32_t f : x) {
    if (static_cast<size_t>(f) >= rows) continue;
    if (sizeof(Count) == 1 && !bitmap_of_.empty() && bitmap_of_[static_cast<size_t>(f)] >= 0) {
      const uint8_t* bm = bitmaps_.data() + bitmap_of_[static_cast<size_t>(f)];
      unsigned char* bytes = reinterpret_cast<unsigned char*>(count);
      for (size_t k = 0; k < padded / 8; ++k) {
        uint64_t word;
        std::memcpy(&word, bytes + 8 * k, 8);
        word += kSpread.table[bm[k]];
        std::memcpy(bytes + 8 * k, &word, 8);
      }
      continue;
    }
    for (int32_t s : index_.postings.row(static_cast<size_t>(f))) ++count[s];
  }
  if (single) {
    const double* a = alpha_.dense.data;
    const double* delta = delta_.data();
    double s0 = 0.0, s1 = 0.0;
    size_t i = 0;
    for (; i + 2 <= n_sv; i += 2) {
      s0 += delta[count[i]] * a[i];
      s1 += delta[count[i + 1]] * a[i + 1];
    }
    if (i < n_sv) s0 += delta[count[i]] * a[i];
    out[0] += s0 + s1;
  } else {
    for (size_t i = 0; i < n_sv; ++i)
      if (count[i] != 0) alpha_.add_scaled(i, delta_[count[i]], out);
  }
  std::fill(count, count + n_sv, Count{0});
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
