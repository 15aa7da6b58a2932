// A self-adaptive classifier for text streams (Yoshinaga & Kitsuregawa,
// COLING 2014): an exact classifier that caches the margins of the
// feature-sequence prefixes it meets in the stream it classifies -- the
// feature sequence trie (Yoshinaga & Kitsuregawa 2009), filled online from the input instead of
// built from events -- within a bounded number of rows of K margins.
//
// Classify x (internal ids, frequent to rare): walk x's longest prefix held by
// the optional static (warm-start) fstrie, then its longest prefix held by the
// cache, take that node's margin, and compute the rest position by position
// with the base (add_remainder on x[0..j+1) from j: the partial margin m^j of
// Yoshinaga & Kitsuregawa 2010 Eq. 3), inserting a node for each new prefix it admits.
//
// Design (why each piece is as it is):
//  - A node holds the full margin of its prefix, as an fstrie node does: a hit
//    of depth h costs one row read, however deep.
//  - A node is keyed by (parent node, feature) and found through a hash table
//    whose bucket is a hash of the whole prefix, so every bucket of x's path is
//    known (and prefetched) before the walk, and a bucket's key check is exact.
//  - Eviction is bottom-up: only nodes without cached children are evicted, so
//    a parent always outlives its children, a node id named as a parent is never
//    reused while referenced, and evicting never invalidates a longer prefix.
//    Victims are the least recently (lru) or least frequently (lfu,
//    Space-Saving: the newcomer inherits the victim's count) used among a few
//    childless nodes sampled by a roving hand, so a touch is one store to a
//    node the walk has read anyway.
//  - Admission (doorkeeper, TinyLFU-style): a prefix is cached on its second
//    sighting; first sightings set a bit in a small filter. A stream's unique
//    tails then cost no insertions, and what is not admitted is computed by the
//    base in one call (with early exit for decisions).
//  - Threads: the cache is runtime state behind an immutable interface. Either
//    every thread gets its own cache ("thread"), or `shards` caches are shared,
//    each behind a mutex taken by try-lock ("shared"): a call that finds its
//    shard busy classifies without the cache. Either way no margin depends on
//    another thread's timing, and a cached row is only ever the exact margin of
//    its prefix.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/classify/compile.h"
#include "conjunct/classify/conjunctive_base.h"
#include "conjunct/util/trie.h"

namespace conjunct {

enum class Eviction { Lru, Lfu };
enum class Sharing { Thread, Shared };

struct AdaptiveOptions {
  int64_t cache_rows = 1 << 16;  // prefixes cached: per thread ("thread"), or in total over the shards ("shared")
  Eviction eviction = Eviction::Lru;
  bool doorkeeper = true;        // cache a prefix on its second sighting (false: on its first)
  Sharing sharing = Sharing::Thread;
  int shards = 1;                // "shared": caches keyed by a hash of x's first features
};

// Counters over every cache of a classifier.
struct AdaptiveStats {
  int64_t calls = 0;              // classifications that used a cache
  int64_t bypassed = 0;           // ... that found their shard busy and went without
  int64_t positions = 0;          // features of the inputs (after mapping)
  int64_t static_positions = 0;   // ... covered by the warm-start trie
  int64_t cached_positions = 0;   // ... covered by cached prefixes (beyond the static trie)
  int64_t full_hits = 0;          // inputs whose whole vector was found
  int64_t inserted = 0;           // nodes inserted
  int64_t evicted = 0;            // nodes evicted
  int64_t nodes = 0;              // nodes cached now
  int64_t capacity = 0;           // rows available (over every cache)
  int64_t caches = 0;             // caches allocated (threads or shards)
};

class PrefixCache;

class Adaptive final : public Classifier {
 public:
  // base: a pke or split classifier over the same internal ids, owned by the
  // classifier. warm: optional static fstrie (nullptr: none) whose node n
  // holds the full margin warm_weight[n*K .. n*K+K).
  Adaptive(FeatureMap map, std::unique_ptr<Classifier> base, const TrieView* warm, Span<double> warm_weight,
           const AdaptiveOptions& options);
  ~Adaptive() override;

  void margins_internal(Span<int32_t> x, double* out) const override;
  int64_t decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const override;

  const AdaptiveOptions& options() const { return opt_; }
  AdaptiveStats stats() const;
  // Empties every cache (and the counters): the state after loading.
  void clear() const;

 private:
  // Margin (decision == nullptr) or decision of x.
  int64_t run(Span<int32_t> x, double* out, const Decision* decision, bool early_exit) const;
  // This thread's cache, found in (or added to) the thread's list `entries`.
  PrefixCache* thread_cache(std::vector<std::pair<uint64_t, PrefixCache*>>& entries) const;

  std::unique_ptr<Classifier> base_owner_;
  const ConjunctiveBase& base_;
  bool has_warm_;
  TrieView warm_;
  Span<double> warm_weight_;
  AdaptiveOptions opt_;
  uint64_t serial_;  // tells this classifier's per-thread caches apart from other classifiers'

  struct Shard {
    std::mutex mutex;
    std::unique_ptr<PrefixCache> cache;
  };
  mutable std::unique_ptr<Shard[]> shards_;
  mutable std::mutex registry_mutex_;  // guards thread_caches_
  mutable std::vector<std::unique_ptr<PrefixCache>> thread_caches_;
  mutable std::atomic<int64_t> bypassed_{0};
  mutable std::atomic<uint64_t> epoch_{0};  // bumped by clear(); per-thread caches empty themselves on change
};

// Arrays: col_map, base.* (the base's arrays) and, with a warm start, the
// fstrie's trie.*. Meta: degree, base, base_params, warm_start (and the
// fstrie's meta with it), cache_rows, eviction, doorkeeper, sharing, shards.
// Options: those five, base and the base's options, and max_nodes / max_bytes
// of the warm-start trie, built from inputs events_indptr / events_indices
// when given (see compile_fstrie).
Compiled compile_adaptive(const Sections& inputs, const Meta& model, const Meta& options);
std::unique_ptr<Classifier> open_adaptive(const Meta& meta, const Sections& arrays);

}  // namespace conjunct
