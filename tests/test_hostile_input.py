"""Hostile data input: each case was a reproducer in issue 16's tour (a silent
wrong result or an unclear error)."""

import io
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import conjunct
from conjunct import DataFormatError, FeatureIndex, read_strings, read_svmlight, rows_to_csr, write_strings
from conjunct.budget import MemoryBudgetError, check_memory, parse_size, set_memory_budget
from conjunct.features.matrices import as_rows
from conjunct.io.data import escape_token, read_data, unescape_token
from conjunct.training import PAClassifier

BOM = "\ufeff"


# -- byte-order marks ----------------------------------------------------------------------------------------------------
def test_a_byte_order_mark_does_not_stick_to_the_first_label(tmp_path):
    """Before: the BOM made '\\ufeff1' a third class."""
    path = tmp_path / "bom.svm"
    path.write_text(BOM + "1 1:1 2:1\n-1 3:1\n1 1:1\n-1 3:1 4:1\n", encoding="utf-8")
    X, y = read_svmlight(path)
    assert y.tolist() == [1, -1, 1, -1]
    clf = PAClassifier(degree=2).fit(X, y)
    assert clf.classes_.tolist() == [-1, 1]
    strings = tmp_path / "bom.txt"
    strings.write_text(BOM + "A w=a\nB w=b\n", encoding="utf-8")
    rows, y = read_strings(strings)
    assert y.tolist() == ["A", "B"] and rows == [["w=a"], ["w=b"]]
    # A stream (e.g. standard input) with a BOM.
    rows, y = read_strings(io.StringIO(BOM + "A w=a\n"))
    assert y.tolist() == ["A"]


def test_a_byte_order_mark_in_a_column_corpus(tmp_path):
    from conjunct.io.corpora import read_conll2000

    path = tmp_path / "c.txt"
    path.write_text(BOM + "He PRP B-NP\nruns VBZ B-VP\n\n", encoding="utf-8")
    assert read_conll2000(path) == [[("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP")]]


# -- feature lists ---------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def named_model():
    rng = np.random.default_rng(0)
    rows = [[f"f{j}" for j in range(12) if rng.random() < 0.4] for _ in range(60)]
    y = [1 if ("f1" in r) != ("f2" in r) else -1 for r in rows]
    return PAClassifier(degree=2, n_iter=3).fit(rows, y)


@pytest.mark.parametrize("bad", [None, 3, 2.5, b"f1", ("f1",)])
def test_a_non_string_inside_string_features_is_an_error(named_model, bad):
    """Before: None or an int among feature strings was silently dropped."""
    clf = named_model.model_.compile("pki")
    with pytest.raises(DataFormatError, match="is not a string|neither a string"):
        clf.predict([["f1", bad]])
    with pytest.raises(DataFormatError, match="is not a string|neither a string"):
        named_model.model_.features.transform([["f1"], ["f2", bad]])
    with pytest.raises(DataFormatError, match="not a string|neither a string|mixes"):
        PAClassifier().fit([["f1", bad], ["f2"]], [1, -1])


@pytest.mark.parametrize("bad", [None, 3, 2.5, b"f1", ("f1",)])
def test_a_non_string_inside_one_string_vector_is_an_error(named_model, bad):
    """Before: the single-vector path dropped None or an int among feature strings."""
    clf = named_model.model_.compile("pki")
    with pytest.raises(conjunct.ConjunctError, match="is not a string"):
        clf.predict_one(["f1", bad])
    with pytest.raises(conjunct.ConjunctError, match="is not a string"):
        clf.decision_function_one(["f1", bad])


@pytest.mark.parametrize("method", ["pki", "pke", "split", "pkb"])
def test_one_vector_is_checked_as_a_batch_is(named_model, method):
    """Before: predict_one("a string") iterated characters; predict_one([1.5]) truncated to column 1."""
    clf = named_model.model_.compile(method)
    with pytest.raises(conjunct.ConjunctError, match="not a string"):
        clf.predict_one("f1")
    ids = conjunct.PAClassifier(n_iter=2).fit([[0, 1], [1, 2], [2, 3], [0, 3]], [1, -1, 1, -1]).model_.compile(method)
    for bad in ([1.5], [True], [-1], [2**40]):
        with pytest.raises(ValueError):
            ids.predict([bad])
        with pytest.raises(conjunct.ConjunctError):
            ids.predict_one(bad)
    with pytest.raises(conjunct.ConjunctError):
        ids.predict_one([[0, 1]])  # a batch is not one vector
    assert ids.predict_one([0, 1]) == ids.predict([[0, 1]])[0]
    assert ids.predict_one(np.array([0, 1], dtype=np.int64)) == ids.predict_one(np.array([0, 1], dtype=np.int32))


def test_a_vector_of_only_unknown_features_warns(named_model):
    """Before: the README's feature names, which no model produced, silently classified an empty vector."""
    clf = named_model.model_.compile("pki")
    with pytest.warns(conjunct.UnknownFeaturesWarning, match="none of the features"):
        assert clf.predict_one(["w[0]=bank", "p[0]=NN"]) == clf.predict_one([])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict_one(["f1", "never seen"])  # one known feature: no warning
        clf.predict_one([])                    # the empty vector is a valid input


def test_unknown_feature_strings_are_still_dropped(named_model):
    X = named_model.model_.features.transform([["f1", "never seen"]])
    assert X.nnz == 1


def test_a_list_of_dense_rows_is_not_read_as_feature_ids():
    """Before: [[0, 1, 1, 0], ...] was read as ids {0, 1} (accuracy 1.0 -> 0.52).
    Rule: nested lists are ids; a row may not repeat an id; dense data is an array."""
    rng = np.random.default_rng(1)
    dense = (rng.random((80, 6)) < 0.5).astype(int)
    y = np.where(dense[:, 0] ^ dense[:, 1], 1, -1)
    with pytest.raises(DataFormatError, match="repeats feature id .*np.asarray"):
        PAClassifier(degree=2).fit(dense.tolist(), y)
    clf = PAClassifier(degree=2, n_iter=5, random_state=0).fit(np.asarray(dense.tolist()), y)  # shuffled training: fixed seed
    assert clf.score(dense, y) == 1.0
    with pytest.raises(DataFormatError, match="repeats feature id"):
        clf.predict(dense.tolist())
    with pytest.raises(DataFormatError, match="repeats feature id"):
        clf.model_.compile("pke").decision_function(dense.tolist())
    # Lists of ids, each once, are what lists mean.
    ids = [np.flatnonzero(r).tolist() for r in dense]
    assert np.array_equal(clf.predict(ids), clf.predict(dense))


@pytest.mark.parametrize("rows,match", [
    ([[2**70]], "out of range"), ([[2**40]], "out of range"), ([[2**63]], "out of range"),
    ([[1, "a"]], "mixes"), ([[True]], "neither"), ([[-1]], "negative"),
])
def test_bad_ids_are_clear_errors(rows, match):
    """Before: [[2**70]] raised a bare StopIteration."""
    with pytest.raises(DataFormatError, match=match):
        rows_to_csr(rows)
    with pytest.raises(DataFormatError, match=match):
        as_rows(rows)


# -- the string format's escapes ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,token", [
    ("w=3:1", "w=3\\:1"), ("5:04", "5\\:04"), ("#", "\\#"), ("", "\\e"), ("a b", "a\\sb"), ("a\\b", "a\\\\b"),
    ("w=a:b", "w=a:b"), ("x:nan", "x\\:nan"), ("1\\/2", "1\\\\/2"), ("tab\there", "tab\\there"),
    ("\u3000", "\\u3000"), (BOM + "x", "\\ufeffx"), ("\ud800", "\\ud800"),
])
def test_escape_rule(text, token):
    assert escape_token(text) == token
    assert unescape_token(token) == text


def test_unescaped_files_read_as_before(tmp_path):
    """Backslashes that are not escapes stay (PTB's '1\\/2'); ':value' suffixes still work."""
    path = tmp_path / "old.txt"
    path.write_text("1 w=1\\/2 w=a:b t=NN:1 x:0 # a comment\n", encoding="utf-8")
    rows, y = read_strings(path)
    assert rows == [["w=1\\/2", "w=a:b", "t=NN"]] and y.tolist() == [1]


def test_the_tours_string_format_cases_round_trip(tmp_path):
    """Before: 'w=3:1' came back as 'w=3', '5:04' stopped training, '#' could not be written."""
    feats = [["w=3:1", "w[0]=5:04", "#", "w=#tag", "p=:"], ["a b", ""], []]
    write_strings(tmp_path / "d.txt", feats, [1, -1, 1])
    rows, y = read_strings(tmp_path / "d.txt")
    assert rows == feats and y.tolist() == [1, -1, 1]
    X, y = read_data(tmp_path / "d.txt", features=FeatureIndex.from_data(feats))
    assert X.shape[0] == 3


# Labels: strings that do not parse as numbers, without a trailing NUL (numpy's
# fixed-width string arrays, which hold labels, drop trailing NULs).
@given(st.lists(st.lists(st.text(), unique=True, max_size=6), max_size=5),
       st.lists(st.text(min_size=1).filter(lambda s: not _looks_numeric(s) and not s.endswith("\x00")),
                min_size=5, max_size=5))
def test_any_strings_round_trip_through_the_string_format(tmp_path_factory, features, labels):
    path = tmp_path_factory.mktemp("rt") / "d.txt"
    labels = labels[:len(features)]
    write_strings(path, features, labels)
    if not features:
        return
    rows, y = read_strings(path)
    assert rows == features
    assert y.tolist() == labels


def _looks_numeric(s: str) -> bool:
    from conjunct.models.labels import parse_label

    return not isinstance(parse_label(s), str)


def test_conll2000_features_round_trip(shared_data, tmp_path):
    """The tour: CoNLL-2000 features written in the string format stopped training at '5:04'."""
    from conjunct.io.corpora import read_conll2000
    from conjunct.tasks.chunk import training_examples

    sentences = read_conll2000(shared_data / "conll2000" / "train.txt")
    k = next(i for i, s in enumerate(sentences) if any(t[0] == "5:04" for t in s))
    feats, labels = training_examples(sentences[k - 20:k + 20])
    assert any(f.endswith("=5:04") for row in feats for f in row)
    write_strings(tmp_path / "chunk.txt", feats, labels)
    rows, y = read_strings(tmp_path / "chunk.txt")
    assert rows == [list(dict.fromkeys(r)) for r in feats] and y.tolist() == labels


# -- undecodable bytes ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_bad_utf8_deep_in_a_file_names_its_line_and_offset(tmp_path, newline):
    lines = [f"1 {i % 7}:1 {7 + i % 5}:1".encode() for i in range(20000)]
    lines[15000] = b"-1 3:1 \xff4:1"
    data = newline.join(lines) + newline
    path = tmp_path / "bad.svm"
    path.write_bytes(data)
    offset = data.index(b"\xff")
    with pytest.raises(DataFormatError) as err:
        read_svmlight(path)
    message = str(err.value)
    assert f"bad.svm:15001: not UTF-8 text: byte 0xff at column 8 (byte {offset} of the file" in message


def test_bad_utf8_in_a_stream_names_the_last_good_line():
    stream = io.TextIOWrapper(io.BytesIO(b"1 1:1\n" * 5000 + b"1 \xfe:1\n"), encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"not UTF-8 text after line \d+"):
        read_svmlight(stream)


# -- memory budgets ------------------------------------------------------------------------------------------------------
def test_one_huge_feature_id_does_not_allocate_gigabytes(tmp_path):
    """Before: one line with id 2147483646 made `train` allocate 16 GiB."""
    path = tmp_path / "big.svm"
    path.write_text("1 2147483646:1\n-1 3:1\n1 5:1\n", encoding="utf-8")
    X, y = read_svmlight(path)  # reading is cheap: the matrix is sparse
    with pytest.raises(MemoryBudgetError, match="2147483647 columns .*largest feature id 2147483646.* memory budget"):
        PAClassifier(degree=2).fit(X, y)


def test_cli_train_reports_the_budget(tmp_path, capsys):
    from conjunct.cli import main

    path = tmp_path / "big.svm"
    path.write_text("1 2147483646:1\n-1 3:1\n", encoding="utf-8")
    assert main(["train", "-q", str(path), "-o", str(tmp_path / "m.cjt")]) == 2
    assert "memory budget" in capsys.readouterr().err


def test_budget_settings(monkeypatch):
    assert parse_size("8G") == 8 << 30 and parse_size("512MiB") == 512 << 20 and parse_size("2e9") == 2 * 10**9
    assert 0 < parse_size("50%")
    with pytest.raises(conjunct.ConjunctError, match="not a size"):
        parse_size("lots")
    monkeypatch.setenv("CONJUNCT_MEMORY_BUDGET", "1M")
    with pytest.raises(MemoryBudgetError, match=r"a table would need 2.0 MiB, over the memory budget of 1.0 MiB \(CONJUNCT_MEMORY_BUDGET=1M\)"):
        check_memory(2 << 20, "a table")
    check_memory(1 << 20, "a table")
    with pytest.raises(MemoryBudgetError, match="numeric feature index of 100000 columns"):
        FeatureIndex.numeric(100000)
    monkeypatch.setenv("CONJUNCT_MEMORY_BUDGET", "bogus")
    with pytest.raises(conjunct.ConjunctError, match="CONJUNCT_MEMORY_BUDGET"):
        check_memory(1, "x")
    monkeypatch.delenv("CONJUNCT_MEMORY_BUDGET")
    set_memory_budget("10K")
    try:
        with pytest.raises(MemoryBudgetError, match="set_memory_budget"):
            check_memory(20 << 10, "x")
    finally:
        set_memory_budget(None)
    check_memory(20 << 10, "x")


def test_an_unescaped_time_in_a_foreign_file_says_how_to_write_it(tmp_path):
    path = tmp_path / "raw.txt"
    path.write_text("B-NP w=the\nB-NP w=5:04\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"raw.txt:2: feature 'w=5' has value 04.*write the ':' as '\\:'"):
        read_strings(path)
