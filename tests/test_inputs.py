"""Text input is refused, never mangled: strict UTF-8 on every stream whatever
the locale, lone surrogates, strings where token lists are expected, tokens
that would break CoNLL-U, malformed CoNLL-U blocks, the format guess of
``conjunct analyze`` and ``--format``, long sentences and the memory budget,
and a quick run of the text fuzz (benchmarks/fuzz_text.py)."""

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import conjunct
from conjunct import ConjunctError, DataFormatError
from conjunct.analysis import analyze_stream, read_text
from conjunct.analysis.result import Analysis
from conjunct.budget import MemoryBudgetError, set_memory_budget
from conjunct.cli import main
from conjunct.io._textin import StrictText
from conjunct.io._textin import find_bad_utf8 as _find_bad_utf8
from conjunct.io.corpora import iter_conllu
from conjunct.tagging.io import write_tagged

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import fuzz_text  # noqa: E402


@pytest.fixture(scope="module")
def models(shared_data, tmp_path_factory):
    return fuzz_text.build_models(shared_data, tmp_path_factory.mktemp("models"), n=30)


@pytest.fixture(scope="module")
def en(models):
    return conjunct.load(models["en"])


@pytest.fixture(scope="module")
def ja(models):
    return conjunct.load(models["ja"])


def _stdin(monkeypatch, data: bytes):
    """Standard input as Python opens it under the C locale: bad bytes become surrogates."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape"))


# -- strict UTF-8 ----------------------------------------------------------------------------------------------
@given(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", b" ", "\u00e9".encode(), "\u65e5".encode(),
                                 b"\xef\xbb\xbf", b"\xff", b"\xe6\x97", b"\xed\xa0\x80"]), max_size=30),
       st.integers(1, 7))
def test_strict_reader_reads_like_text_mode_and_finds_the_first_bad_byte(tmp_path_factory, pieces, block):
    data = b"".join(pieces)
    reader = StrictText(io.BufferedReader(io.BytesIO(data), buffer_size=8), "x")
    reader.BLOCK = block  # lines and bad bytes cut across reads
    try:
        expected = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=None).readlines()
    except UnicodeDecodeError:
        expected = None
    if expected is not None:
        assert list(reader) == expected
        return
    with pytest.raises(DataFormatError, match="not UTF-8 text") as e:
        list(reader)
    path = tmp_path_factory.mktemp("bad") / "x"
    path.write_bytes(data)
    line, _, offset, byte = _find_bad_utf8(str(path))
    assert e.value.line == line and f"byte 0x{byte:02x}" in str(e.value) and f"(byte {offset} of the file" in str(e.value)


def test_invalid_utf8_on_stdin_is_an_error_under_the_c_locale(models, monkeypatch, capsys):
    _stdin(monkeypatch, b"Hello world .\nbad \xff byte\n")
    assert main(["analyze", str(models["en"]), "-"]) == 2
    err = capsys.readouterr().err
    assert "<stdin>:2: not UTF-8 text: byte 0xff at column 5 (byte 18 of the input" in err
    for argv in (["tag", "run", str(models["tagger"]), "-", "--format", "text"], ["segment", "run", str(models["segmenter"]), "-"]):
        _stdin(monkeypatch, b"ok\n\xc3\x28\n")
        assert main(argv) == 2
        assert "<stdin>:2: not UTF-8 text: byte 0xc3" in capsys.readouterr().err


def test_invalid_utf8_on_stdin_of_a_real_process_in_the_c_locale(tmp_path):
    # The conjunct this process imported (an installed one, or a source tree with its built core).
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONPATH": str(Path(conjunct.__file__).resolve().parent.parent)}
    code = "from conjunct.analysis import read_text; print(list(read_text('-')))"
    p = subprocess.run([sys.executable, "-c", code], input=b"fine\nbad \xff\n", capture_output=True, env=env)
    assert p.returncode == 1 and b"DataFormatError: <stdin>:2: not UTF-8 text: byte 0xff" in p.stderr


def test_a_byte_order_mark_and_every_line_end_are_read(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xef\xbb\xbfThe dog\r\nbarked\rloudly .\n")
    assert [s for s, _ in read_text(path)] == [["The", "dog"], ["barked"], ["loudly", "."]]


def test_lone_surrogates_in_python_strings_are_clear_errors(en, ja):
    with pytest.raises(DataFormatError, match=r"sentence 1, token 2: lone surrogate U\+D800"):
        en.analyze([["a", "b\ud800"]])
    with pytest.raises(DataFormatError, match=r"text 1: lone surrogate U\+DC80 at character 3"):
        ja.analyze(["日本\udc80語です"])
    with pytest.raises(DataFormatError, match="lone surrogate"):
        en.tagger.predict([["x\udfff"]])
    with pytest.raises(DataFormatError, match="<stream>:2: not valid Unicode: lone surrogate"):
        list(read_text(io.StringIO("fine\nbad\ud800\n")))


# -- what the pipelines take ---------------------------------------------------------------------------------
def test_strings_where_token_lists_are_expected_are_refused(en, ja):
    with pytest.raises(DataFormatError, match=r"sentence 1 is a string \('Hello'\), not a list of tokens"):
        en.analyze(["Hello", "dogs"])
    with pytest.raises(DataFormatError, match="sentence 1 is a string"):
        ja.analyze_words(["日本語"])
    with pytest.raises(DataFormatError, match="sentence 2: expected a list of tokens"):
        en.analyze([["a"], 5])
    with pytest.raises(TypeError):
        en.analyze("Hello dogs")
    assert len(en.analyze([["Hello"], ["dogs"]])) == 2


def test_empty_sentences_and_tokens_with_tabs_are_refused(ja, en):
    with pytest.raises(DataFormatError, match="sentence 1 is empty"):
        ja.analyze_words([[]])
    with pytest.raises(DataFormatError, match=r"sentence 1, token 1: tokens are non-empty strings without whitespace, got '日本\\t語'"):
        ja.analyze_words([["日本\t語", "です"]])
    with pytest.raises(DataFormatError, match="token 2"):
        en.analyze([["a", "b\nc"]])
    assert len(ja.analyze_words([["日本", "語", "です"]])[0].to_conllu().splitlines()[0].split("\t")) == 10


def test_conllu_and_tagged_writers_refuse_fields_that_would_break_lines():
    a = Analysis(["日本\t語", "です"], ["NOUN", "AUX"], ["n", "a"])
    with pytest.raises(DataFormatError, match=r"word 1 \('日本\\t語'\) is empty or holds a tab or a line break"):
        a.to_conllu()
    with pytest.raises(DataFormatError, match="comment"):
        Analysis(["a"], ["X"], ["X"], comments=["# one\ntwo"]).to_conllu()
    with pytest.raises(DataFormatError, match="sentence 2, token 1: 'a\\\\nb'"):
        write_tagged(io.StringIO(), [["ok"], ["a\nb"]], [["X"], ["Y"]])
    out = io.StringIO()
    write_tagged(out, [["ok", "#"]], [["X", "Y"]])
    assert out.getvalue() == "ok\tX\n#\tY\n\n"


# -- CoNLL-U blocks ---------------------------------------------------------------------------------------------
def _row(i, form):
    return "\t".join([i, form] + ["_"] * 8)


def test_a_block_of_only_a_range_and_an_empty_node_is_an_error(tmp_path, models, capsys):
    path = tmp_path / "x.conllu"
    path.write_text("\n".join([_row("1", "The"), "", _row("1-2", "don't"), _row("0.1", "e"), "", _row("1", "A")]) + "\n")
    with pytest.raises(DataFormatError, match=r"x.conllu:3: a sentence block without word lines"):
        list(iter_conllu(path))
    assert main(["analyze", str(models["en"]), str(path)]) == 2
    assert "x.conllu:3: a sentence block without word lines" in capsys.readouterr().err


def test_ranges_without_their_words_and_misplaced_nodes_are_errors(tmp_path):
    cases = {
        "multiword-token range 2-3 without its words": [_row("1", "I"), _row("2-3", "don't"), _row("2", "do")],
        "bad multiword-token range '3-4'": [_row("1", "I"), _row("3-4", "xy"), _row("2", "do")],
        "overlaps range 1-2": [_row("1-2", "ab"), _row("1", "a"), _row("2-3", "bc"), _row("2", "b"), _row("3", "c")],
        "bad empty node id '5.1'": [_row("1", "I"), _row("5.1", "e")],
    }
    for message, rows in cases.items():
        path = tmp_path / "x.conllu"
        path.write_text("\n".join(rows) + "\n")
        with pytest.raises(DataFormatError, match=message):
            list(iter_conllu(path))
    path.write_text("\n".join([_row("1-2", "don't"), _row("1", "do"), _row("2", "n't"), _row("2.1", "e"),
                               _row("3", "go")]) + "\n")
    assert [s.column("form") for s in iter_conllu(path)] == [["do", "n't", "go"]]


# -- the format of conjunct analyze -----------------------------------------------------------------------------
def test_a_text_starting_with_a_hash_needs_format_text(tmp_path, models, capsys):
    path = tmp_path / "x.txt"
    path.write_text("# 1 is a number\nThe dog barked .\n")
    assert main(["analyze", str(models["en"]), str(path)]) == 2
    assert "give --format text" in capsys.readouterr().err
    out = tmp_path / "out.conllu"
    assert main(["analyze", str(models["en"]), str(path), "--format", "text", "-o", str(out)]) == 0
    blocks = out.read_text().strip().split("\n\n")
    assert len(blocks) == 2 and [line.split("\t")[1] for line in blocks[0].splitlines()] == ["#", "1", "is", "a", "number"]
    # a CoNLL-U file is read as text with --format text: its blank lines are refused, not skipped
    conllu = tmp_path / "y.conllu"
    conllu.write_text(_row("1", "a") + "\n\n" + _row("1", "b") + "\n")
    assert main(["analyze", str(models["en"]), str(conllu), "--format", "text"]) == 2
    assert main(["analyze", str(models["en"]), str(path), "--format", "conllu"]) == 2
    path.write_text("# only\n# hashtags\n")
    with pytest.raises(DataFormatError, match="no sentences .* give --format text"):
        list(read_text(path))
    assert [s for s, _ in read_text(path, format="text")] == [["#", "only"], ["#", "hashtags"]]
    with pytest.raises(ConjunctError, match="unknown input format"):
        list(read_text(path, format="tsv"))


# -- long sentences and memory ----------------------------------------------------------------------------------
def test_long_sentences_are_refused_naming_the_line(tmp_path, models, capsys):
    path = tmp_path / "x.txt"
    path.write_text("short one\n" + " ".join(["w"] * 50) + "\n")
    assert main(["analyze", str(models["en"]), str(path), "--max-sentence-length", "20"]) == 2
    assert "x.txt:2: a sentence of 50 tokens, over the limit of 20" in capsys.readouterr().err
    ja = tmp_path / "ja.txt"
    ja.write_text("日本語です。\n" + "あ" * 30 + "\n")
    with pytest.raises(DataFormatError, match="ja.txt:2: a sentence of 30 characters"):
        list(read_text(ja, raw=True, max_length=20))
    conllu = tmp_path / "x.conllu"
    conllu.write_text("\n".join(_row(str(i), "w") for i in range(1, 31)) + "\n")
    with pytest.raises(DataFormatError, match="x.conllu:1: a sentence of more than 20 words"):
        list(read_text(conllu, max_length=20))
    assert len(list(read_text(conllu, max_length=30))) == 1
    with pytest.raises(ConjunctError, match="max_length"):
        list(read_text(path, max_length=0))


def test_tag_and_segment_refuse_long_sentences_too(tmp_path, models, capsys):
    text = tmp_path / "x.txt"
    text.write_text("a b\n" + " ".join(["w"] * 30) + "\n")
    assert main(["tag", "run", str(models["tagger"]), str(text), "--format", "text", "--max-sentence-length", "20"]) == 2
    assert "x.txt:2: a sentence of 30 words, over the limit of 20" in capsys.readouterr().err
    columns = tmp_path / "c.txt"
    columns.write_text("x NN\n\n" + "a NN\n" * 30)
    assert main(["tag", "run", str(models["tagger"]), str(columns), "--max-sentence-length", "20"]) == 2
    assert "c.txt:3: a sentence of more than 20 words" in capsys.readouterr().err
    raw = tmp_path / "ja.txt"
    raw.write_text("日本語\n" + "あ" * 30 + "\n")
    assert main(["segment", "run", str(models["segmenter"]), str(raw), "--max-sentence-length", "20"]) == 2
    assert "ja.txt:2: a line of 30 characters, over the limit of 20" in capsys.readouterr().err
    out = tmp_path / "out.txt"
    assert main(["segment", "run", str(models["segmenter"]), str(raw), "-o", str(out), "-q"]) == 0
    assert len(out.read_text().splitlines()) == 2


def test_a_line_without_end_is_refused_before_it_is_read_whole():
    class Endless(io.RawIOBase):
        """A stream of 'w ' forever: only a reader that stops can finish."""
        read_bytes = 0

        def readable(self):
            return True

        def readinto(self, b):
            n = len(b)
            b[:n] = b"w " * (n // 2) + b"w" * (n % 2)
            self.read_bytes += n
            return n

    raw = Endless()
    with pytest.raises(DataFormatError, match="<stream>:1: a line longer than 6,400 bytes"):
        list(read_text(io.BufferedReader(raw), max_length=100))
    assert raw.read_bytes < 1 << 20


def test_the_memory_budget_covers_analysis(tmp_path, models, en, capsys):
    path = tmp_path / "x.txt"
    path.write_text(" ".join(["word"] * 5000) + "\n")
    assert main(["analyze", str(models["en"]), str(path), "--memory-budget", "10M"]) == 2
    assert "analysing 1 sentence (5,000 tokens) would need" in capsys.readouterr().err
    set_memory_budget("10M")
    try:
        with pytest.raises(MemoryBudgetError, match="over the memory budget"):
            en.analyze([["word"] * 5000])
    finally:
        set_memory_budget(None)


def test_batches_end_before_their_tokens_pass_half_the_budget(en):
    sizes = []

    class Counting:
        """The real pipeline, recording the sentences of each call."""
        BYTES_PER_TOKEN = en.BYTES_PER_TOKEN

        def analyze(self, batch):
            sizes.append(sum(map(len, batch)))
            return en.analyze(batch)

    sentences = [(["a", "dog", "barked", "."] * 10, []) for _ in range(30)]  # 40 tokens each
    set_memory_budget(200 * 2 * en.BYTES_PER_TOKEN)  # room for 200 tokens per batch
    try:
        out = list(analyze_stream(Counting(), sentences, batch_size=1000))
    finally:
        set_memory_budget(None)
    assert sizes == [200] * 6 and len(out) == 30
    assert out == list(analyze_stream(en, sentences, batch_size=1000))


# -- the text fuzz, quickly ----------------------------------------------------------------------------------
def test_text_fuzz_quick(models, shared_data, tmp_path):
    fuzz_text.POOL_CACHE.update(fuzz_text.samples(shared_data))
    result = fuzz_text.fuzz(models, tmp_path, 3, seed=1, inprocess=True, long_line=False)
    assert sum(sum(o.values()) for o in result["outcomes"].values()) == 3 * len(fuzz_text.COMMANDS)
    assert result["failures"] == []
    assert any(o.get("ok") for o in result["outcomes"].values()) and any(o.get("error") for o in result["outcomes"].values())
    api = fuzz_text.api_checks(models, random.Random(1), 3)
    assert api["failures"] == [] and api["outcomes"]["error"] >= 10
