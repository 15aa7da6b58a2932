"""Streaming: predict, parse run, chunk run, segment run and tag run write
their first output before the input ends (a pipe held open), in batches, and
write the same output as one batch (issue 18 item 3)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

import conjunct
from conjunct.cli import main
from conjunct.datasets import make_zipf_data

CLI = [sys.executable, "-m", "conjunct"]


def first_output_before_eof(argv, head: str, rest: str, timeout: float = 300):
    """Feed ``head`` on a pipe held open, wait for output, then ``rest`` and EOF.
    Returns (output seen before EOF, all output)."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(head.encode())
    proc.stdin.flush()
    early = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            early = os.read(proc.stdout.fileno(), 1 << 20)
            break
    out, err = proc.communicate(rest.encode(), timeout=timeout)
    assert proc.returncode == 0, err.decode()
    return early.decode(), (early + out).decode()


def blocks(text: str):
    return [b for b in text.split("\n\n") if b.strip()]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("stream")


def test_predict_streams(work, capsys):
    feats, y = make_zipf_data(3000, n_classes=3, seed=5)
    index = conjunct.FeatureIndex.from_data(feats[:2000])
    train, test = work / "train.svm", work / "test.svm"
    conjunct.write_svmlight(train, index.transform(feats[:2000]), y[:2000])
    conjunct.write_svmlight(test, index.transform(feats[2000:]), y[2000:])
    model = work / "m.cjt"
    assert main(["train", "-q", str(train), "-o", str(model), "-i", "2"]) == 0
    capsys.readouterr()
    for what in ("labels", "margins", "accuracy"):
        assert main(["predict", str(model), str(test), "--print", what, "--batch-size", "1000000"]) == 0
        whole = capsys.readouterr().out
        assert main(["predict", str(model), str(test), "--print", what, "--batch-size", "7"]) == 0
        assert capsys.readouterr().out == whole
    lines = test.read_text().splitlines(keepends=True)
    early, out = first_output_before_eof(CLI + ["predict", str(model), "-", "--batch-size", "10"],
                                         "".join(lines[:50]), "".join(lines[50:]))
    assert early.strip()
    main(["predict", str(model), str(test)])
    assert out == capsys.readouterr().out


def test_predict_batches_name_the_files_line(work, capsys):
    bad = work / "bad.svm"
    bad.write_text("1 1:1 2:1\n" * 60 + "1 3:1 4:x\n", encoding="utf-8")
    model = work / "m.cjt"
    assert main(["predict", str(model), str(bad), "--batch-size", "10"]) == 2
    assert "bad.svm:61: feature '4' has a value 'x'" in capsys.readouterr().err


def _conllu(shared_data, name, n):
    """The first n blank-line-separated sentences of a shared corpus."""
    return "\n\n".join((shared_data / name).read_text(encoding="utf-8").split("\n\n")[:n]) + "\n\n"


def train_and_stream(command, small, n_sentences, capsys):
    """Train ``command`` (parse, chunk) on ``small``; check that ``run`` writes the same in
    small batches as in one, and streams from a pipe. Returns (model, output)."""
    model = small.with_suffix(".cjt")
    assert main([command, "train", str(small), "-o", str(model), "-i", "1", "--method", "pki", "-q"]) == 0
    capsys.readouterr()
    assert main([command, "run", str(model), str(small), "--batch-size", "100000"]) == 0
    whole = capsys.readouterr().out
    assert main([command, "run", str(model), str(small), "--batch-size", "3"]) == 0
    assert capsys.readouterr().out == whole and len(blocks(whole)) == n_sentences
    text = small.read_text(encoding="utf-8")
    cut = text.index("\n\n", len(text) // 3) + 2
    early, out = first_output_before_eof(CLI + [command, "run", str(model), "-", "--batch-size", "5"], text[:cut], text[cut:])
    assert early.strip() and out == whole
    return model, whole


def test_parse_run_streams(work, shared_data, capsys):
    small = work / "ewt.conllu"
    small.write_text(_conllu(shared_data, "ud_english_ewt/en_ewt-ud-dev.conllu", 80), encoding="utf-8")
    model, whole = train_and_stream("parse", small, 80, capsys)
    # Recompiled to an fstrie on the input itself (the parser is loaded before its events are read).
    assert main(["parse", "run", str(model), str(small), "--method", "fstrie", "--batch-size", "4"]) == 0
    assert capsys.readouterr().out == whole
    assert main(["parse", "eval", str(model), str(small), "--method", "fstrie"]) == 0
    assert capsys.readouterr().out.startswith("UAS")


def test_chunk_run_streams(work, shared_data, capsys):
    small = work / "chunk.txt"
    small.write_text(_conllu(shared_data, "conll2000/train.txt", 150), encoding="utf-8")
    model, whole = train_and_stream("chunk", small, 150, capsys)
    # Recompiled to an fstrie on the input itself: the whole input is read first, same chunks.
    assert main(["chunk", "run", str(model), str(small), "--method", "fstrie", "--batch-size", "4"]) == 0
    assert capsys.readouterr().out == whole


def test_segment_run_streams(work, shared_data, capsys):
    from conjunct.tasks.segment import read_segmented_conllu

    small = work / "gsd.conllu"
    small.write_text(_conllu(shared_data, "ud_japanese_gsd/r2.8/ja_gsd-ud-train.conllu", 100), encoding="utf-8")
    model = work / "seg.cjt"
    assert main(["segment", "train", str(small), "-o", str(model), "-i", "1", "--method", "pki", "-q"]) == 0
    raw = work / "raw.txt"
    texts = ["".join(words) for words in read_segmented_conllu(small)]
    raw.write_text("\n".join(texts[:40]) + "\n\n" + "\n".join(texts[40:]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["segment", "run", str(model), str(raw), "--batch-size", "100000"]) == 0
    whole = capsys.readouterr().out
    assert main(["segment", "run", str(model), str(raw), "--batch-size", "3"]) == 0
    assert capsys.readouterr().out == whole and len(whole.split("\n")) == 102
    assert whole.split("\n")[40] == ""  # a blank line stays a blank line
    lines = raw.read_text(encoding="utf-8").splitlines(keepends=True)
    early, out = first_output_before_eof(CLI + ["segment", "run", str(model), "-", "--batch-size", "5"],
                                         "".join(lines[:20]), "".join(lines[20:]))
    assert early.strip() and out == whole


def test_tag_tag_streams(work, shared_data, capsys):
    small = work / "tag.conllu"
    small.write_text(_conllu(shared_data, "ud_english_ewt/en_ewt-ud-dev.conllu", 80), encoding="utf-8")
    model = work / "tagger.cjt"
    assert main(["tag", "train", str(small), "-o", str(model), "-i", "1", "-q"]) == 0
    capsys.readouterr()
    assert main(["tag", "run", "-q", str(model), str(small)]) == 0
    whole = capsys.readouterr().out
    text = small.read_text(encoding="utf-8")
    cut = text.index("\n\n", len(text) // 3) + 2
    early, out = first_output_before_eof(CLI + ["tag", "run", "-q", str(model), "-", "--batch-size", "5"],
                                         text[:cut], text[cut:])
    assert early.strip() and out == whole


def test_bunsetsu_parse_run_streams(work, shared_data, capsys):
    """Bunsetsu `parse run` writes the same bytes at any batch size, from a
    CoNLL-U file, standard input or a GSD split, and streams from a pipe."""
    gsd = shared_data / "ud_japanese_gsd"
    small = work / "gsd_bunsetsu.conllu"
    small.write_text(_conllu(shared_data, "ud_japanese_gsd/r2.8/ja_gsd-ud-dev.conllu", 150), encoding="utf-8")
    model = work / "bunsetsu.cjt"
    assert main(["parse", "train", str(small), "-o", str(model), "--task", "bunsetsu", "-d", "2", "-i", "1",
                 "--method", "pke", "-q", "--keep-models"]) == 0
    capsys.readouterr()
    assert main(["parse", "run", str(model), str(small), "--batch-size", "100000"]) == 0
    whole = capsys.readouterr().out
    assert len(blocks(whole)) == 150
    for size in ("1", "7", "64"):
        assert main(["parse", "run", str(model), str(small), "--batch-size", size]) == 0
        assert capsys.readouterr().out == whole, size
    # The heads are the parser's on the sentences read whole.
    from conjunct.commands.parse import _read_bunsetsu

    parsed = conjunct.load(model).parse(_read_bunsetsu(str(small), None))
    assert [[int(line.split("\t")[1]) for line in b.split("\n")] for b in blocks(whole)] == parsed
    # An fstrie built on the input itself reads it all first: the same parses.
    assert main(["parse", "run", str(model), str(small), "--method", "fstrie", "--batch-size", "5"]) == 0
    assert capsys.readouterr().out == whole
    text = small.read_text(encoding="utf-8")
    cut = text.index("\n\n", len(text) // 3) + 2
    early, out = first_output_before_eof(CLI + ["parse", "run", str(model), "-", "--batch-size", "5"], text[:cut], text[cut:])
    assert early.strip() and out == whole
    # A GSD split, read whole, written in batches.
    assert main(["parse", "run", str(model), str(gsd), "--split", "test", "--batch-size", "100000"]) == 0
    split = capsys.readouterr().out
    assert main(["parse", "run", str(model), str(gsd), "--split", "test", "--batch-size", "333"]) == 0
    assert capsys.readouterr().out == split and len(blocks(split)) > 500


def test_bunsetsu_input_without_labels_names_the_line(work, shared_data, capsys):
    model = work / "bunsetsu.cjt"  # trained by the test above
    text = _conllu(shared_data, "ud_japanese_gsd/r2.8/ja_gsd-ud-dev.conllu", 12)
    lines = text.split("\n")
    at = max(i for i, line in enumerate(lines) if "BunsetuBILabel" in line)
    lines[at] = lines[at].replace("BunsetuBILabel=", "Bunsetu=")
    bad = work / "unlabelled.conllu"
    bad.write_text("\n".join(lines), encoding="utf-8")
    assert main(["parse", "run", str(model), str(bad), "--batch-size", "5"]) == 2
    out, err = capsys.readouterr()
    assert f"unlabelled.conllu:{at + 1}: sentence 12: word" in err and "no BunsetuBILabel" in err
    assert len(blocks(out)) == 10  # the batches before the bad sentence were written
    empty = work / "empty.conllu"
    empty.write_text("# only a comment\n\n", encoding="utf-8")
    assert main(["parse", "run", str(model), str(empty)]) == 2
    assert "empty.conllu: no sentences" in capsys.readouterr().err
