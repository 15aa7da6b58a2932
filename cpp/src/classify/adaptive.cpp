#include "conjunct/scratch.h"
#include "conjunct/classify/adaptive.h"
#include "conjunct/classify/fstrie.h"
#include "conjunct/util/mix.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace conjunct {

namespace {

uint64_t next_pow2(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// A counter written by one thread at a time and read by any (stats()).
struct Counter {
  std::atomic<int64_t> v{0};
  void add(int64_t d) { v.store(v.load(std::memory_order_relaxed) + d, std::memory_order_relaxed); }
  int64_t get() const { return v.load(std::memory_order_relaxed); }
  void reset() { v.store(0, std::memory_order_relaxed); }
};

std::atomic<uint64_t> g_serial{1};

// How many childless nodes the roving hand examines to pick a victim.
constexpr int kSample = 8;
// "shared": the shard of x is a hash of its first kShardDepth features (a
// vector's cached prefixes of at least that length all live in one shard).
constexpr size_t kShardDepth = 4;

struct AdaptiveScratch {
  std::vector<uint64_t> hash;  // per position: hash of the prefix x[0..j]
  std::vector<double> m;
  // This thread's caches, one per classifier it has used (by serial number).
  std::vector<std::pair<uint64_t, PrefixCache*>> caches;
};

}  // namespace

// One cache: nodes (prefixes) with K-margin rows, a hash table from
// (parent, feature) to node, eviction bookkeeping and the doorkeeper. Used
// by one thread at a time.
class PrefixCache {
 public:
  PrefixCache(int64_t capacity, size_t K, Eviction eviction, bool doorkeeper)
      : limit_(static_cast<int32_t>(std::min<int64_t>(capacity, std::numeric_limits<int32_t>::max() - 1))),
        K_(K),
        lfu_(eviction == Eviction::Lfu),
        doorkeeper_(doorkeeper) {}

  // Node code of a parent: a cached node n >= 0, or static trie node s as -(s + 1).
  static int32_t static_code(int32_t s) { return -(s + 1); }

  // Walks x[p..) from `start` (the code of the prefix x[0..p)); returns the
  // depth reached and sets *node to the code of its node. Touches the deepest
  // node found (its ancestors are pinned by their children anyway).
  size_t walk(Span<int32_t> x, size_t p, int32_t start, const uint64_t* hash, int32_t* node) {
    ++clock_;
    int32_t cur = start;
    size_t j = p;
    if (n_used_ > 0) {
      for (size_t k = p; k < x.size; ++k) prefetch_read(&buckets_[hash[k] & mask_]);
      for (; j < x.size; ++j) {
        const int32_t c = find(hash[j], cur, x[j]);
        if (c < 0) break;
        cur = c;
      }
      if (cur >= 0) {
        Node& n = nodes_[static_cast<size_t>(cur)];
        n.last = clock_;
        if (n.hits != std::numeric_limits<uint32_t>::max()) ++n.hits;
      }
    }
    // The doorkeeper's words of the positions past the hit, before they are asked.
    if (doorkeeper_ && !door_.empty())
      for (size_t k = j; k < x.size; ++k) prefetch_read(&door_[door_bit(hash[k]) >> 6]);
    *node = cur;
    return j;
  }

  const double* row(int32_t node) const { return rows_.data() + static_cast<size_t>(node) * K_; }

  // Whether the prefix with this hash was seen before (and marks it seen).
  bool seen(uint64_t hash) {
    if (!doorkeeper_) return true;
    if (door_.empty()) {
      // Four bits per row (at least 2^12): a false "seen" only admits a prefix early.
      door_log2_ = 12;
      while (door_log2_ < 30 && (uint64_t{1} << door_log2_) < 4 * static_cast<uint64_t>(limit_)) ++door_log2_;
      door_.assign((size_t{1} << door_log2_) / 64, 0);
    }
    const uint64_t bit = door_bit(hash);
    uint64_t& word = door_[bit >> 6];
    const uint64_t b = uint64_t{1} << (bit & 63);
    if (word & b) return true;
    word |= b;
    if (++door_set_ > (size_t{1} << door_log2_) / 2) {  // aging: forget every first sighting
      std::fill(door_.begin(), door_.end(), 0);
      door_set_ = 0;
    }
    return false;
  }

  // A new node for prefix (parent, feature) holding `margin`; -1 when no node
  // can be evicted (every cached node lies on the current path).
  int32_t insert(int32_t parent, int32_t feature, uint64_t hash, const double* margin) {
    int32_t slot;
    uint32_t hits = 1;
    if (n_used_ < limit_) {
      if (n_used_ == allocated_) grow();
      slot = n_used_++;
      nodes_now.add(1);
    } else {
      slot = victim(parent);
      if (slot < 0) return -1;
      if (lfu_) hits = nodes_[static_cast<size_t>(slot)].hits + 1;  // Space-Saving: inherit the count
      evict(slot);
    }
    Node& n = nodes_[static_cast<size_t>(slot)];
    n.parent = parent;
    n.feature = feature;
    n.hash = hash;
    n.children = 0;
    n.last = clock_;
    n.hits = hits;
    if (parent >= 0) ++nodes_[static_cast<size_t>(parent)].children;
    size_t b = hash & mask_;
    while (buckets_[b].node >= 0) b = (b + 1) & mask_;
    buckets_[b] = Bucket{parent, feature, slot, 0};
    std::memcpy(rows_.data() + static_cast<size_t>(slot) * K_, margin, K_ * sizeof(double));
    inserted.add(1);
    return slot;
  }

  void clear() {
    n_used_ = 0;
    std::fill(buckets_.begin(), buckets_.end(), Bucket{});
    std::fill(door_.begin(), door_.end(), 0);
    door_set_ = 0;
    hand_ = 0;
    clock_ = 0;
    for (Counter* c : {&calls, &positions, &static_positions, &cached_positions, &full_hits, &inserted, &evicted}) c->reset();
    nodes_now.reset();
  }

  int64_t capacity() const { return limit_; }

  Counter calls, positions, static_positions, cached_positions, full_hits, inserted, evicted, nodes_now;
  std::atomic<uint64_t> epoch{0};  // Adaptive::epoch_ when last cleared (per-thread caches)

 private:
  struct Node {
    int32_t parent;
    int32_t feature;
    uint64_t hash;      // hash of the prefix: its low bits are the home bucket
    int32_t children;   // cached children (a node with children is never evicted)
    uint32_t last;      // clock of the last walk through it
    uint32_t hits;      // walks through it (Space-Saving count)
  };
  // A bucket holds its node's whole key, so the walk reads no node.
  struct Bucket {
    int32_t parent = 0;
    int32_t feature = 0;
    int32_t node = -1;
    int32_t unused = 0;
  };

  uint64_t door_bit(uint64_t hash) const { return (hash * 0x9E3779B97F4A7C15ULL) >> (64 - door_log2_); }

  int32_t find(uint64_t hash, int32_t parent, int32_t feature) const {
    for (size_t b = hash & mask_;; b = (b + 1) & mask_) {
      const Bucket& e = buckets_[b];
      if (e.node < 0) return -1;
      if (e.parent == parent && e.feature == feature) return e.node;
    }
  }

  // Grows the node and row arrays (doubling up to the limit) and rebuilds the
  // hash table at twice the node capacity.
  void grow() {
    allocated_ = static_cast<int32_t>(std::min<int64_t>(limit_, std::max<int64_t>(1024, int64_t{2} * allocated_)));
    nodes_.resize(static_cast<size_t>(allocated_));
    rows_.resize(static_cast<size_t>(allocated_) * K_);
    const size_t n_buckets = next_pow2(2 * static_cast<uint64_t>(allocated_) + 2);
    buckets_.assign(n_buckets, Bucket{});
    mask_ = n_buckets - 1;
    for (int32_t v = 0; v < n_used_; ++v) {
      const Node& n = nodes_[static_cast<size_t>(v)];
      size_t b = n.hash & mask_;
      while (buckets_[b].node >= 0) b = (b + 1) & mask_;
      buckets_[b] = Bucket{n.parent, n.feature, v, 0};
    }
  }

  // The childless node (other than `keep`) to evict: the least recently (lru)
  // or least often (lfu) used of up to kSample found by the roving hand.
  int32_t victim(int32_t keep) {
    int32_t best = -1;
    int found = 0;
    for (int32_t scanned = 0; scanned < n_used_ && found < kSample; ++scanned) {
      const int32_t v = hand_;
      hand_ = hand_ + 1 == n_used_ ? 0 : hand_ + 1;
      const Node& n = nodes_[static_cast<size_t>(v)];
      if (n.children != 0 || v == keep) continue;
      ++found;
      if (best < 0 || better_victim(n, nodes_[static_cast<size_t>(best)])) best = v;
    }
    return best;
  }
  bool better_victim(const Node& a, const Node& b) const {
    // The clock wraps after 2^32 calls; differences from it stay meaningful.
    const uint32_t age_a = clock_ - a.last, age_b = clock_ - b.last;
    if (lfu_ && a.hits != b.hits) return a.hits < b.hits;
    return age_a > age_b;
  }

  void evict(int32_t v) {
    Node& n = nodes_[static_cast<size_t>(v)];
    size_t i = n.hash & mask_;
    while (buckets_[i].node != v) i = (i + 1) & mask_;
    // Backward-shift deletion: pull later entries of the run into the hole.
    for (size_t j = i;;) {
      j = (j + 1) & mask_;
      const Bucket e = buckets_[j];
      if (e.node < 0) break;
      const size_t home = nodes_[static_cast<size_t>(e.node)].hash & mask_;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      buckets_[i] = e;
      i = j;
    }
    buckets_[i] = Bucket{};
    if (n.parent >= 0) --nodes_[static_cast<size_t>(n.parent)].children;
    evicted.add(1);
  }

  int32_t limit_;
  size_t K_;
  bool lfu_, doorkeeper_;
  int32_t n_used_ = 0, allocated_ = 0, hand_ = 0;
  uint32_t clock_ = 0;
  std::vector<Node> nodes_;
  std::vector<double> rows_;
  std::vector<Bucket> buckets_;
  size_t mask_ = 0;
  std::vector<uint64_t> door_;
  int door_log2_ = 12;
  size_t door_set_ = 0;
};

// -- the classifier ---------------------------------------------------------------------------

Adaptive::Adaptive(FeatureMap map, std::unique_ptr<Classifier> base, const TrieView* warm, Span<double> warm_weight,
                   const AdaptiveOptions& options)
    : Classifier(map, base->n_outputs()),
      base_owner_(std::move(base)),
      base_(conjunctive(base_owner_.get(), "adaptive")),
      has_warm_(warm != nullptr),
      warm_weight_(warm_weight),
      opt_(options),
      serial_(g_serial.fetch_add(1)) {
  const size_t n_outputs = Classifier::n_outputs();
  if (base_.base_outputs() != n_outputs) throw std::invalid_argument("adaptive: the base's outputs do not match");
  if (opt_.cache_rows < 0) throw std::invalid_argument("adaptive: cache_rows must be >= 0");
  if (opt_.shards < 1 || opt_.shards > 4096) throw std::invalid_argument("adaptive: shards must be in 1..4096");
  if (warm != nullptr) {
    warm_ = *warm;
    if (warm_weight.size != warm_.n_nodes() * n_outputs || warm_.n_nodes() == 0)
      throw std::invalid_argument("adaptive: the warm-start trie's weights do not match it");
  }
  if (opt_.sharing == Sharing::Shared) {
    shards_.reset(new Shard[static_cast<size_t>(opt_.shards)]);
    const int64_t rows = (opt_.cache_rows + opt_.shards - 1) / opt_.shards;
    for (int s = 0; s < opt_.shards; ++s)
      shards_[static_cast<size_t>(s)].cache = std::make_unique<PrefixCache>(rows, n_outputs, opt_.eviction, opt_.doorkeeper);
  }
}

Adaptive::~Adaptive() = default;

PrefixCache* Adaptive::thread_cache(std::vector<std::pair<uint64_t, PrefixCache*>>& entries) const {
  PrefixCache* cache = nullptr;
  for (auto& e : entries)
    if (e.first == serial_) {
      cache = e.second;
      break;
    }
  if (cache == nullptr) {
    auto owned = std::make_unique<PrefixCache>(opt_.cache_rows, n_outputs(), opt_.eviction, opt_.doorkeeper);
    cache = owned.get();
    {
      std::lock_guard<std::mutex> lock(registry_mutex_);
      thread_caches_.push_back(std::move(owned));
    }
    cache->epoch.store(epoch_.load(std::memory_order_acquire), std::memory_order_release);
    entries.emplace_back(serial_, cache);
  }
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  if (cache->epoch.load(std::memory_order_relaxed) != epoch) {
    cache->clear();
    cache->epoch.store(epoch, std::memory_order_release);
  }
  return cache;
}

int64_t Adaptive::run(Span<int32_t> x, double* out, const Decision* decision, bool early_exit) const {
  const size_t K = n_outputs(), L = x.size;
  // The static trie's longest prefix of x.
  size_t p = 0;
  int32_t s = 0;
  const double* row = base_.constant();
  if (has_warm_) {
    while (p < L) {
      const int32_t c = warm_.child(s, x[p]);
      if (c < 0) break;
      s = c;
      ++p;
    }
    row = warm_weight_.data + static_cast<size_t>(s) * K;
  }
  AdaptiveScratch& sc = thread_scratch<AdaptiveScratch>();
  std::vector<uint64_t>& hash = sc.hash;
  hash.resize(L);
  uint64_t h = 0x243F6A8885A308D3ULL;
  for (size_t j = 0; j < L; ++j) {
    h = (h ^ static_cast<uint32_t>(x[j])) * 0x9E3779B97F4A7C15ULL + 0x7F4A7C15ULL;
    hash[j] = mix64(h);
  }

  PrefixCache* cache = nullptr;
  std::unique_lock<std::mutex> lock;
  if (opt_.sharing == Sharing::Thread) {
    cache = thread_cache(sc.caches);
  } else {
    const size_t shard = opt_.shards == 1 || L == 0 ? 0 : (hash[std::min(L, kShardDepth) - 1] >> 7) % static_cast<size_t>(opt_.shards);
    Shard& sh = shards_[shard];
    lock = std::unique_lock<std::mutex>(sh.mutex, std::try_to_lock);
    if (lock.owns_lock()) cache = sh.cache.get();
    else bypassed_.fetch_add(1, std::memory_order_relaxed);
  }

  size_t j = p;
  if (cache == nullptr || cache->capacity() == 0) {
    std::copy(row, row + K, out);
  } else {
    int32_t node = PrefixCache::static_code(s);
    const size_t hit = cache->walk(x, p, node, hash.data(), &node);
    if (node >= 0) row = cache->row(node);
    std::copy(row, row + K, out);
    cache->calls.add(1);
    cache->positions.add(static_cast<int64_t>(L));
    cache->static_positions.add(static_cast<int64_t>(p));
    cache->cached_positions.add(static_cast<int64_t>(hit - p));
    if (hit == L) cache->full_hits.add(1);
    // Extend the cached path by the prefixes admitted; the rest goes to the base in one call.
    for (j = hit; j < L; ++j) {
      if (!cache->seen(hash[j])) {
        for (size_t k = j + 1; k < L; ++k) cache->seen(hash[k]);
        break;
      }
      base_.add_remainder(Span<int32_t>(x.data, j + 1), j, out);
      const int32_t child = cache->insert(node, x[j], hash[j], out);
      if (child < 0) {  // nothing can be evicted: the cache holds only this path
        ++j;
        break;
      }
      node = child;
    }
  }
  if (lock.owns_lock()) lock.unlock();

  if (decision != nullptr) {
    if (early_exit) return base_.decide_remainder(x, j, out, *decision);
    if (j < L) base_.add_remainder(x, j, out);
    return decision->decide(out);
  }
  if (j < L) base_.add_remainder(x, j, out);
  return 0;
}

void Adaptive::margins_internal(Span<int32_t> x, double* out) const { run(x, out, nullptr, false); }

int64_t Adaptive::decide_internal(Span<int32_t> x, const Decision& decision, bool early_exit) const {
  std::vector<double>& m = thread_scratch<AdaptiveScratch>().m;
  m.resize(n_outputs());
  return run(x, m.data(), &decision, early_exit);
}

AdaptiveStats Adaptive::stats() const {
  AdaptiveStats st;
  auto add = [&](const PrefixCache& c) {
    st.calls += c.calls.get();
    st.positions += c.positions.get();
    st.static_positions += c.static_positions.get();
    st.cached_positions += c.cached_positions.get();
    st.full_hits += c.full_hits.get();
    st.inserted += c.inserted.get();
    st.evicted += c.evicted.get();
    st.nodes += c.nodes_now.get();
    st.capacity += c.capacity();
    ++st.caches;
  };
  if (opt_.sharing == Sharing::Shared) {
    for (int s = 0; s < opt_.shards; ++s) {
      std::lock_guard<std::mutex> lock(shards_[static_cast<size_t>(s)].mutex);
      add(*shards_[static_cast<size_t>(s)].cache);
    }
  } else {
    const uint64_t epoch = epoch_.load(std::memory_order_acquire);
    std::lock_guard<std::mutex> lock(registry_mutex_);
    for (const auto& c : thread_caches_)
      if (c->epoch.load(std::memory_order_acquire) == epoch) add(*c);  // a cache of an older epoch empties itself on its next use
  }
  st.bypassed = bypassed_.load(std::memory_order_relaxed);
  return st;
}

void Adaptive::clear() const {
  if (opt_.sharing == Sharing::Shared) {
    for (int s = 0; s < opt_.shards; ++s) {
      std::lock_guard<std::mutex> lock(shards_[static_cast<size_t>(s)].mutex);
      shards_[static_cast<size_t>(s)].cache->clear();
    }
  } else {
    epoch_.fetch_add(1, std::memory_order_acq_rel);
  }
  bypassed_.store(0, std::memory_order_relaxed);
}

namespace {

constexpr const char* kAdaptiveOptions = "cache_rows eviction doorkeeper sharing shards";

// The cache's parameters from a compile's options (defaults for those not
// given) or from a classifier's meta (every one required).
AdaptiveOptions adaptive_options(const Meta& m, bool defaults) {
  AdaptiveOptions opt;
  if (!defaults || m.has("cache_rows")) {
    opt.cache_rows = m.integer("cache_rows");
    if (opt.cache_rows < 0) throw std::invalid_argument("cache_rows must be an integer >= 0");
  }
  if (!defaults || m.has("eviction")) {
    const std::string& e = m.text("eviction");
    if (e == "lru") opt.eviction = Eviction::Lru;
    else if (e == "lfu") opt.eviction = Eviction::Lfu;
    else throw std::invalid_argument("eviction must be 'lru' or 'lfu', got '" + e + "'");
  }
  if (!defaults || m.has("doorkeeper")) opt.doorkeeper = m.flag("doorkeeper");
  if (!defaults || m.has("sharing")) {
    const std::string& s = m.text("sharing");
    if (s == "thread") opt.sharing = Sharing::Thread;
    else if (s == "shared") opt.sharing = Sharing::Shared;
    else throw std::invalid_argument("sharing must be 'thread' (a cache per thread) or 'shared', got '" + s + "'");
  }
  if (!defaults || m.has("shards")) {
    const int64_t shards = m.integer("shards");
    if (shards < 1 || shards > 4096) throw std::invalid_argument("shards must be an integer in 1..4096");
    opt.shards = static_cast<int>(shards);
  }
  return opt;
}

}  // namespace

Compiled compile_adaptive(const Sections& inputs, const Meta& model, const Meta& options) {
  const AdaptiveOptions opt = adaptive_options(options, true);
  Meta rest;  // the warm-start trie's and the base's options
  for (const auto& [key, value] : options.values())
    if (!is_named(kAdaptiveOptions, key)) rest.set(key, value);
  Compiled c;
  const bool warm = inputs.has("events_indptr");
  if (warm) {
    c = compile_fstrie(inputs, model, rest);
  } else {
    if (rest.has("max_nodes") || rest.has("max_bytes"))
      throw std::invalid_argument("max_nodes / max_bytes size the warm-start trie: give warm_start events too");
    compile_trie_base("adaptive", inputs, model, rest, "", c);
  }
  c.meta.set("warm_start", warm);
  c.meta.set("cache_rows", opt.cache_rows);
  c.meta.set("eviction", std::string(opt.eviction == Eviction::Lru ? "lru" : "lfu"));
  c.meta.set("doorkeeper", opt.doorkeeper);
  c.meta.set("sharing", std::string(opt.sharing == Sharing::Thread ? "thread" : "shared"));
  c.meta.set("shards", static_cast<int64_t>(opt.shards));
  return c;
}

std::unique_ptr<Classifier> open_adaptive(const Meta& meta, const Sections& arrays) {
  const AdaptiveOptions opt = adaptive_options(meta, false);
  int32_t F = 0;
  std::unique_ptr<Classifier> base = open_trie_base("adaptive", meta, arrays, &F);
  const FeatureMap map{arrays.span<int32_t>("col_map")};
  if (!meta.flag("warm_start")) return std::make_unique<Adaptive>(map, std::move(base), nullptr, Span<double>(), opt);
  Span<double> weight;
  const TrieView trie = checked_trie(arrays, F, base->n_outputs(), &weight);
  return std::make_unique<Adaptive>(map, std::move(base), &trie, weight, opt);
}

}  // namespace conjunct
