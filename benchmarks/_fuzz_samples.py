"""Sample models for ``fuzz_models.py`` of what files leave out or shift:
an fstrie whose prefix margins are recomputed at load, and a classifier whose
trie labels are stored shifted (format version 3)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, List, Tuple

import numpy as np


def _margins_left_out(clf):
    """An fstrie whose file leaves out its prefix margins (saving decides once, and remembers)."""
    from conjunct.models import _derived

    _derived.LEAVE_OUT_PREFIX_MARGINS = True
    try:
        clf.to_container()
    finally:
        _derived.LEAVE_OUT_PREFIX_MARGINS = False
    return clf


def _compact(obj):
    """An object written with its integer sections narrowed (as pipelines are)."""
    return SimpleNamespace(to_container=obj.to_container, compact_sections=True)


def _binary_rows(rng, n: int, n_columns: int, density: float):
    """A CSR matrix of n random binary rows (at least one column each)."""
    import scipy.sparse as sp

    dense = rng.random((n, n_columns)) < density
    dense[np.arange(n), rng.integers(0, n_columns, size=n)] = True
    return sp.csr_matrix(dense.astype(np.float64))


def derived_samples(multi, rows, rng, small) -> List[Tuple[str, Any, dict]]:
    """(name, object, probe) of the samples (``multi``: the fuzz's three-class degree-2 model)."""
    import conjunct

    # The fstrie's prefix margins left out too (recomputed at load; saving keeps them by default).
    margins = _margins_left_out(multi.compile("fstrie", base="split", common_features=40, **small))
    # Trie labels from the root's -1 to 199 over 2,000-odd nodes: narrowed to |u1 shifted by 1.
    shifted = conjunct.KernelModel(_binary_rows(np.random.default_rng(11), 300, 200, 0.08), rng.normal(size=(300, 1)),
                                   [0.1], degree=2, features=conjunct.FeatureIndex([f"s{i}" for i in range(200)]))
    return [("classifier_fstrie_split_margins", margins, {"kind": "classifier", "rows": rows}),
            ("classifier_pke_shifted_labels", _compact(shifted.compile("pke", **small)),
             {"kind": "classifier", "rows": [[f"s{i}" for i in range(j, 200, 7)] for j in range(12)]})]
