"""The C++ scanners behind read_svmlight / read_strings give what the Python
reader gives: the same matrix, rows and labels, or the same error (file and
line). A file path takes the scanner; an open file takes the Python reader."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conjunct import _core
from conjunct._errors import DataFormatError
from conjunct.io.data import read_strings, read_svmlight, write_strings, write_svmlight

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(os.environ.get("CONJUNCT_JDEPP_WORK", ROOT.parent / "peer" / "work"))


def both(reader, path: Path, **kw):
    """(result or error text) of the scanner (path) and of the Python reader (open file)."""
    out = []
    for source in (path, None):
        try:
            if source is None:
                # A binary handle: conjunct decodes it (a text handle's own decoder reads ahead and
                # reports a bad byte before the lines in front of it).
                with open(path, "rb") as f:
                    out.append(reader(f, **kw))
            else:
                out.append(reader(source, **kw))
        except DataFormatError as e:
            out.append(str(e))
        except UnicodeDecodeError:
            out.append("not utf-8")
    return out


def assert_same_svmlight(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    (Xa, ya), (Xb, yb) = a, b
    assert Xa.shape == Xb.shape and ya.dtype == yb.dtype
    assert (Xa != Xb).nnz == 0
    np.testing.assert_array_equal(Xa.indptr, Xb.indptr)
    np.testing.assert_array_equal(ya, yb)


def assert_same_strings(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert a[0] == b[0]
    assert a[1].dtype == b[1].dtype
    np.testing.assert_array_equal(a[1], b[1])


LABELS = ["+1", "-1", "1", "0", "2", "2.5", "1e3", "a", "NaN", "x:y", "\\#", "-0", "007", "\u52d5\u8a5e", "\\u0061",
          "\\ud800", "a\\:b", "1\\"]
SVM_TOKENS = ["3:1", "12:1", "0:1", "7:0", "7:1.0", "5:2", "5:1e0", "5:+1", "5:-0.0", "5:.5", "5:inf", "+4:1",
              "004:1", "4_0:1", "qid:3", "x:1", "3", "3:", ":1", "2147483646:1", "2147483647:1", "9:1:1", "8:1e999",
              "6:1.00000000000000000001", "\u00e9:1", "3:\\1"]
STR_TOKENS = ["a", "b", "a:1", "b:0", "c:2", "w=x:y", "5:04", "t:inf", "t:nan", "n:1_0", "a\\:1", "\\e", "x:1.0",
              "y:.5", "z:1e0", "\u00fc", "fine:fine", "a:b:1", ":1", "q:", "\\u0061", "\\u0061:1", "\\ud800",
              "\\uD83D", "\\\\:1", "\\\\\\:1", "w=\u52d5\u304f", "\u52d5\u304f:1", "\\s\\t", "x\\", "\\q", "\\#a",
              "\\u00e9", "\u00e9", "a#b"]
SEPS = [" ", "  ", "\t", "\x0b", "\x0c", "\x1c", " \x1f ", "\u3000", "\u00a0", "\u2028", "\x85"]
ENDS = ["\n", "\r\n", "\r"]


@st.composite
def files(draw, tokens):
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["example", "example", "example", "blank", "comment"]))
        if kind == "blank":
            line = draw(st.sampled_from(["", "   ", "\t"]))
        elif kind == "comment":
            line = "# " + draw(st.sampled_from(["note", "3:1", "\u00e9"]))
        else:
            parts = [draw(st.sampled_from(LABELS))] + draw(st.lists(st.sampled_from(tokens), max_size=6))
            line = "".join(p + draw(st.sampled_from(SEPS)) for p in parts).rstrip(" ")
            if draw(st.booleans()):
                line += draw(st.sampled_from([" # tail", "#x", " \\# not a comment"]))
        lines.append(line + draw(st.sampled_from(ENDS)))
    text = "".join(lines)
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" * draw(st.integers(1, 2)) + text
    data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:  # a byte that is not UTF-8
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe0\x80\x80"])) + data[cut:]
    return data


@settings(max_examples=300, deadline=None)
@given(text=files(SVM_TOKENS), binarize=st.booleans())
def test_svmlight_scanner_equals_python(tmp_path_factory, text, binarize):
    path = tmp_path_factory.mktemp("svm") / "data.svm"
    path.write_bytes(text)
    a, b = both(read_svmlight, path, binarize=binarize)
    assert_same_svmlight(a, b)


@settings(max_examples=300, deadline=None)
@given(text=files(STR_TOKENS), binarize=st.booleans())
def test_strings_scanner_equals_python(tmp_path_factory, text, binarize):
    path = tmp_path_factory.mktemp("str") / "data.txt"
    path.write_bytes(text)
    a, b = both(read_strings, path, binarize=binarize)
    assert_same_strings(a, b)


def test_scanner_reads_plain_files_and_gives_up_on_the_rest():
    ok = _core.scan_svmlight(b"+1 3:1 1:1 3:1\r-1 2:0 # c\n\n", binarize=False)
    assert ok[0] and ok[2] == ["+1", "-1"] and ok[4].tolist() == [3, 0] and ok[5].tolist() == [3, 1, 3]
    for bad, line in ((b"1 2:1\n1 3:2\n", 2), (b"1 a:1\n", 1), (b"1 2:1\n\xc3\x28 1:1\n", 2), (b"1 2:1 # \xff\n", 1), (b"1 2:1\\\n", 1)):
        assert _core.scan_svmlight(bad, binarize=False)[:2] == (False, line)
    assert _core.scan_svmlight(b"1 3:2\n", binarize=True)[0]
    assert not _core.scan_svmlight(b"# only a comment\n", binarize=False)[0]


def test_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.svm"
    path.write_text("+1 1:1\n-1 2:1 3:5\n")
    with pytest.raises(DataFormatError, match=r"bad\.svm:2: feature '3' has value 5"):
        read_svmlight(path)


@pytest.mark.realdata
def test_real_files_read_alike(shared_data, tmp_path):
    from conjunct import FeatureIndex
    from conjunct.io.corpora import read_conll2000, window_features

    sents = read_conll2000(shared_data / "conll2000" / "train.txt")[:300]
    feats = [window_features(s, i) for s in sents for i in range(len(s))]
    tags = [s[i][2] for s in sents for i in range(len(s))]
    write_strings(tmp_path / "chunk.txt", feats, tags)
    write_svmlight(tmp_path / "chunk.svm", FeatureIndex.from_data(feats).transform(feats), tags)
    assert_same_strings(*both(read_strings, tmp_path / "chunk.txt"))
    a, b = both(read_svmlight, tmp_path / "chunk.svm")
    assert_same_svmlight(a, b)
    assert a[0].nnz > 10000
    for path, scan in ((tmp_path / "chunk.svm", _core.scan_svmlight), (tmp_path / "chunk.txt", _core.scan_strings)):
        assert scan(path.read_bytes(), binarize=False)[0], path  # the scanner read it, not the fallback
    jdepp = WORK / "models" / "jdepp_d2" / "depnd.p0.train"
    if jdepp.exists():
        with open(jdepp) as f:
            (tmp_path / "jdepp.svm").write_text("".join(next(f) for _ in range(5000)))
        assert_same_svmlight(*both(read_svmlight, tmp_path / "jdepp.svm"))
