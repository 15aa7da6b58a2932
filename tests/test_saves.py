"""Saving model files: atomic under faults and kills, no leftovers, modes kept,
symlinks written through, special files refused, memory-mapped readers safe."""

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import conjunct
from conjunct import ConjunctError
from conjunct.io import model_io

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file semantics")


@pytest.fixture(scope="module")
def models():
    rng = np.random.default_rng(0)
    S = (rng.random((40, 30)) < 0.2).astype(float)
    a = conjunct.KernelModel(S, rng.normal(size=40), 0.5, degree=2)
    b = conjunct.KernelModel(S, rng.normal(size=40), -0.5, degree=3)
    X = (rng.random((10, 30)) < 0.2).astype(float)
    return a, b, X


def temporaries(directory):
    return sorted(n for n in os.listdir(directory) if n.startswith(".conjunct-"))


@posix_only
@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_follow_the_umask(tmp_path, models, umask, mode):
    old = os.umask(umask)
    try:
        models[0].save(tmp_path / "m.cjt")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "m.cjt").st_mode) == mode


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o444, 0o600])
def test_overwriting_keeps_the_files_mode(tmp_path, models, mode):
    path = tmp_path / "m.cjt"
    models[0].save(path)
    os.chmod(path, mode)
    models[1].save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == mode
    assert conjunct.load(path).degree == 3


@posix_only
def test_symlinks_are_written_through(tmp_path, models):
    """The link keeps pointing at the model (e.g. latest.cjt -> v3.cjt); its target gets the new one."""
    (tmp_path / "v").mkdir()
    target = tmp_path / "v" / "v3.cjt"
    models[0].save(target)
    link = tmp_path / "latest.cjt"
    link.symlink_to(target)
    models[1].save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert conjunct.load(target).degree == 3
    assert temporaries(tmp_path) == [] and temporaries(tmp_path / "v") == []
    dangling = tmp_path / "dangling.cjt"
    dangling.symlink_to(tmp_path / "v" / "new.cjt")
    models[0].save(dangling)
    assert dangling.is_symlink() and conjunct.load(tmp_path / "v" / "new.cjt").degree == 2


def test_directories_are_refused(tmp_path, models):
    with pytest.raises(ConjunctError, match="is a directory"):
        models[0].save(tmp_path)


@posix_only
def test_special_files_are_refused_and_left_alone(tmp_path, models):
    with pytest.raises(ConjunctError, match="character device"):
        models[0].save("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConjunctError, match="FIFO"):
        models[0].save(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_missing_directory_names_the_target_not_a_temporary(tmp_path, models):
    path = tmp_path / "no" / "such" / "m.cjt"
    with pytest.raises(FileNotFoundError) as err:
        models[0].save(path)
    assert str(path) in str(err.value) and ".conjunct-" not in str(err.value)


def _fail_mid_write(f, kind, meta, arrays):
    f.write(b"CONJUNCT" + b"\0" * 1000)
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("fault", ["write", "fsync", "replace", "interrupt"])
def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path, models, monkeypatch, fault):
    path = tmp_path / "m.cjt"
    models[0].save(path)
    before = path.read_bytes()
    if fault == "write":
        monkeypatch.setattr(model_io, "_write", _fail_mid_write)
    elif fault == "fsync":
        def fsync(fd):
            raise OSError(5, "Input/output error")
        monkeypatch.setattr(model_io.os, "fsync", fsync)
    elif fault == "replace":
        def replace(a, b):
            raise PermissionError(13, "Permission denied")
        monkeypatch.setattr(model_io.os, "replace", replace)
    else:
        def interrupted(*args):
            raise KeyboardInterrupt
        monkeypatch.setattr(model_io, "_write", interrupted)
    with pytest.raises((OSError, KeyboardInterrupt)):
        models[1].save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before and conjunct.load(path).degree == 2
    assert temporaries(tmp_path) == []


KILLED_SAVE = textwrap.dedent("""
    import sys, time
    import numpy as np
    import conjunct
    from conjunct.io import model_io

    def stall(f, kind, meta, arrays):
        f.write(b"CONJUNCT" + b"\\0" * 4096)
        f.flush()
        print("writing", flush=True)
        time.sleep(60)

    model_io._write = stall
    S = np.eye(5)
    conjunct.KernelModel(S, np.ones(5), degree=2).save(sys.argv[1])
""")


@posix_only
def test_a_killed_save_leaves_the_old_file_and_the_next_save_cleans_up(tmp_path, models):
    path = tmp_path / "m.cjt"
    models[0].save(path)
    before = path.read_bytes()
    child = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert path.read_bytes() == before
    leftovers = temporaries(tmp_path)
    assert len(leftovers) == 1 and f"-{child.pid}-" in leftovers[0]
    models[1].save(tmp_path / "other.cjt")  # any save into the directory
    assert temporaries(tmp_path) == []
    assert conjunct.load(path).degree == 2


@posix_only
def test_only_provably_stale_temporaries_are_removed(tmp_path, models):
    tag = model_io._host_tag()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".conjunct-save-{tag}-{sleeper.pid}-abcd1234.tmp"     # its writer still runs
        foreign = tmp_path / ".conjunct-save-0123456789ab-999999-abcd1234.tmp"   # another machine's
        mkstemp_like = tmp_path / ".conjunct-xyz98765.tmp"                       # no pid to judge it by
        unrelated = tmp_path / ".conjunct-notes.txt"
        for p in (live, foreign, mkstemp_like, unrelated):
            p.write_bytes(b"x")
        old = time.time() - 2 * 86400
        os.utime(mkstemp_like, (old, old))
        models[0].save(tmp_path / "m.cjt")
        assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in (live, foreign, mkstemp_like, unrelated)) + ["m.cjt"]
    finally:
        sleeper.kill()
        sleeper.wait()
    models[0].save(tmp_path / "m.cjt")
    assert not live.exists()  # its writer is gone now


MAPPED_READER = textwrap.dedent("""
    import sys
    import numpy as np
    import conjunct

    clf = conjunct.load(sys.argv[1], mmap=True)
    X = np.load(sys.argv[2])
    first = clf.decision_function(X)
    print("mapped", flush=True)
    for line in sys.stdin:
        assert np.array_equal(clf.decision_function(X), first)
        print("same", flush=True)
""")


@posix_only
def test_saving_over_a_memory_mapped_file_does_not_disturb_its_readers(tmp_path, models):
    """Our saves rename a new file into place; a reader's map keeps the old inode."""
    a, b, X = models
    path = tmp_path / "m.cjt"
    a.compile("pke").save(path)
    np.save(tmp_path / "X.npy", X)
    reader = subprocess.Popen([sys.executable, "-c", MAPPED_READER, str(path), str(tmp_path / "X.npy")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "mapped"
        for model in (b, a, b):
            model.compile("pke").save(path)
            reader.stdin.write("go\n")
            reader.stdin.flush()
            assert reader.stdout.readline().strip() == "same"
    finally:
        reader.stdin.close()
        reader.wait(timeout=60)
    assert reader.returncode == 0
    np.testing.assert_allclose(conjunct.load(path).decision_function(X), b.decision_function(X))


@posix_only
def test_truncating_in_place_kills_mapped_readers_but_not_readers_of_copies(tmp_path, models):
    """What docs/reliability.md warns about: `cp new.cjt model.cjt` truncates in place."""
    a, _, X = models
    path = tmp_path / "m.cjt"
    a.compile("pke").save(path)
    in_memory = conjunct.load(path)  # mmap=False: the file is read into memory
    np.save(tmp_path / "X.npy", X)
    reader = subprocess.Popen([sys.executable, "-c", MAPPED_READER, str(path), str(tmp_path / "X.npy")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "mapped"
        with open(path, "r+b") as f:
            f.truncate(0)
        reader.stdin.write("go\n")
        reader.stdin.flush()
        reader.stdout.readline()
    finally:
        reader.stdin.close()
        reader.wait(timeout=60)
    assert reader.returncode == -signal.SIGBUS
    np.testing.assert_allclose(in_memory.decision_function(X), a.decision_function(X))
