import numpy as np
import pytest
import scipy.sparse as sp

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
