"""Growing a conjunction store's dense table after expansion.

A PKE store keeps conjunctions among the n most frequent features in a dense
table (one direct read each) and the rest in a trie keyed from the rarest
member down. At d >= 3 the trie walks for features just past n cost most of
PKE's time, and a larger dense table makes them direct reads
(benchmarks/bench_fstrie_limit.py: 1.29x at d = 3 for 19% more memory). The
table has C(n, d) entries, though, mostly zeros, so how far it may grow depends
on the model: this module moves the trie subtrees of the next most frequent
features into the dense table while the store stays within a memory factor of
what it was. At d <= 2 a larger table measured no faster, so it is not grown.

Moving conjunctions between the two layouts changes no weight: the store sums
the same rows, in another order.
"""

from __future__ import annotations

from math import comb
from typing import Tuple

import numpy as np

# The store may grow by this factor when its dense table is grown.
DENSE_GROWTH = 1.25


def _dense_entries(n: int, degree: int) -> int:
    return sum(comb(n, r) for r in range(1, degree + 1))


def _binom(a: np.ndarray, r: int) -> np.ndarray:
    """C(a, r) elementwise for int64 a >= 0 and 1 <= r <= 4 (exact)."""
    out = np.ones_like(a)
    for k in range(r):
        out = out * (a - k) // (k + 1)  # C(a, k) * (a - k) = C(a, k + 1) * (k + 1): exact
    return out


def _store_bytes(n_dense: int, degree: int, K: int, n_nodes: int, n_features: int) -> int:
    # weight rows + labels + child_begin of the trie, its root map, and the dense table.
    return _dense_entries(n_dense, degree) * K * 8 + n_nodes * (K * 8 + 8) + 4 + n_features * 4


def _parents(child_begin: np.ndarray) -> np.ndarray:
    """parent[c] of every node c >= 1 of a breadth-first trie (parent[0] = 0)."""
    n_nodes = child_begin.size - 1
    parent = np.zeros(n_nodes, dtype=np.int64)
    parent[1:] = np.repeat(np.arange(n_nodes, dtype=np.int64), np.diff(child_begin))
    return parent


def grow_dense(store: dict, degree: int, n_outputs: int, n_dense: int, n_limit: int,
               growth: float = DENSE_GROWTH) -> Tuple[dict, int]:
    """The store with a dense table of the largest n' in [n_dense, n_limit] that
    keeps its memory within ``growth`` times the current, and n'.

    ``store`` holds the arrays of the core's expansion (dense, child_begin,
    label, root_map, weight, count_by_size); it is returned unchanged when no
    larger table fits or when degree is not 3 or 4.
    """
    if degree < 3 or degree > 4 or n_limit <= n_dense:
        return store, n_dense
    K = int(n_outputs)
    child_begin = np.asarray(store["child_begin"], dtype=np.int64)
    label = np.asarray(store["label"], dtype=np.int64)
    root_map = np.asarray(store["root_map"])
    n_nodes, F = label.size, root_map.size
    if n_nodes <= 1:
        return store, n_dense
    parent = _parents(child_begin)
    depth = np.zeros(n_nodes, dtype=np.int8)
    rarest = np.full(n_nodes, -1, dtype=np.int64)  # the label of each node's depth-1 ancestor
    # Breadth-first layout: level t+1 is the children of level t's node range.
    lo, hi = int(child_begin[0]), int(child_begin[1])
    rarest[lo:hi] = label[lo:hi]
    depth[lo:hi] = 1
    for t in range(2, degree + 1):
        lo, hi = int(child_begin[lo]), int(child_begin[hi])
        if lo == hi:
            break
        rarest[lo:hi] = rarest[parent[lo:hi]]
        depth[lo:hi] = t
    subtree = np.bincount(rarest[1:], minlength=F)  # trie nodes per rarest feature

    before = _store_bytes(n_dense, degree, K, n_nodes, F)
    budget = growth * before
    best, moved = n_dense, 0
    n = n_dense
    while n < n_limit:
        n += 1
        moved_n = moved + int(subtree[n - 1])
        if _dense_entries(n, degree) * K * 8 > budget:
            break
        if _store_bytes(n, degree, K, n_nodes - moved_n, F) <= budget:
            best = n
        moved = moved_n
    if best == n_dense:
        return store, n_dense

    move = np.zeros(n_nodes, dtype=bool)
    move[1:] = (rarest[1:] >= n_dense) & (rarest[1:] < best)
    weight = np.asarray(store["weight"], dtype=np.float64).reshape(n_nodes, K)

    # Dense table of n' features: a level's entries keep their index, only the
    # level offsets move (combinatorial number system).
    old_dense = np.asarray(store["dense"], dtype=np.float64).reshape(-1, K)
    dense = np.zeros((_dense_entries(best, degree), K), dtype=np.float64)
    old_offset = new_offset = 0
    offsets = {}
    for r in range(1, degree + 1):
        n_old = comb(n_dense, r)
        dense[new_offset:new_offset + n_old] = old_dense[old_offset:old_offset + n_old]
        offsets[r] = new_offset
        old_offset += n_old
        new_offset += comb(best, r)
    for t in range(1, degree + 1):
        nodes = np.flatnonzero(move & (depth == t))
        if nodes.size == 0:
            continue
        # Path labels from the node up: the node's own label is the smallest
        # member (position 0 ascending), its depth-1 ancestor's the largest.
        index = np.zeros(nodes.size, dtype=np.int64)
        cur = nodes
        for position in range(t):
            index += _binom(label[cur], position + 1)
            cur = parent[cur]
        # Each conjunction has its own index, outside the old table's: plain assignment.
        dense[offsets[t] + index] = weight[nodes]

    keep = ~move
    new_id = np.cumsum(keep) - 1
    kept_before = np.concatenate(([0], np.cumsum(keep)))  # kept nodes with id < i
    kept = np.flatnonzero(keep)
    new_child_begin = np.concatenate((kept_before[child_begin[kept]], [kept.size])).astype(np.int32)
    new_root_map = np.where(root_map >= 0, new_id[np.maximum(root_map, 0)], -1).astype(np.int32)
    new_root_map[(root_map >= 0) & ~keep[np.maximum(root_map, 0)]] = -1
    out = dict(store)
    out.update(dense=dense.ravel(), child_begin=new_child_begin, label=label[kept].astype(np.int32),
               root_map=new_root_map, weight=weight[kept].ravel())
    return out, best
