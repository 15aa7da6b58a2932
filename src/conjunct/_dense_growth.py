"""Growing a conjunction store's dense table after expansion.

A PKE store keeps conjunctions among the n most frequent features in a dense
table (one direct read each) and the rest in a trie keyed from the rarest
member down. At d >= 3 the trie walks for features just past n cost most of
PKE's time, and a larger dense table makes them direct reads
(benchmarks/bench_fstrie_limit.py, bunsetsu parser at d = 3: 1.36x faster
than the fixed 4 MiB table, for 25% more memory). The
table has C(n, d) entries, though, mostly zeros, so how far it may grow depends
on the model: this module moves the trie subtrees of the next most frequent
features into the dense table while the store stays within a memory factor of
what it was. At d <= 2 a larger table measured no faster, and neither did it
for multi-output stores; the caller (classifiers._default_dense) grows only
single-output stores at d >= 3.

Moving conjunctions between the two layouts changes no weight: the store sums
the same rows, in another order.
"""

from __future__ import annotations

from math import comb
from typing import Tuple

import numpy as np

# The store may grow by this factor when its dense table is grown.
DENSE_GROWTH = 1.25


def dense_entries(n: int, degree: int) -> int:
    """Entries of a dense table of the n most frequent features: conjunctions of 1..degree of them."""
    return sum(comb(n, r) for r in range(1, degree + 1))


def _binom(a: np.ndarray, r: int) -> np.ndarray:
    """C(a, r) elementwise for int64 a >= 0 and 1 <= r <= 4 (exact)."""
    out = np.ones_like(a)
    for k in range(r):
        out = out * (a - k) // (k + 1)  # C(a, k) * (a - k) = C(a, k + 1) * (k + 1): exact
    return out


def _store_bytes(n_dense: int, degree: int, K: int, n_nodes: int, n_features: int) -> int:
    # weight rows + labels + child_begin of the trie, its root map, and the dense table.
    return dense_entries(n_dense, degree) * K * 8 + n_nodes * (K * 8 + 8) + 4 + n_features * 4


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
    cb = np.asarray(store["child_begin"])
    label = np.asarray(store["label"])
    root_map = np.asarray(store["root_map"])
    n_nodes, F = label.size, root_map.size
    if n_nodes <= 1:
        return store, n_dense

    # Breadth-first layout, root children sorted by label: the subtrees of a run
    # of depth-1 nodes [s, e) are the runs [cb[s], cb[e]), [cb[cb[s]], cb[cb[e]]), ...
    first, last = int(cb[0]), int(cb[1])
    bounds = np.arange(first, last + 1, dtype=np.int64)  # each depth-1 node's run starts at bounds[i]
    sizes = np.ones(last - first, dtype=np.int64)  # trie nodes per depth-1 node, its subtree included
    for _ in range(2, degree + 1):
        bounds = cb[bounds].astype(np.int64)
        sizes += np.diff(bounds)
    subtree = np.zeros(F, dtype=np.int64)
    subtree[label[first:last]] = sizes

    before = _store_bytes(n_dense, degree, K, n_nodes, F)
    budget = growth * before
    best, moved = n_dense, 0
    n = n_dense
    while n < n_limit:
        n += 1
        moved += int(subtree[n - 1])
        if dense_entries(n, degree) * K * 8 > budget:
            break
        if _store_bytes(n, degree, K, n_nodes - moved, F) <= budget:
            best = n
    if best == n_dense:
        return store, n_dense

    # The depth-1 nodes whose label is in [n_dense, best), and their subtrees:
    # one contiguous run of nodes per depth.
    s1 = first + int(np.searchsorted(label[first:last], n_dense))
    e1 = first + int(np.searchsorted(label[first:last], best))
    runs = [(s1, e1)]
    for _ in range(2, degree + 1):
        s, e = runs[-1]
        runs.append((int(cb[s]), int(cb[e])))

    weight = np.asarray(store["weight"], dtype=np.float64).reshape(n_nodes, K)
    # Dense table of n' features: a level's entries keep their index, only the
    # level offsets move (combinatorial number system).
    old_dense = np.asarray(store["dense"], dtype=np.float64).reshape(-1, K)
    dense = np.zeros((dense_entries(best, degree), K), dtype=np.float64)
    old_offset = new_offset = 0
    offsets = {}
    for r in range(1, degree + 1):
        n_old = comb(n_dense, r)
        dense[new_offset:new_offset + n_old] = old_dense[old_offset:old_offset + n_old]
        offsets[r] = new_offset
        old_offset += n_old
        new_offset += comb(best, r)
    # Each moved node's labels from itself up to its depth-1 ancestor, as
    # ascending positions 0, 1, ... of its conjunction.
    parents = []  # per depth t >= 2: the parent of each node of the run
    for t in range(1, degree + 1):
        s, e = runs[t - 1]
        if s == e:
            break
        if t >= 2:
            ps, pe = runs[t - 2]
            parents.append(np.repeat(np.arange(ps, pe, dtype=np.int64), np.diff(cb[ps:pe + 1])))
        index = np.zeros(e - s, dtype=np.int64)
        cur = np.arange(s, e, dtype=np.int64)
        for position in range(t):
            index += _binom(label[cur].astype(np.int64), position + 1)
            if position + 1 < t:
                cur = parents[t - 2 - position][cur - runs[t - 1 - position][0]]
        # Each conjunction has its own index, outside the old table's: plain assignment.
        dense[offsets[t] + index] = weight[s:e]
    del parents

    keep = np.ones(n_nodes, dtype=bool)
    for s, e in runs:
        keep[s:e] = False

    def shifted(ids: np.ndarray) -> np.ndarray:
        """Node ids after removing the runs."""
        ids = ids.astype(np.int64)
        out = ids.copy()
        for s, e in runs:
            out -= np.clip(ids - s, 0, e - s)
        return out

    n_kept = n_nodes - sum(e - s for s, e in runs)
    new_cb = np.empty(n_kept + 1, dtype=np.int32)
    new_cb[:-1] = shifted(cb[:-1][keep])
    new_cb[-1] = n_kept
    new_root_map = root_map.astype(np.int32, copy=True)
    inside = new_root_map >= 0
    new_root_map[inside] = shifted(new_root_map[inside])
    new_root_map[n_dense:best] = -1  # their nodes moved into the dense table
    out = dict(store)
    out.update(dense=dense.ravel(), child_begin=new_cb, label=label[keep].astype(np.int32),
               root_map=new_root_map, weight=weight[keep].ravel())
    return out, best
