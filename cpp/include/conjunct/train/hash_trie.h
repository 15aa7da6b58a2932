// A trie over feature sequences whose edges live in one open-addressing hash
// table keyed by (parent node, feature); the root's children are a direct
// array indexed by feature. The training tries (weight trie, partial-margin
// trie, the l1 log-linear model's conjunction index) are this structure plus a
// payload array indexed by node id.
//
// Why not a double array (as opal)? Training inserts nodes in every round, and
// a double array's relocations on insertion cost more than they save on these
// short paths; one probe into a flat table (12-byte slots, load <= 0.6) is a
// single cache miss, and the root array removes the probe for the first
// (most frequent) edge. Node ids grow from 1 in creation order, so a parent's
// id is always smaller than its children's (pruning relies on it).
//
// Placement: a node's edge is probed from a slot chosen by hashing (parent,
// label), or, in prefix-placed tries, by a rolling hash of the node's whole
// path (place()). The key compared is (parent, label) either way, so both are
// exact; prefix placement lets a caller that knows a whole path compute every
// slot up front and prefetch them all, instead of paying one dependent cache
// miss per level (the partial-margin trie walks each example's prefixes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conjunct/util/mix.h"

namespace conjunct {

class HashTrie {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = 0;  // "no child" (the root is never a child)

  explicit HashTrie(bool prefix_placed = false) : prefix_placed_(prefix_placed) { clear(); }

  // Rolling placement hash of a path: place(child) = roll(place(parent), label).
  static constexpr uint64_t kRootPlace = 0x2545F4914F6CDD1DULL;
  static uint64_t roll(uint64_t place, int32_t label) {
    return mix64(place ^ (static_cast<uint64_t>(static_cast<uint32_t>(label)) * 0x9E3779B97F4A7C15ULL));
  }
  void prefetch(uint64_t place) const { __builtin_prefetch(&slots_[place & mask_]); }

  // Prefix-placed tries: child of `node` (whose child's path hashes to `place`),
  // created if absent.
  uint32_t child_or_add_placed(uint32_t node, int32_t label, uint64_t place, bool& created) {
    return add(node, label, node == kRoot ? 0 : place & mask_, created);
  }

  void clear() {
    slots_.assign(16, Slot{});
    mask_ = 15;
    used_ = 0;
    root_.clear();
    n_nodes_ = 1;
  }

  size_t n_nodes() const { return n_nodes_; }  // including the root

  // Child of `node` along `label`, or kNone. (Hash-placed tries only.)
  uint32_t child(uint32_t node, int32_t label) const {
    if (node == kRoot) return static_cast<size_t>(label) < root_.size() ? root_[label] : kNone;
    size_t i = hash(node, label) & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.parent == node && s.label == static_cast<uint32_t>(label)) return s.child;
      if (s.parent == 0) return kNone;
      i = (i + 1) & mask_;
    }
  }

  // Two-phase lookup for batches (hash-placed tries): slot() names where the
  // probe for (node, label) starts (prefetch it), child_at() finishes it.
  // Issuing a whole batch of slots before resolving any overlaps their cache
  // misses.
  size_t slot(uint32_t node, int32_t label) const {
    const size_t i = hash(node, label) & mask_;
    __builtin_prefetch(&slots_[i]);
    return i;
  }
  uint32_t child_at(size_t i, uint32_t node, int32_t label) const {
    while (true) {
      const Slot& s = slots_[i];
      if (s.parent == node && s.label == static_cast<uint32_t>(label)) return s.child;
      if (s.parent == 0) return kNone;
      i = (i + 1) & mask_;
    }
  }

  // Child of `node` along `label`, created if absent; `created` tells which.
  // (Hash-placed tries only.)
  uint32_t child_or_add(uint32_t node, int32_t label, bool& created) {
    return add(node, label, node == kRoot ? 0 : hash(node, label) & mask_, created);
  }

  // parent[id] and label[id] of every node (the root's are 0 / -1).
  void edges(std::vector<uint32_t>& parent, std::vector<int32_t>& label) const {
    parent.assign(n_nodes_, 0);
    label.assign(n_nodes_, -1);
    for (size_t f = 0; f < root_.size(); ++f)
      if (root_[f] != kNone) parent[root_[f]] = kRoot, label[root_[f]] = static_cast<int32_t>(f);
    for (const Slot& s : slots_)
      if (s.parent != 0) parent[s.child] = s.parent, label[s.child] = static_cast<int32_t>(s.label);
  }

  // Keeps the nodes with keep[id] (a kept node's parent must be kept) and
  // renumbers them in id order; returns the new id of every old id (kNone if
  // dropped) so callers can compact their payload arrays the same way.
  std::vector<uint32_t> retain(const std::vector<char>& keep) {
    std::vector<uint32_t> parent;
    std::vector<int32_t> label;
    edges(parent, label);
    std::vector<uint32_t> renum(n_nodes_, kNone);
    renum[kRoot] = kRoot;
    uint32_t next = 1;
    for (size_t id = 1; id < n_nodes_; ++id)
      if (keep[id]) renum[id] = next++;
    std::vector<uint32_t> new_parent(next, kRoot);
    std::vector<int32_t> new_label(next, -1);
    for (size_t id = 1; id < n_nodes_; ++id)
      if (keep[id]) new_parent[renum[id]] = renum[parent[id]], new_label[renum[id]] = label[id];
    for (uint32_t& c : root_) c = (c != kNone && keep[c]) ? renum[c] : kNone;
    n_nodes_ = next;
    size_t slots = 16;
    while (slots * 6 < static_cast<size_t>(next) * 10) slots *= 2;
    rebuild(slots, new_parent, new_label);
    return renum;
  }

  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot) + root_.capacity() * sizeof(uint32_t); }

 private:
  struct Slot {
    uint32_t parent = 0;  // 0: empty (root edges are not stored here)
    uint32_t label = 0;
    uint32_t child = 0;
  };

  // Keys differ in few low bits, so mix them well.
  static size_t hash(uint32_t node, int32_t label) {
    return static_cast<size_t>(mix64((static_cast<uint64_t>(node) << 32) | static_cast<uint32_t>(label)));
  }

  uint32_t add(uint32_t node, int32_t label, size_t start, bool& created) {
    created = false;
    if (node == kRoot) {
      if (static_cast<size_t>(label) >= root_.size()) root_.resize(static_cast<size_t>(label) + 1, kNone);
      uint32_t& c = root_[label];
      if (c == kNone) c = next_id(), created = true;
      return c;
    }
    size_t i = start;
    while (true) {
      Slot& s = slots_[i];
      if (s.parent == node && s.label == static_cast<uint32_t>(label)) return s.child;
      if (s.parent == 0) break;
      i = (i + 1) & mask_;
    }
    if ((used_ + 1) * 10 > slots_.size() * 6) {
      grow();
      // The table's size changed: the start slot is recomputed from the key / path.
      const uint64_t place = prefix_placed_ ? place_of(node, label) : hash(node, label);
      return add(node, label, place & mask_, created);
    }
    slots_[i] = Slot{node, static_cast<uint32_t>(label), next_id()};
    ++used_;
    created = true;
    return slots_[i].child;
  }

  // place() of the child (node, label), from the root (rarely: table growth only).
  uint64_t place_of(uint32_t node, int32_t label) const {
    std::vector<uint32_t> parent;
    std::vector<int32_t> labels;
    edges(parent, labels);
    std::vector<int32_t> path{label};
    for (uint32_t v = node; v != kRoot; v = parent[v]) path.push_back(labels[v]);
    uint64_t place = kRootPlace;
    for (size_t i = path.size(); i-- > 0;) place = roll(place, path[i]);
    return place;
  }

  // Re-inserts every non-root edge into a table of `slots` slots.
  void rebuild(size_t slots, const std::vector<uint32_t>& parent, const std::vector<int32_t>& label) {
    slots_.assign(slots, Slot{});
    mask_ = slots - 1;
    used_ = 0;
    std::vector<uint64_t> place;
    if (prefix_placed_) {  // parents precede children in id order
      place.assign(parent.size(), kRootPlace);
      for (size_t id = 1; id < parent.size(); ++id) place[id] = roll(place[parent[id]], label[id]);
    }
    for (size_t id = 1; id < parent.size(); ++id) {
      if (parent[id] == kRoot) continue;
      const Slot s{parent[id], static_cast<uint32_t>(label[id]), static_cast<uint32_t>(id)};
      size_t i = (prefix_placed_ ? place[id] : hash(s.parent, label[id])) & mask_;
      while (slots_[i].parent != 0) i = (i + 1) & mask_;
      slots_[i] = s;
      ++used_;
    }
  }

  uint32_t next_id() { return static_cast<uint32_t>(n_nodes_++); }

  void grow() {
    std::vector<uint32_t> parent;
    std::vector<int32_t> label;
    edges(parent, label);
    rebuild(slots_.size() * 2, parent, label);
  }

  bool prefix_placed_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t used_ = 0;
  std::vector<uint32_t> root_;
  size_t n_nodes_ = 1;
};

}  // namespace conjunct
