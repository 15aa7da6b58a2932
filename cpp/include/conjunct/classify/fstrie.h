// The feature sequence trie (Yoshinaga & Kitsuregawa 2009, §3.2-3.3).
//
// Build: source feature vectors ("events", e.g. the vectors an application
// classifies on real data) are sorted frequent -> rare, every prefix is
// inserted, and each node x_c stores the full margin W(x_c) computed with the
// base classifier. Algorithm 1 then repeatedly removes the leaf with the
// lowest utility u = p(x_c) * Delta_d(|x_c|) until at most max_nodes prefixes
// remain (ties: the lexicographically largest prefix first).
// Classify (Algorithm 2): walk x's longest stored prefix x[0..p), take its
// margin, and add what the base says the rest of x contributes. Exact whenever
// the base is.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/util/trie.h"

namespace conjunct {

class Fstrie final : public Classifier {
 public:
  // base: a pke or split classifier over the same internal ids, owned by the trie.
  Fstrie(FeatureMap map, TrieView trie, Span<double> weight, std::unique_ptr<Classifier> base);
  void margins_internal(Span<int32_t> x, double* out) const override;
  int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const override;
  // Length of x's longest stored prefix.
  size_t prefix_length(Span<int32_t> x) const;

 private:
  // The node of x's longest stored prefix and its length.
  int32_t walk(Span<int32_t> x, size_t* p) const;

  TrieView trie_;
  Span<double> weight_;  // n_nodes x K: margin of each stored prefix
  std::unique_ptr<Classifier> base_owner_;
  const ConjunctiveBase& base_;
};

struct FstrieStats {
  int64_t events = 0;           // source vectors given
  int64_t distinct_events = 0;  // after mapping to the model's features and merging duplicates
  int64_t nodes_before = 0;     // prefixes before pruning (without the root)
  int64_t nodes = 0;            // prefixes kept
};

struct FstrieArrays {
  TrieArrays trie;
  std::vector<double> weight;
  FstrieStats stats;
};

// events: rows of internal ids (any order, duplicates allowed; negative ids
// are features the model does not know and are dropped). degree: d of the
// utility's computation reduction Delta_d. max_nodes < 0 keeps every prefix.
FstrieArrays build_fstrie(const CsrView& events, const ConjunctiveBase& base, size_t n_outputs, int degree,
                          int32_t n_features, int64_t max_nodes);

// Arrays: col_map, trie.child_begin / label / root_map / weight (K margins
// per stored prefix), base.* (the base's arrays). Meta: degree, base (its
// method), base_params (its meta), max_nodes (or none), events,
// distinct_events, nodes_before_pruning, nodes. Options: max_nodes or
// max_bytes (of trie), base ("pke" or "split") and the base's options --
// or, to reuse a compiled base, its arrays as inputs base.* with base and
// base_params. Events: inputs events_indptr / events_indices (column ids).
Compiled compile_fstrie(const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_fstrie(const Meta& meta, const Sections& arrays);

// ---- shared with the other classifiers over a trie and a base (adaptive) ----------------

// The base as a ConjunctiveBase (what: the classifier over it, for errors).
const ConjunctiveBase& conjunctive(const Classifier* base, const std::string& what);

struct TrieBase {
  std::string method;  // "pke" or "split"
  Meta meta;
  Sections arrays;  // views
  std::unique_ptr<Classifier> classifier;
};
// The base of a classifier over a trie: compiled from the model with the
// options not named in `own` (nor base / base_params), or the compiled base.*
// inputs reused as they are. Adds base.* and col_map to out.arrays, and
// degree, base and base_params to out.meta.
TrieBase compile_trie_base(const std::string& what, const Sections& inputs, const Meta& model, const Meta& options,
                           const char* own, Compiled& out);
// Opens the base of such a classifier (meta base / base_params / degree,
// arrays base.*), checking that col_map is the base's; sets its feature count.
std::unique_ptr<Classifier> open_trie_base(const std::string& what, const Meta& meta, const Sections& arrays,
                                           int32_t* n_features);
// trie.child_begin / label / root_map over n_features ids and trie.weight (K per node), checked.
TrieView checked_trie(const Sections& arrays, int32_t n_features, size_t n_outputs, Span<double>* weight);

}  // namespace conjunct
