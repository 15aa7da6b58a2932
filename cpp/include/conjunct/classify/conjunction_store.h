// The weights w(t) of stored conjunctions t (sets of 1..d features), K outputs
// each, arranged for summing every stored t ⊆ x quickly:
//  - conjunctions whose features are all among the n_dense most frequent
//    (internal ids < n_dense) sit in a dense table indexed by the
//    combinatorial number system, one level per size;
//  - the others sit in a trie keyed from the rarest member down (descending
//    internal id), so a missing edge prunes every extension, and an unseen
//    rare feature costs one lookup.
#pragma once
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "conjunct/classify/sections.h"
#include "conjunct/features.h"
#include "conjunct/util/trie.h"

namespace conjunct {

// C(a, r) for 0 <= r <= 4 and a < n, as a flat table (r-major).
struct Binomials {
  std::vector<int64_t> table;  // table[r * n + a]
  int64_t n = 0;
  void init(int64_t n_values, int max_r);
  int64_t operator()(int64_t a, int r) const { return table[static_cast<size_t>(r * n + a)]; }
};

struct ConjunctionStoreView {
  size_t n_outputs = 1;
  int degree = 1;
  int32_t n_dense = 0;
  Span<double> dense;   // levels 1..degree, C(n_dense, r) entries of K each
  TrieView trie;
  Span<double> weight;  // n_nodes x K (the root's row is unused); empty when rows are sparse
  // Sparse rows (K > 1 only): node n's non-zero weights are row_value[i] for
  // output row_output[i], i in [row_begin[n], row_begin[n + 1]), outputs
  // ascending. A multi-class model's support vector moves a few of its K
  // rows, so most conjunctions have a few non-zero outputs of K.
  Span<int64_t> row_begin;
  Span<int32_t> row_output;
  Span<double> row_value;
  bool sparse() const { return row_begin.size != 0; }
};

class ConjunctionStore {
 public:
  explicit ConjunctionStore(ConjunctionStoreView view);
  size_t n_outputs() const { return v_.n_outputs; }
  int degree() const { return v_.degree; }
  int32_t n_dense() const { return v_.n_dense; }
  int32_t n_features() const { return static_cast<int32_t>(v_.trie.root_map.size); }

  // out += sum of w(t) over stored t ⊆ x whose rarest member is x[j], for every
  // j in [j_begin, j_end). x ascending (frequent to rare).
  void add_rarest(Span<int32_t> x, size_t j_begin, size_t j_end, double* out) const;

  // out += what positions [jb, je) of x add, each of them holding a feature
  // of the dense table (< n_dense): the same sums, in the same order, as
  // Walk::add position by position, with the K sums kept in registers
  // from one position to the next.
  void add_dense_positions(Span<int32_t> x, size_t jb, size_t je, double* out) const;

  // One vector's positions, one at a time. The trie walks test x's features
  // in a per-thread bit set, marked once, when a walk first needs them (a
  // vector whose features are all in the dense table never does), and
  // cleared at the end. Walks do not nest on a thread.
  class Walk {
   public:
    Walk(const ConjunctionStore& store, Span<int32_t> x) : s_(store), x_(x) {}
    ~Walk();
    Walk(const Walk&) = delete;
    Walk& operator=(const Walk&) = delete;
    // out += sum of w(t) over stored t ⊆ x whose rarest member is x[j].
    void add(size_t j, double* out) const;

   private:
    template <bool Single>
    void add_position(size_t j, double* out) const;
    const uint64_t* marks() const;

    const ConjunctionStore& s_;
    Span<int32_t> x_;
    mutable uint64_t* marks_ = nullptr;
  };

  // Per feature f, 2K values: the sums of the negative, then of the positive
  // weights of every stored conjunction whose rarest member is f (bounds of
  // what a position holding f adds), rounded outwards to floats (half the
  // memory for the same cache). Computed on first use, for the features up to
  // the last that is some conjunction's rarest member (a split classifier's
  // rare features are in no conjunction: their rows would be zeros).
  const float* bounds() const;
  void add_bounds(const float* bounds, int32_t f, double* lo, double* hi) const {
    const size_t K = v_.n_outputs;
    if (static_cast<size_t>(f) >= n_bounded_) return;
    const float* b = bounds + static_cast<size_t>(f) * 2 * K;
    if (K == 1) {
      lo[0] += b[0], hi[0] += b[1];
      return;
    }
    for (size_t o = 0; o < K; ++o) lo[o] += b[o], hi[o] += b[K + o];
  }
  // Where bounds start to pay in a walk over x from position p: two positions
  // before the first feature outside the dense table. Dense positions are
  // cheap and their bounds add up to more than most margins, so decisions
  // settle near the rare features (bunsetsu parser, d = 2: as much work
  // skipped as with bounds everywhere, for a tenth of the bound reads).
  size_t first_check(Span<int32_t> x, size_t p) const {
    const size_t q = static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v_.n_dense) - x.begin());
    return std::max(p, q >= 2 ? q - 2 : 0);
  }

 private:
  template <bool Single>
  void add_dense(const int32_t* x, size_t j, double* out) const;
  // The stored extensions of trie node `node` by x's features (marked), K = 1
  // (returned) or K outputs (added to out); n_xs bounds their positions in x.
  double descend_one(int32_t node, const uint64_t* marks, const int32_t* xs, size_t n_xs, int level) const;
  void descend(int32_t node, const uint64_t* marks, const int32_t* xs, size_t n_xs, int level, double* out) const;
  template <bool Single>
  void add_row(const double* w, double* out) const {
    if (Single) out[0] += w[0];
    else
      for (size_t o = 0; o < v_.n_outputs; ++o) out[o] += w[o];
  }
  // out += trie node `node`'s weights, K outputs (dense or sparse rows).
  void add_node_row(int32_t node, double* out) const {
    if (!v_.sparse()) {
      add_row<false>(v_.weight.data + static_cast<size_t>(node) * v_.n_outputs, out);
      return;
    }
    const int64_t end = v_.row_begin[static_cast<size_t>(node) + 1];
    for (int64_t i = v_.row_begin[static_cast<size_t>(node)]; i < end; ++i) out[v_.row_output[i]] += v_.row_value[i];
  }
  void compute_bounds() const;

  ConjunctionStoreView v_;
  // Degree 2, K > 1: the dense positions' single and pair rows (classify/row_sums.h); else null.
  void (*dense_rows_)(const double*, const double*, const int32_t*, size_t, size_t, size_t, double*);
  Binomials binom_;
  int64_t level_offset_[6] = {0, 0, 0, 0, 0, 0};  // dense offset of level r, in entries
  mutable std::once_flag bounds_once_;
  mutable std::vector<float> bounds_;  // per feature: K lows, then K highs
  mutable size_t n_bounded_ = 0;       // features bounds_ has rows for
};

// Owned arrays of a store, as produced by the builders.
struct ConjunctionStoreArrays {
  size_t n_outputs = 1;
  int degree = 1;
  int32_t n_dense = 0;
  std::vector<double> dense;
  TrieArrays trie;
  std::vector<double> weight;           // dense rows, or empty with the three sparse arrays
  std::vector<int64_t> row_begin;
  std::vector<int32_t> row_output;
  std::vector<double> row_value;
  std::vector<int64_t> count_by_size;  // stored (non-zero) conjunctions per size 0..degree
  ConjunctionStoreView view() const {
    return ConjunctionStoreView{n_outputs,          degree,       n_dense,
                                Span<double>(dense), trie.view(), Span<double>(weight),
                                Span<int64_t>(row_begin), Span<int32_t>(row_output), Span<double>(row_value)};
  }
};

// Trie rows are stored sparse when K > 1 and at most this share of their
// values is non-zero: then the sparse arrays (12 bytes per value) are at most
// ~40% of the dense rows and a row costs a few adds instead of K.
constexpr double kSparseRowDensity = 1.0 / 3.0;

// Dense levels support conjunctions of up to this many features.
constexpr int kMaxDenseDegree = 4;
// Default budget of the dense table.
constexpr int64_t kDefaultDenseBytes = int64_t{4} << 20;

}  // namespace conjunct

namespace conjunct {

// Collects dense entries and trie nodes (created parent first, in any order),
// then lays the trie out breadth-first.
class ConjunctionStoreBuilder {
 public:
  ConjunctionStoreBuilder(size_t n_outputs, int degree, int32_t n_dense, int32_t n_features);
  // The K-row of the dense entry of `asc` (r ascending ids, all < n_dense).
  double* dense_row(const int32_t* asc, int r);
  // A new child of `parent` (0 = root) labelled `label`, with a zero row.
  int32_t add_node(int32_t parent, int32_t label);
  double* node_row(int32_t node) { return weight_.data() + static_cast<size_t>(node) * K_; }
  size_t n_nodes() const { return label_.size(); }
  // Grows the dense table over the next most frequent features, up to
  // n_limit, while the store's bytes stay within `growth` times what they are
  // now: the trie conjunctions whose rarest member joins the table move into
  // it (same weights, read directly). Degrees 3 and 4 only; returns n_dense.
  int32_t grow_dense(int32_t n_limit, double growth);
  ConjunctionStoreArrays finish();

 private:
  // Dense level offsets and binomials for a table over n_dense features; returns its entries.
  int64_t set_levels(int32_t n_dense);

  size_t K_;
  int degree_;
  int32_t n_dense_, n_features_;
  Binomials binom_;
  int64_t level_offset_[6] = {0, 0, 0, 0, 0, 0};
  std::vector<double> dense_;
  std::vector<int32_t> parent_, label_;
  std::vector<uint8_t> depth_;
  std::vector<double> weight_;
};

// A store of explicit conjunctions: row t of `conjunctions` (internal ids,
// ascending, distinct rows) has weight row t of `weights` (n x K, row-major).
// growth > 1 grows the dense table up to n_limit features (see grow_dense).
ConjunctionStoreArrays build_conjunction_store(const CsrView& conjunctions, Span<double> weights, size_t n_outputs,
                                               int32_t n_features, int32_t n_dense, int32_t n_limit = 0,
                                               double growth = 1.0);

// Entries of a dense table over n features: the conjunctions of 1..degree of them.
int64_t dense_table_entries(int64_t n, int degree);

// How many of the most frequent features get the dense table: dense_features
// when given, else the most whose table of K-wide rows fits dense_bytes.
int32_t choose_n_dense(int degree, size_t n_outputs, int32_t n_features, std::optional<int64_t> dense_bytes,
                       std::optional<int64_t> dense_features);

// Turns the dense trie rows of a store into sparse rows when K > 1 and at most
// kSparseRowDensity of their values are non-zero (same values, same order).
void sparsify_rows(ConjunctionStoreArrays& store);

// The store as "store.*" arrays of a classifier, and back (checked).
void put_store(ConjunctionStoreArrays&& store, Sections& out);
ConjunctionStoreView store_of(const Sections& arrays, size_t n_outputs, int degree, int32_t n_dense, int32_t label_limit);

}  // namespace conjunct
