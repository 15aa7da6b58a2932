import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import conjunct
from conjunct import DataFormatError, FeatureIndex, rows_to_csr


def test_from_data_counts_and_ranks():
    rows = [["a", "b", "b"], ["b", "c"], ["c", "b"], ["d"]]
    idx = FeatureIndex.from_data(rows)
    assert idx.names == ["a", "b", "c", "d"]
    assert idx.counts.tolist() == [1, 3, 2, 1]  # per example, duplicates once
    # rank 1 = most frequent; ties (a, d: count 1) broken by id.
    assert idx.ranks().tolist() == [3, 1, 2, 4]
    assert idx.order().tolist() == [1, 2, 0, 3]


def test_transform_drops_unknown_and_dedupes():
    idx = FeatureIndex(["x", "y", "z"])
    X = idx.transform([["z", "x", "q", "z"], []])
    assert X.shape == (2, 3)
    assert X[0].indices.tolist() == [0, 2]
    assert X[1].nnz == 0
    X2 = idx.transform([["q"]], add=True, count=True)
    assert idx.names[-1] == "q" and X2[0].indices.tolist() == [3] and idx.counts.tolist() == [0, 0, 0, 1]


def test_duplicate_names_rejected():
    with pytest.raises(DataFormatError, match="twice"):
        FeatureIndex(["a", "a"])


def test_roundtrip_arrays_unicode():
    idx = FeatureIndex.from_data([["語=日本", "w=a b"], ["\u00e9"]])
    meta, arrays = idx.to_arrays()
    again = FeatureIndex.from_arrays(meta, arrays)
    assert again == idx
    num = FeatureIndex.numeric(5, counts=[1, 2, 3, 4, 5])
    assert FeatureIndex.from_arrays(*num.to_arrays()) == num
    assert num.is_numeric and num.name(3) == "3"


def test_numeric_index_rejects_strings():
    with pytest.raises(TypeError):
        FeatureIndex.numeric(3).transform([["a"]])


def test_rows_to_csr_sorts_and_refuses_or_merges_repeats():
    X = rows_to_csr([[5, 1, 3], [], [0]])
    assert X.shape == (3, 6)
    assert X[0].indices.tolist() == [1, 3, 5]
    with pytest.raises(DataFormatError, match="row 0 repeats feature id 5"):
        rows_to_csr([[5, 1, 5, 3], [], [0]])
    assert rows_to_csr([[5, 1, 5, 3], [], [0]], repeats="merge")[0].indices.tolist() == [1, 3, 5]
    with pytest.raises(DataFormatError, match="negative"):
        rows_to_csr([[-1]])


def test_count_matrix():
    idx = FeatureIndex.numeric(2)
    idx.count(sp.csr_matrix(np.array([[1, 0, 1], [0, 0, 1]])))
    assert idx.counts.tolist() == [1, 0, 2]


def test_save_load_pickle(tmp_path):
    import pickle

    import conjunct

    idx = FeatureIndex.from_data([["a", "b"], ["b"]])
    idx.save(tmp_path / "f.cjt")
    assert conjunct.load(tmp_path / "f.cjt") == idx
    assert pickle.loads(pickle.dumps(idx)) == idx
    assert idx.info()["most_frequent"][0] == "b"


def _reference_transform(names, rows, add):
    """The plain loop transform replaces: ids in first-seen order, unknowns dropped (or added), one of each."""
    names = list(names)
    ids = {n: k for k, n in enumerate(names)}
    out = []
    for feats in rows:
        row = set()
        for f in feats:
            if f not in ids and add:
                ids[f] = len(names)
                names.append(f)
            if f in ids:
                row.add(ids[f])
        out.append(sorted(row))
    return names, out


_features = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "é", "w=x", "", " "]), max_size=6), max_size=8)


@settings(max_examples=200, deadline=None)
@given(known=st.lists(st.sampled_from(["a", "b", "c", "z"]), unique=True), rows=_features, add=st.booleans(),
       as_tuples=st.booleans())
def test_transform_equals_the_plain_loop(known, rows, add, as_tuples):
    idx = FeatureIndex(known)
    before = idx.counts.copy()
    given_rows = [tuple(r) for r in rows] if as_tuples else (iter(r) for r in rows)
    X = idx.transform(given_rows, add=add, count=True)
    names, want = _reference_transform(known, rows, add)
    assert idx.names == names and X.shape == (len(rows), len(names))
    assert [X.indices[X.indptr[i]:X.indptr[i + 1]].tolist() for i in range(len(rows))] == want
    assert X.has_canonical_format and set(X.data.tolist()) <= {1.0}
    counts = before.tolist() + [0] * (len(names) - len(before))
    for row in want:
        for j in row:
            counts[j] += 1
    assert idx.counts.tolist() == counts


@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize("bad, where", [(None, "example 1: feature None"), (3, "example 1: feature 3"),
                                        (["x"], r"example 1: feature \['x'\]")])
def test_transform_names_the_example_of_a_feature_that_is_not_a_string(add, bad, where):
    idx = FeatureIndex(["a"])
    with pytest.raises(DataFormatError, match=where):
        idx.transform([["a"], ["a", bad]], add=add)
    assert idx.names == ["a"]  # nothing added by a failed call
    with pytest.raises(DataFormatError, match="not a single string"):
        idx.transform(["ab"], add=add)


def test_a_loaded_index_decodes_its_names_only_when_asked(tmp_path):
    """Loading keeps feature names as bytes (a pipeline's engine reads keys);
    saving them again, asking for an id or a name gives what was saved."""
    names = ["w=dog", "w=caf\u00e9", "pair=the|N", "bos"]
    index = FeatureIndex(names, counts=[3, 2, 1, 1])
    path = tmp_path / "index.cjt"
    index.save(path)
    loaded = conjunct.load(path)
    assert loaded._pending is not None and not loaded.is_numeric and len(loaded) == 4
    again = tmp_path / "again.cjt"
    loaded.save(again)  # straight from the bytes as read
    assert loaded._pending is not None and again.read_bytes() == path.read_bytes()
    assert loaded.id("w=caf\u00e9") == 1 and loaded._pending is None
    assert loaded.names == names and loaded == index
    assert conjunct.load(path).name(2) == "pair=the|N"


@pytest.mark.parametrize("wide", [False, True])
def test_repeated_keys_packed_equal_the_lexsort(wide):
    # The packed-int64 path and the column lexsort (codes too wide to pack) find the same first pair.
    from conjunct.features.checks import _repeated_keys

    rng = np.random.default_rng(3)
    n, T = 2000, 5
    template = rng.integers(0, T, n).astype(np.int32)
    codes = rng.integers(-1, 12, (n, 3)).astype(np.int32)
    limit = np.full((T, 3), (1 << 40) if wide else 11, dtype=np.int64)
    rows = np.concatenate([template.reshape(-1, 1), codes], axis=1)
    order = np.lexsort(rows.T[::-1])
    same = np.flatnonzero(np.all(rows[order[1:]] == rows[order[:-1]], axis=1))
    got_order, got_same = _repeated_keys(template, codes, limit, T)
    assert same.size and np.array_equal(got_order, order) and np.array_equal(got_same, same)
    distinct = np.unique(rows, axis=0)
    assert _repeated_keys(distinct[:, 0].copy(), distinct[:, 1:].copy(), limit, T)[1].size == 0
