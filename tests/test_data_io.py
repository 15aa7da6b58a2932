import io

import numpy as np
import pytest
import scipy.sparse as sp

from conjunct import DataFormatError, FeatureIndex, as_binary_csr, read_strings, read_svmlight, write_strings, write_svmlight
from conjunct.features.matrices import as_rows
from conjunct.io.data import read_data, sniff_format


def write(tmp_path, text, name="data.txt"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_svmlight_basic(tmp_path):
    p = write(tmp_path, "# a comment\n+1 3:1 1:1 3:1\n-1 2:1.0 5:0  # trailing comment\n\n0 \n")
    X, y = read_svmlight(p)
    assert y.tolist() == [1, -1, 0]
    assert X.shape == (3, 4)
    assert X[0].indices.tolist() == [1, 3]  # sorted, duplicate removed
    assert X[1].indices.tolist() == [2]  # 5:0 is inactive
    assert X[2].nnz == 0


def test_read_svmlight_string_labels_and_binarize(tmp_path):
    p = write(tmp_path, "B-NP 1:1\nI-NP 2:0.5\n")
    with pytest.raises(DataFormatError) as e:
        read_svmlight(p)
    assert "data.txt:2" in str(e.value) and "binary" in str(e.value) and "binarize" in str(e.value)
    X, y = read_svmlight(p, binarize=True)
    assert y.tolist() == ["B-NP", "I-NP"] and X[1].indices.tolist() == [2]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 abc\n", "not of the form id:value"),
        ("1 x:1\n", "is not an integer"),
        ("1 -3:1\n", "negative"),
        ("1 3:abc\n", "not a number"),
        ("1 3:nan\n", "non-finite"),
        ("1 qid:3 1:1\n", "qid"),
        ("1:1 2:1\n", "expected a label"),
        ("", "no examples"),
        ("# only a comment\n\n", "no examples"),
    ],
)
def test_read_svmlight_errors(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(DataFormatError, match=message) as e:
        read_svmlight(p)
    assert str(p) in str(e.value)


def test_error_names_line(tmp_path):
    p = write(tmp_path, "1 1:1\n1 2:1\n1 2:7\n")
    with pytest.raises(DataFormatError) as e:
        read_svmlight(p)
    assert e.value.line == 3 and e.value.source == str(p)


def test_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        read_svmlight(tmp_path / "nope.svm")


def test_not_utf8(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"1 \xff\xfe:1\n")
    with pytest.raises(DataFormatError, match="UTF-8"):
        read_svmlight(p)


def test_read_strings(tmp_path):
    p = write(tmp_path, "+1 w=the t=DT:1 w=the x:y:1 z:0\nB-NP t=NN\tw=a:b\n")
    rows, y = read_strings(p)
    assert y.tolist() == ["1", "B-NP"] or y.tolist() == [1, "B-NP"] or list(y) == ["1", "B-NP"]
    assert rows[0] == ["w=the", "t=DT", "x:y"]  # dup removed, ':1' stripped, z:0 inactive
    assert rows[1] == ["t=NN", "w=a:b"]  # text after ':' not a number -> part of the name
    with pytest.raises(DataFormatError, match="binary"):
        read_strings(write(tmp_path, "1 f:2\n", "b.txt"))


def test_roundtrip_writers(tmp_path):
    X = sp.csr_matrix(np.array([[0, 1, 1], [1, 0, 0]], dtype=float))
    write_svmlight(tmp_path / "a.svm", X, [1, -1])
    X2, y2 = read_svmlight(tmp_path / "a.svm", n_features=3)
    assert (X2 != X).nnz == 0 and y2.tolist() == [1, -1]
    write_strings(tmp_path / "a.txt", [["f1", "f2"], []], ["A", "B"])
    rows, y = read_strings(tmp_path / "a.txt")
    assert rows == [["f1", "f2"], []] and y.tolist() == ["A", "B"]
    # Whitespace, '#', ':' and empty strings are escaped rather than refused.
    write_strings(tmp_path / "b.txt", [["a b", "#", "w=3:1", ""]], ["A B"])
    rows, y = read_strings(tmp_path / "b.txt")
    assert rows == [["a b", "#", "w=3:1", ""]] and y.tolist() == ["A B"]


def test_sniff_and_read_data(tmp_path):
    a = write(tmp_path, "1 1:1 2:1\n", "a.svm")
    b = write(tmp_path, "1 w=a t=b\n", "b.txt")
    assert sniff_format(a) == "svmlight" and sniff_format(b) == "strings"
    idx = FeatureIndex(["t=b", "w=a"])
    X, y = read_data(b, features=idx)
    assert X[0].indices.tolist() == [0, 1]
    with pytest.raises(DataFormatError, match="feature index"):
        read_data(b)


def test_read_from_stream():
    X, y = read_svmlight(io.StringIO("1 1:1\n-1 2:1\n"))
    assert X.shape == (2, 3)


def test_as_binary_csr_any_index_dtype():
    X = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 0]], dtype=float))
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    B = as_binary_csr(X)
    assert B.indices.dtype == np.int32 and B.indptr.dtype == np.int64
    coo = sp.coo_matrix(([1.0, 1.0, 0.0], ([0, 0, 1], [2, 2, 1])), shape=(2, 3))  # duplicate entries and explicit zero
    with pytest.raises(DataFormatError, match="binary"):
        as_binary_csr(coo)  # duplicates sum to 2
    assert as_binary_csr(coo, binarize=True)[0].indices.tolist() == [2]
    with pytest.raises(DataFormatError, match="row 0, column 1"):
        as_binary_csr(np.array([[0, 0.5]]))
    with pytest.raises(DataFormatError, match="2-D"):
        as_binary_csr(np.zeros(3))


def test_as_rows_inputs():
    idx = FeatureIndex(["a", "b"])
    indptr, indices = as_rows([["b", "a", "zzz"], []], idx)
    assert indptr.tolist() == [0, 2, 2] and indices.tolist() == [0, 1]
    indptr, indices = as_rows([[3, 1], [0]])
    assert indices.tolist() == [1, 3, 0]
    with pytest.raises(DataFormatError, match="repeats feature id 3"):
        as_rows([[3, 1, 3], [0]])
    with pytest.raises(DataFormatError, match="named features"):
        as_rows([["a"]], None)
    with pytest.raises(DataFormatError, match="not a single string"):
        as_rows(["abc"], idx)
    with pytest.raises(DataFormatError, match="columns"):
        as_rows(np.ones((2, 5)), n_features=4)
    with pytest.raises(DataFormatError, match="neither"):
        as_rows([[1.5]])
