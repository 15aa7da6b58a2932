"""What a command leaves behind: every output file is written beside its target
and renamed over it only when the run succeeds, so a late error, Ctrl-C or a
full disk leaves the previous file (or none) and no temporary; ``-o`` naming
an input is refused before anything is opened. Each test is a reproducer of
the reliability tour."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import conjunct
from conjunct.cli import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_SYSTEM, main
from conjunct.datasets import make_zipf_data
from conjunct.tagging import PerceptronTagger
from helpers import run_cli

SRC = str(Path(conjunct.__file__).resolve().parent.parent)
posix_only = pytest.mark.skipif(os.name != "posix", reason="signals, links and rlimits")
OLD = "the previous output\n"




def temporaries(directory) -> list:
    return sorted(p for p in os.listdir(directory) if p.startswith(".conjunct-"))


def child_env() -> dict:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def conllu(n: int, bad: int = 0, form: str = "") -> str:
    """``n`` two-word CoNLL-U sentences; sentence ``bad`` (1-based) has ``form`` as its second word."""
    return "".join(f"1\tThe\t_\t_\t_\t_\t_\t_\t_\t_\n2\t{form if k == bad else 'dogs'}\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
                   for k in range(1, n + 1))


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("outputs")


@pytest.fixture(scope="module")
def svm(work):
    feats, y = make_zipf_data(3000, n_classes=2, seed=4)
    index = conjunct.FeatureIndex.from_data(feats)
    path = work / "data.svm"
    conjunct.write_svmlight(path, index.transform(feats), y)
    return path


@pytest.fixture(scope="module")
def model(work, svm):
    path = work / "m.cjt"
    assert main(["train", "-q", str(svm), "-o", str(path), "-i", "1"]) == 0
    return path


@pytest.fixture(scope="module")
def tagger(work):
    words = [["The", "dogs", "bark", "."], ["A", "cat", "sleeps", "."]] * 20
    tags = [["DT", "NNS", "VBP", "."], ["DT", "NN", "VBZ", "."]] * 20
    path = work / "tagger.cjt"
    PerceptronTagger(n_iter=1).fit(words, tags).save(path)
    return path


def old_output(path: Path) -> Path:
    path.write_text(OLD)
    os.chmod(path, 0o640)
    return path


def assert_untouched(path: Path) -> None:
    assert path.read_text() == OLD and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert temporaries(path.parent) == []


# -- a run that fails late ---------------------------------------------------------------------------------------------
def test_predict_failing_at_line_2001_keeps_the_old_output(model, svm, tmp_path, capsys):
    lines = svm.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.svm"
    bad.write_text("".join(lines[:2000]) + "1 3:x\n" + "".join(lines[2001:]))
    out = old_output(tmp_path / "labels.txt")
    code, _, err = run_cli(["predict", model, bad, "-o", out, "--batch-size", "500", "-q"], capsys)
    assert code == EXIT_INPUT and f"{bad}:2001:" in err
    assert_untouched(out)
    assert run_cli(["predict", model, svm, "-o", out, "--batch-size", "500", "-q"], capsys)[0] == 0
    assert len(out.read_text().splitlines()) == 3000 and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert temporaries(tmp_path) == []


def test_tag_failing_at_sentence_2001_keeps_the_old_output_and_names_the_sentence(tagger, tmp_path, capsys):
    data = tmp_path / "in.conllu"
    data.write_text(conllu(3000, bad=2001))
    out = old_output(tmp_path / "tags.txt")
    code, _, err = run_cli(["tag", "run", tagger, data, "-o", out, "--batch-size", "1000", "-q"], capsys)
    # sentence 2001 of the file (not sentence 1 of the third batch), at the line of its second word
    assert code == EXIT_INPUT and f"{data}:{3 * 2000 + 2}: sentence 2001, token 2:" in err, err
    assert_untouched(out)


def test_a_new_output_is_not_created_by_a_failed_run(tagger, tmp_path, capsys):
    data = tmp_path / "in.conllu"
    data.write_text(conllu(30, bad=20))
    code, _, _ = run_cli(["tag", "run", tagger, data, "-o", tmp_path / "tags.txt", "--batch-size", "10", "-q"], capsys)
    assert code == EXIT_INPUT and sorted(os.listdir(tmp_path)) == ["in.conllu"]


def test_success_replaces_the_file_through_a_symlink_and_keeps_its_mode(tagger, tmp_path, capsys):
    data = tmp_path / "in.conllu"
    data.write_text(conllu(5))
    real = old_output(tmp_path / "real.txt")
    link = tmp_path / "latest.txt"
    link.symlink_to("real.txt")
    assert run_cli(["tag", "run", tagger, data, "-o", link, "-q"], capsys)[0] == 0
    assert link.is_symlink() and real.read_text().startswith("The\tDT\n")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640 and temporaries(tmp_path) == []


def test_devices_are_written_in_place_and_stdout_streams(tagger, tmp_path, capsys):
    data = tmp_path / "in.conllu"
    data.write_text(conllu(5))
    assert run_cli(["tag", "run", tagger, data, "-o", os.devnull, "-q"], capsys)[0] == 0
    code, out, _ = run_cli(["tag", "run", tagger, data, "-q"], capsys)
    assert code == 0 and out.count("The\tDT\n") == 5
    code, _, err = run_cli(["tag", "run", tagger, data, "-o", tmp_path, "-q"], capsys)
    assert code == EXIT_INPUT and "is a directory" in err


# -- -o naming an input ------------------------------------------------------------------------------------------------
# (command line with {inp} for the input and {out} for -o; every file that would be destroyed)
REFUSALS = [
    ["analyze", "{model}", "{inp}", "-o", "{out}"],
    ["predict", "{model}", "{inp}", "-o", "{out}"],
    ["tag", "run", "{model}", "{inp}", "-o", "{out}"],
    ["chunk", "run", "{model}", "{inp}", "-o", "{out}"],
    ["segment", "run", "{model}", "{inp}", "-o", "{out}"],
    ["parse", "run", "{model}", "{inp}", "-o", "{out}"],
    ["train", "{inp}", "-o", "{out}"],
    ["train", "{inp}", "-o", "{other}", "--explicit", "{out}"],
    ["tag", "train", "{inp}", "-o", "{out}"],
    ["chunk", "train", "{inp}", "-o", "{out}"],
    ["compile", "{inp}", "-o", "{out}"],
    ["convert", "{inp}", "-o", "{out}"],
    ["analyze", "train", "--lang", "en", "{inp}", "-o", "{out}"],
]


@posix_only
@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "relative path"])
@pytest.mark.parametrize("argv", REFUSALS, ids=lambda a: " ".join(a[:2]))
def test_output_naming_an_input_is_refused_before_anything_is_opened(argv, how, tmp_path, capsys, monkeypatch):
    inp = tmp_path / "x.txt"
    inp.write_text("The dogs bark .\n")
    before = (inp.read_bytes(), inp.stat().st_mtime_ns, inp.stat().st_ino)
    out = {"same path": inp, "symlink": tmp_path / "link.txt", "hard link": tmp_path / "hard.txt",
           "relative path": Path("x.txt")}[how]
    if how == "symlink":
        out.symlink_to(inp)
    elif how == "hard link":
        os.link(inp, out)
    monkeypatch.chdir(tmp_path)
    # The model does not exist: the refusal comes before anything is opened.
    argv = [a.format(model=tmp_path / "missing.cjt", inp=inp, out=out, other=tmp_path / "m.cjt") for a in argv]
    code, _, err = run_cli(argv, capsys)
    assert code == EXIT_INPUT and "would destroy" in err and str(inp) in err, err
    assert (inp.read_bytes(), inp.stat().st_mtime_ns, inp.stat().st_ino) == before
    assert not (tmp_path / "m.cjt").exists() and temporaries(tmp_path) == []


def test_the_model_file_as_output_is_refused(tmp_path, capsys):
    m = tmp_path / "en.cjt"
    m.write_bytes(b"a model")
    (tmp_path / "x.txt").write_text("a b\n")
    code, _, err = run_cli(["analyze", m, tmp_path / "x.txt", "-o", m], capsys)
    assert code == EXIT_INPUT and "is the model file" in err and m.read_bytes() == b"a model"


# -- Ctrl-C ------------------------------------------------------------------------------------------------------------
@posix_only
@pytest.mark.parametrize("command", ["tag", "predict"])
def test_ctrl_c_mid_run_keeps_the_old_file_and_leaves_no_temporary(command, tagger, model, svm, tmp_path):
    """The child reads standard input: once it has written its first batches to
    the temporary it waits for more, and SIGINT arrives mid-run."""
    out = old_output(tmp_path / "out.txt")
    if command == "tag":
        argv = ["tag", "run", str(tagger), "-", "--format", "text", "--batch-size", "10", "-q"]
        chunk = "The dogs bark .\n\n" * 50  # a blank line ends each block the reader waits for
    else:
        argv = ["predict", str(model), "-", "--format", "svmlight", "--batch-size", "10", "-q"]
        chunk = "".join(svm.read_text().splitlines(keepends=True)[:50])
    child = subprocess.Popen([sys.executable, "-m", "conjunct", *argv, "-o", str(out)], stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=child_env(), cwd=tmp_path)
    try:
        child.stdin.write(chunk)
        child.stdin.flush()
        deadline = time.monotonic() + 120  # a guard against a hang, not a measurement
        while not any(os.path.getsize(tmp_path / t) > 0 for t in temporaries(tmp_path)):
            assert child.poll() is None and time.monotonic() < deadline, "the child ended or wrote nothing"
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == EXIT_INTERRUPTED and "interrupted" in err and "Traceback" not in err
    assert_untouched(out)


# -- a full disk -------------------------------------------------------------------------------------------------------
FULL_DISK = textwrap.dedent("""
    set -u
    mount -t tmpfs -o size=64k conjunct-test "$DIR" || exit 77
    printf 'the previous output\\n' > "$DIR/labels.txt"
    "$PY" -m conjunct predict "$MODEL" "$DATA" -o "$DIR/labels.txt" --print margins -q 2> "$OUT/predict.err"
    echo "predict $?" > "$OUT/codes"
    cp "$DIR/labels.txt" "$OUT/after.txt"
    "$PY" -m conjunct train "$DATA" -o "$DIR/m.cjt" -q -i 1 2> "$OUT/train.err"
    echo "train $?" >> "$OUT/codes"
    ls -a "$DIR" > "$OUT/listing"
""")


@posix_only
def test_a_full_disk_names_the_file_and_keeps_the_old_one(model, svm, tmp_path):
    """A real ENOSPC: a 64 KiB tmpfs in a mount namespace of the child's own
    (it vanishes with the child); skipped where mounting is not permitted."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    env = {**child_env(), "PY": sys.executable, "DIR": str(disk), "OUT": str(out), "MODEL": str(model), "DATA": str(svm)}
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", FULL_DISK], env=env,
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 77 or not (out / "codes").exists():
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()[:200]}")
    assert (out / "codes").read_text().split() == ["predict", str(EXIT_SYSTEM), "train", str(EXIT_SYSTEM)]
    for name in ("predict", "train"):
        err = (out / f"{name}.err").read_text()
        target = disk / ("labels.txt" if name == "predict" else "m.cjt")
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith(f"conjunct: error: {target}: no space left on device; free some disk space"), err
    assert (out / "after.txt").read_text() == OLD
    assert (out / "listing").read_text().split() == [".", "..", "labels.txt"]


FILE_SIZE_LIMIT = textwrap.dedent("""
    import resource, sys
    from conjunct.cli import run
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))  # Python ignores SIGXFSZ: writes fail with EFBIG
    sys.argv = ["conjunct", *sys.argv[1:]]
    run()
""")


@posix_only
def test_a_file_size_limit_names_the_file_and_keeps_the_old_one(model, svm, tmp_path):
    out = old_output(tmp_path / "labels.txt")
    r = subprocess.run([sys.executable, "-B", "-c", FILE_SIZE_LIMIT, "predict", str(model), str(svm), "-o", str(out),
                        "--print", "margins", "-q"], capture_output=True, text=True, env=child_env(), timeout=300)
    assert r.returncode == EXIT_SYSTEM, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"conjunct: error: {out}: file too large"), r.stderr
    assert_untouched(out)


def test_a_failed_model_save_names_the_file(tmp_path, monkeypatch):
    from conjunct.io import model_io

    def full(f, kind, meta, arrays):
        f.write(b"CONJUNCT")
        raise OSError(28, "No space left on device")

    from conjunct.training import PAClassifier

    feats, y = make_zipf_data(50, seed=1)
    m = PAClassifier(degree=2, n_iter=1).fit(feats, y).model_
    monkeypatch.setattr(model_io, "_write", full)
    with pytest.raises(OSError) as err:
        m.save(tmp_path / "m.cjt")
    assert err.value.filename == str(tmp_path / "m.cjt") and err.value.errno == 28
    assert os.listdir(tmp_path) == []


def test_figures_are_written_atomically(tmp_path):
    pytest.importorskip("matplotlib")
    from conjunct.plot import figures

    class Broken:
        def savefig(self, f, **kwargs):
            f.write(b"\x89PNG half a figure")
            raise RuntimeError("the renderer failed")

    target = tmp_path / "fig.png"
    target.write_bytes(b"old figure")
    with pytest.raises(RuntimeError):
        figures.save_figure(Broken(), target)
    assert target.read_bytes() == b"old figure" and temporaries(tmp_path) == []


def test_text_no_utf8_file_can_hold_is_a_clear_error(tagger, tmp_path, capsys, monkeypatch):
    """Before: a UnicodeEncodeError traceback (exit 1) for a lone surrogate, e.g. from stdin read under LC_ALL=C."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("The \udced dogs\n"))
    out = old_output(tmp_path / "tags.txt")
    code, _, err = run_cli(["tag", "run", tagger, "-", "--format", "text", "-o", out, "-q"], capsys)
    # Refused where it is read (the writer would refuse it too, naming the output file).
    assert code == EXIT_INPUT and err.startswith("conjunct: error: <stdin>:1: not valid Unicode: lone surrogate U+DCED"), err
    assert_untouched(out)


def test_an_option_that_is_not_a_file_is_not_an_input(tmp_path, capsys, monkeypatch):
    """``tag train --model perceptron`` names a kind of tagger: ``-o perceptron`` replaces that file as asked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "perceptron").write_text("an old file")
    (tmp_path / "train.txt").write_text("The\tDT\ndogs\tNNS\n\n")
    code, _, err = run_cli(["tag", "train", "train.txt", "--format", "columns", "-o", "perceptron", "-q"], capsys)
    assert code == 0, err
    assert conjunct.load(tmp_path / "perceptron").labels_ == ["DT", "NNS"]


@posix_only
def test_dev_stdout_into_a_pipe_is_written_in_place(tagger, tmp_path):
    """/dev/stdout leads through /proc to a pipe: there is nothing to rename over."""
    data = tmp_path / "in.txt"
    data.write_text("The dogs\n")
    r = subprocess.run([sys.executable, "-m", "conjunct", "tag", "run", str(tagger), str(data), "--format", "text",
                        "-q", "-o", "/dev/stdout"], capture_output=True, text=True, env=child_env(), timeout=300)
    assert r.returncode == 0 and r.stdout == "The\tDT\ndogs\tNNS\n\n", r.stderr
