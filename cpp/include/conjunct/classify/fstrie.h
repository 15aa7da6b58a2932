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
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/util/progress.h"
#include "conjunct/util/trie.h"

namespace conjunct {

class Fstrie final : public Classifier {
 public:
  Fstrie(FeatureMap map, TrieView trie, Span<double> weight, const ConjunctiveBase& base, size_t n_outputs);
  void margins_internal(Span<int32_t> x, double* out) const override;
  int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const override;
  // Length of x's longest stored prefix.
  size_t prefix_length(Span<int32_t> x) const;

 private:
  // The node of x's longest stored prefix and its length.
  int32_t walk(Span<int32_t> x, size_t* p) const;

  TrieView trie_;
  Span<double> weight_;  // n_nodes x K: margin of each stored prefix
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
// progress (may be null) is ticked once per event and once per prefix weighed.
FstrieArrays build_fstrie(const CsrView& events, const ConjunctiveBase& base, size_t n_outputs, int degree,
                          int32_t n_features, int64_t max_nodes, Progress* progress = nullptr);

}  // namespace conjunct
