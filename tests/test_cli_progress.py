"""Progress bars on a terminal, none elsewhere, and Ctrl-C (issue 18 item 3).
A pseudo-terminal (stdlib pty) stands in for the user's terminal."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conjunct import progress
from conjunct.training import PAClassifier

pytest.importorskip("tqdm")
pty = pytest.importorskip("pty")

CLI = [sys.executable, "-m", "conjunct"]


def run_in_pty(argv, *, interrupt_on: bytes = b"", timeout: float = 600):
    """Run argv with a terminal as stdin/stdout/stderr: (exit code, everything it drew,
    seconds from SIGINT to exit). With interrupt_on, SIGINT goes once that text appears."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvp(argv[0], argv)
    out, sent, waited = b"", None, None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        if interrupt_on and sent is None and interrupt_on in out:
            os.kill(pid, signal.SIGINT)
            sent = time.monotonic()
    _, status = os.waitpid(pid, 0)
    if sent is not None:
        waited = time.monotonic() - sent
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace"), waited


@pytest.fixture(scope="module")
def ewt_small(shared_data, tmp_path_factory):
    src = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    path = tmp_path_factory.mktemp("ewt") / "small.conllu"
    path.write_text("\n\n".join(src.read_text(encoding="utf-8").split("\n\n")[:200]) + "\n\n", encoding="utf-8")
    return path


def test_parse_train_draws_a_bar_on_a_terminal_only(ewt_small, tmp_path):
    model = tmp_path / "p.cjt"
    argv = CLI + ["parse", "train", str(ewt_small), "-o", str(model), "-i", "2", "--method", "pki"]
    code, drawn, _ = run_in_pty(argv)
    assert code == 0 and model.exists()
    assert "training PAClassifier: 100%" in drawn and "ex/s" in drawn and "epoch 2/2" in drawn
    # The oracle's pass over the treebank has its bar too, before training.
    assert "collecting training examples: 100%" in drawn and "200/200" in drawn and "sentences/s" in drawn
    assert drawn.index("collecting training examples") < drawn.index("training PAClassifier")
    assert "transition: reading the features of" in drawn and f"writing {model}" in drawn
    # Not a terminal: no bar, the summary line only.
    res = subprocess.run(argv, capture_output=True, text=True)
    assert res.returncode == 0 and "training PAClassifier" not in res.stderr and "\r" not in res.stderr
    assert "collecting training examples" not in res.stderr and "reading the features" not in res.stderr
    assert "trained a degree-2 ud-english pipeline" in res.stderr
    # -q: nothing, even on a terminal.
    code, drawn, _ = run_in_pty(argv + ["-q"])
    assert code == 0 and drawn.strip() == ""


def test_ctrl_c_mid_training_exits_130_and_writes_nothing(tmp_path):
    rng = np.random.default_rng(1)
    data = tmp_path / "big.svm"
    with open(data, "w") as f:
        for _ in range(20000):
            f.write(f"{rng.integers(0, 2) * 2 - 1} "
                    + " ".join(f"{j}:1" for j in sorted(rng.choice(np.arange(1, 3000), 40, replace=False))) + "\n")
    model = tmp_path / "big.cjt"
    code, drawn, waited = run_in_pty(CLI + ["train", str(data), "-o", str(model), "-d", "3", "-i", "1000"],
                                     interrupt_on=b"training PAClassifier:")
    assert waited is not None, drawn
    assert code == 130 and "conjunct: interrupted" in drawn and "Traceback" not in drawn
    assert not model.exists() and os.listdir(tmp_path) == ["big.svm"]  # no partial model, no temp file


def test_training_in_slices_gives_the_same_model(monkeypatch):
    """Slices keep Ctrl-C responsive; the trainer's state carries over, so the model is the same."""
    from conjunct.datasets import make_zipf_data

    feats, y = make_zipf_data(600, n_classes=3, seed=4)

    def fit(slice_size):
        for name in ("FIRST_SLICE", "MIN_SLICE", "MAX_SLICE"):
            monkeypatch.setattr(progress, name, slice_size)
        return PAClassifier(3, n_iter=3, random_state=0).fit(feats, y).model_

    one, sliced = fit(1 << 30), fit(7)
    assert np.array_equal(one.dual_coef, sliced.dual_coef) and np.array_equal(one.intercept, sliced.intercept)
    assert (one.support_vectors != sliced.support_vectors).nnz == 0


def test_ctrl_c_stops_a_kernel_expansion_in_cpp(tmp_path):
    """The core's long loops check for Ctrl-C about every 0.1 s (through the progress hook)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    n, F, L = 1000, 3000, 30
    rows = [np.sort(rng.choice(F, L, replace=False)) for _ in range(n)]
    X = sp.csr_matrix((np.ones(n * L), np.concatenate(rows), np.arange(0, n * L + 1, L)), shape=(n, F))
    model = tmp_path / "wide.cjt"
    PAClassifier(4, n_iter=1).fit(X, rng.integers(0, 2, n)).model_.save(model)
    out = tmp_path / "wide.pke"
    code, drawn, waited = run_in_pty(CLI + ["compile", str(model), "-o", str(out), "--method", "pke"],
                                     interrupt_on=b"M steps")
    assert waited is not None, drawn
    assert code == 130 and "conjunct: interrupted" in drawn and "Traceback" not in drawn
    assert "compiling pke" in drawn and not out.exists()


def test_tagger_training_in_slices_gives_the_same_model(monkeypatch, ewt_small):
    from conjunct.tagging import PerceptronTagger
    from conjunct.tagging.io import read_tagged

    words, tags = read_tagged(ewt_small)

    def fit(slice_size):
        for name in ("FIRST_SLICE", "MIN_SLICE", "MAX_SLICE"):
            monkeypatch.setattr(progress, name, slice_size)
        return PerceptronTagger(n_iter=2, random_state=0).fit(words, tags)

    one, sliced = fit(1 << 30), fit(5)
    assert one.train_log_[1]["token_errors"] == sliced.train_log_[1]["token_errors"]
    for a, b in zip(one.model_.arrays().values(), sliced.model_.arrays().values()):
        assert np.array_equal(a, b)


def test_ctrl_c_in_the_oracle_exits_130_before_training(shared_data, tmp_path):
    """The oracle is a Python loop over sentences: Ctrl-C acts in it, before any training."""
    model = tmp_path / "p.cjt"
    code, drawn, waited = run_in_pty(CLI + ["parse", "train", str(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu"),
                                            "-o", str(model)], interrupt_on=b"collecting training examples:")
    assert waited is not None, drawn
    assert code == 130 and "conjunct: interrupted" in drawn and "Traceback" not in drawn
    assert "training PAClassifier" not in drawn and not model.exists()


def _oracle_inputs(shared_data):
    """(pipeline, gold sentences) of every task, a small slice of its real corpus."""
    from conjunct.io.corpora import read_columns
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
    from conjunct.tasks.chunk import Chunker
    from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
    from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu

    gsd = shared_data / "ud_japanese_gsd"
    return [(BunsetsuDependencyParser(), load_gsd_bunsetsu(gsd, "dev")[:150]),
            (EnglishDependencyParser(), read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu")[:150]),
            (Chunker(), read_columns(shared_data / "conll2000" / "train.txt", widths=(3,))[:150]),
            (WordSegmenter(), read_segmented_conllu(gsd / "r2.8" / "ja_gsd-ud-dev.conllu")[:150])]


def test_oracles_give_the_same_examples_with_bars_on(shared_data, capsys):
    for pipeline, data in _oracle_inputs(shared_data):
        quiet = pipeline.training_examples(data)
        assert capsys.readouterr().err == ""  # outside progress_bars: nothing drawn
        with progress.progress_bars(force=True):
            shown = pipeline.training_examples(data)
        drawn = capsys.readouterr().err
        assert shown.keys() == quiet.keys(), pipeline.task
        for name, (rows, labels) in quiet.items():
            assert shown[name][0] == rows and np.array_equal(shown[name][1], labels), (pipeline.task, name)
        assert sum(len(labels) for _, labels in quiet.values()) > 150, pipeline.task
        assert "collecting training examples: 100%" in drawn and "150/150" in drawn, (pipeline.task, drawn)


def test_segment_oracle_in_batches_equals_one_call(shared_data, monkeypatch):
    """The segmenter's vectorised oracle runs in batches for its bar; the examples are the same."""
    from conjunct.tasks.segment import oracle, read_segmented_conllu

    sentences = read_segmented_conllu(shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu")[:400]
    monkeypatch.setattr(oracle, "ORACLE_BATCH", 1 << 30)
    one = oracle.training_examples(sentences)
    for size in (1, 7, 128):
        monkeypatch.setattr(oracle, "ORACLE_BATCH", size)
        assert oracle.training_examples(sentences) == one, size
    assert len(one[1]) == sum(len("".join(s)) - 1 for s in sentences)
