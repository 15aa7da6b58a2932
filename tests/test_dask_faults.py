"""conjunct.dask under faults: a failed, interrupted or disk-full run leaves
the old output and no temporary file; a worker killed mid-task is retried and
its piece removed; a worker that dies on a piece every time, or no worker at
all, fails the run in bounded time with one line; a model file replaced
mid-run fails the run or, by option, is finished on the old version."""

import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

import pytest

distributed = pytest.importorskip("distributed", reason="conjunct.dask needs dask and distributed (the dask extra)")
import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from conjunct import cli  # noqa: E402
from conjunct._errors import ConjunctError  # noqa: E402
from conjunct.dask import ModelChangedError, map_files, model_digest, predict, shared_model  # noqa: E402
from conjunct.dask import files as dfiles  # noqa: E402
from conjunct.io._atomic import _host_tag  # noqa: E402
from conjunct.io.persistence import load  # noqa: E402
from conjunct.tagging import PerceptronTagger  # noqa: E402
from conjunct.tagging.io import iter_words, read_tagged, write_tagged  # noqa: E402

OLD = "the output before the run\n"


@pytest.fixture(scope="module")
def client():
    """Two worker processes; a task is retried after one worker death, not two."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def empty_scheduler():
    """A scheduler with no worker: what a cluster whose workers cannot come back looks like."""
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def models(shared_data, tmp_path_factory):
    """Two taggers (the second with lower-case tags and a bigger file) and an input of 160 sentences."""
    words, tags = read_tagged(shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu", tag_field="upos")
    where = tmp_path_factory.mktemp("faults")
    a, b = where / "a.tagger", where / "b.tagger"
    PerceptronTagger(n_iter=1).fit(words[:300], tags[:300]).save(a)
    PerceptronTagger(n_iter=1).fit(words[300:900], [[t.lower() for t in s] for s in tags[300:900]]).save(b)
    assert os.path.getsize(b) > os.path.getsize(a)
    src = where / "in.conllu"
    blocks = (shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu").read_text(encoding="utf-8").split("\n\n")
    src.write_text("\n\n".join(blocks[:160]) + "\n\n", encoding="utf-8")
    return str(a), str(b), str(src)


def _tag(tagger, src, dst):
    words = list(iter_words(src))
    with open(dst, "w", encoding="utf-8") as f:
        write_tagged(f, words, tagger.predict(words))


def serial(model, src, tmp_path):
    out = tmp_path / "serial.txt"
    _tag(load(model), src, out)
    return out.read_bytes()


class Tag:
    """A runner: the tags of every word."""

    def __call__(self, tagger, src, dst):
        _tag(tagger, src, dst)


def _first(marker: str) -> bool:
    """True for exactly one caller across processes (the marker file is created once)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


class ReplacesTheModel(Tag):
    """Replaces the model file (once, in the first piece that runs), then tags its piece."""

    def __init__(self, model, other, how, marker):
        self.model, self.other, self.how, self.marker = model, other, how, marker

    def __call__(self, tagger, src, dst):
        if _first(self.marker):
            if self.how == "mv":
                staged = self.model + ".new"
                shutil.copyfile(self.other, staged)
                os.replace(staged, self.model)
            else:  # cp over it: the same inode rewritten (growing, so no reader of the old map faults)
                with open(self.other, "rb") as f, open(self.model, "r+b") as g:
                    g.write(f.read())
                    g.truncate()
        super().__call__(tagger, src, dst)


class KillsItsWorker(Tag):
    """Kills its own worker process: once (the first piece to run), or on every
    piece holding ``word``; each victim's pid and piece file are noted in ``log``."""

    def __init__(self, log, word=None):
        self.log, self.word = log, word

    def __call__(self, tagger, src, dst):
        if self.word is not None:
            with open(src, encoding="utf-8") as f:
                kill = self.word in f.read()
        else:
            kill = _first(self.log + ".once")
        if kill:
            with open(self.log, "a") as f:
                f.write(f"{os.getpid()} {src}\n")
            os.kill(os.getpid(), signal.SIGKILL)
        super().__call__(tagger, src, dst)


def _victims(log):
    """(pid, piece file) of every process a KillsItsWorker killed."""
    with open(log) as f:
        return [(int(pid), piece) for pid, piece in (line.split(" ", 1) for line in f.read().splitlines())]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", ""])
    p.wait()
    return p.pid


def _leftovers(directory, pids=()):
    """Parts folders in ``directory``; pieces in the temporary directory of the given processes."""
    parts = [p for p in os.listdir(directory) if p.startswith(".conjunct-parts-")]
    tag = _host_tag()
    pieces = [p for p in os.listdir(tempfile.gettempdir())
              if any(re.match(rf"conjunct-piece-[0-9a-f]{{12}}-{tag}-{pid}-", p) for pid in pids)]
    return parts + pieces


def _worker_pids(c):
    return set(c.run(os.getpid).values())


# -- the model file -------------------------------------------------------------------------------------------------
def test_the_shared_model_is_pinned_by_its_digest(models, tmp_path):
    a, b, _ = models
    path = str(tmp_path / "m.tagger")
    shutil.copyfile(a, path)
    digest = model_digest(path)
    assert digest == model_digest(a) and digest != model_digest(b) and len(digest) == 32
    first = shared_model(path, digest)
    assert shared_model(path, digest) is first  # unchanged: the loaded copy is reused
    staged = str(tmp_path / "staged")
    shutil.copyfile(b, staged)
    os.replace(staged, path)  # mv
    with pytest.raises(ModelChangedError, match=re.escape(path) + ": the model file changed during the run"):
        shared_model(path, digest)
    assert shared_model(path, model_digest(b)).predict([["a", "dog"]])[0][0].islower()
    with open(a, "rb") as f, open(path, "r+b") as g:  # cp over it: the same inode, rewritten
        g.write(f.read())
        g.truncate()
    with pytest.raises(ModelChangedError):
        shared_model(path, model_digest(b))
    assert shared_model(path, digest) is not first  # the same content again, loaded from the new version
    junk = tmp_path / "junk"
    junk.write_bytes(b"x" * 100)
    with pytest.raises(ConjunctError, match="not a conjunct model file"):
        model_digest(junk)


def test_a_model_rewritten_while_a_worker_loads_it_is_a_changed_model(models, tmp_path, monkeypatch):
    """cp over the file between the worker's digest check and its load: the load reads half of the
    new file, which is corrupt; that is reported as the run's model having changed, not as a bad model."""
    import conjunct.io.persistence as persistence

    a, b, _ = models
    path = str(tmp_path / "m.tagger")
    shutil.copyfile(a, path)
    digest = model_digest(path)
    real_load = persistence.load

    def load_while_cp_writes(p, **kw):
        with open(b, "rb") as f, open(path, "r+b") as g:  # cp: the same inode, truncated and half written
            g.truncate()
            g.write(f.read()[: os.path.getsize(b) // 2])
        return real_load(p, **kw)

    monkeypatch.setattr(persistence, "load", load_while_cp_writes)
    with pytest.raises(ModelChangedError, match="changed during the run"):
        shared_model(path, digest)
    monkeypatch.setattr(persistence, "load", real_load)
    with open(path, "wb") as g:  # a file that is corrupt and stays so is still a bad model
        g.write(open(a, "rb").read()[:-10])
    with pytest.raises(ConjunctError) as e:
        shared_model(path, None)
    assert not isinstance(e.value, ModelChangedError)


@pytest.mark.realdata
@pytest.mark.parametrize("how", ["mv", "cp"])
def test_a_model_replaced_mid_run_fails_the_run_or_finishes_on_the_old_version(models, client, tmp_path, how):
    a, b, src = models
    expected = serial(a, src, tmp_path)
    for mode in ("fail", "finish"):
        model, out = str(tmp_path / f"{mode}.tagger"), tmp_path / f"{mode}.txt"
        shutil.copyfile(a, model)
        out.write_text(OLD)
        runner = ReplacesTheModel(model, b, how, str(tmp_path / f"{mode}.marker"))
        if mode == "fail":
            # cp over a mapped file may also crash a worker reading it mid-task (docs/reliability.md): the run
            # still fails, as a worker that died
            with pytest.raises(ConjunctError, match=re.escape(model) + ": the model file changed during the run"
                               if how == "mv" else "the model file changed during the run|worker died"):
                map_files(model, [src], [out], runner, client=client)
            assert out.read_text() == OLD  # never a mix: nothing written
        else:
            map_files(model, [src], [out], runner, client=client, on_model_change="finish")
            assert out.read_bytes() == expected  # every piece on the version the run started with
        assert model_digest(model) == model_digest(b)
        assert not _leftovers(tmp_path, _worker_pids(client))


def test_the_driver_fails_the_run_as_soon_as_the_model_is_replaced(models, empty_scheduler, tmp_path):
    a, b, src = models
    model, out = str(tmp_path / "m.tagger"), tmp_path / "out.txt"
    shutil.copyfile(a, model)
    out.write_text(OLD)
    shutil.copyfile(b, str(tmp_path / "staged"))
    later = threading.Timer(0.3, os.replace, (str(tmp_path / "staged"), model))
    later.start()
    try:  # no worker runs a task: only the driver can notice, long before the worker timeout
        with pytest.raises(ModelChangedError, match=re.escape(model)):
            map_files(model, [src], [out], Tag(), client=empty_scheduler, worker_timeout=600)
    finally:
        later.join()
    assert out.read_text() == OLD and not _leftovers(tmp_path)


@pytest.mark.realdata
def test_a_bag_prediction_pins_the_model_of_its_graph(models, client, tmp_path):
    a, b, _ = models
    model = str(tmp_path / "m.tagger")
    shutil.copyfile(a, model)
    graph = predict(model, db.from_sequence([["a", "dog"], ["it", "runs"]], npartitions=2))
    staged = str(tmp_path / "staged")
    shutil.copyfile(b, staged)
    os.replace(staged, model)
    with pytest.raises(ModelChangedError):
        client.compute(graph).result()  # this cluster: the default client may be another module fixture's


# -- the output ---------------------------------------------------------------------------------------------------------
class Fails(Tag):
    """Refuses the piece that holds ``line``."""

    def __init__(self, line):
        self.line = line

    def __call__(self, tagger, src, dst):
        with open(src, encoding="utf-8") as f:
            if self.line in f.read():
                raise ConjunctError("refused this piece")
        super().__call__(tagger, src, dst)


def _sent_id(src, k):
    """The sent_id line of sentence ``k`` of ``src``: in one piece only."""
    with open(src, encoding="utf-8") as f:
        return [line for line in f if line.startswith("# sent_id")][k]


@pytest.mark.realdata
def test_a_failed_run_keeps_the_old_output_and_leaves_nothing(models, client, tmp_path):
    a, _, src = models
    out = tmp_path / "out.txt"
    out.write_text(OLD)
    with pytest.raises(ConjunctError, match="refused this piece"):
        map_files(a, [src], [out], Fails(_sent_id(src, 100)), client=client)
    assert out.read_text() == OLD
    assert not _leftovers(tmp_path, _worker_pids(client))
    new = tmp_path / "new.txt"  # no output before: none after
    with pytest.raises(ConjunctError):
        map_files(a, [src], [new], Fails(_sent_id(src, 100)), client=client)
    assert not new.exists()


@pytest.mark.realdata
@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()])
def test_disk_full_or_ctrl_c_while_joining_keeps_the_old_output(models, client, tmp_path, monkeypatch, fault):
    a, _, src = models
    out = tmp_path / "out.txt"
    out.write_text(OLD)
    os.chmod(out, 0o640)
    calls = []

    def append(part, f):
        calls.append(part)
        if len(calls) == 2:  # the second part: half written, then the fault
            f.write(b"x" * 100)
            raise fault
        with open(part, "rb") as g:
            f.write(g.read())

    monkeypatch.setattr(dfiles, "_append", append)
    with pytest.raises(type(fault)) as e:
        map_files(a, [src], [out], Tag(), client=client)
    if isinstance(fault, OSError):
        assert e.value.filename == str(out) and e.value.errno == errno.ENOSPC  # names the output, not a temporary
    assert out.read_text() == OLD
    assert not _leftovers(tmp_path, _worker_pids(client))
    monkeypatch.undo()
    map_files(a, [src], [out], Tag(), client=client)  # and a run that succeeds replaces it, keeping its mode
    assert out.read_bytes() == serial(a, src, tmp_path) and os.stat(out).st_mode & 0o777 == 0o640


def test_the_output_must_not_be_the_input_or_a_directory(models, tmp_path):
    a, _, src = models
    copy = tmp_path / "in.conllu"
    shutil.copyfile(src, copy)
    before = copy.read_bytes()
    with pytest.raises(ConjunctError, match="the output is the input"):
        map_files(a, [copy], [copy], Tag(), client="local:1")  # refused before any cluster starts
    assert copy.read_bytes() == before
    with pytest.raises(IsADirectoryError):
        map_files(a, [copy], [tmp_path], Tag(), client="local:1")


# -- workers that die -------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_a_worker_killed_mid_task_is_retried_and_its_piece_removed(models, client, tmp_path):
    a, _, src = models
    out, log = tmp_path / "out.txt", str(tmp_path / "kills")
    map_files(a, [src], [out], KillsItsWorker(log), client=client)
    assert out.read_bytes() == serial(a, src, tmp_path)
    [(killed, piece)] = _victims(log)
    assert killed not in _worker_pids(client)  # restarted
    assert os.path.dirname(piece) == tempfile.gettempdir() and not os.path.exists(piece)
    assert not _leftovers(tmp_path)


@pytest.mark.realdata
def test_a_piece_that_kills_its_worker_every_time_fails_in_one_line(models, client, tmp_path):
    a, _, src = models
    out, log = tmp_path / "out.txt", str(tmp_path / "kills")
    out.write_text(OLD)
    with pytest.raises(ConjunctError) as e:
        map_files(a, [src], [out], KillsItsWorker(log, word=_sent_id(src, 0)), client=client)
    message = str(e.value)
    assert "\n" not in message
    assert re.search(r"in\.conllu: piece 1 of \d+ \(bytes 0-[\d,]+\): its worker died 2 times while running it",
                     message), message
    assert f"{out} was left as it was" in message
    assert out.read_text() == OLD
    victims = _victims(log)
    assert len(victims) == 2 and not any(os.path.exists(piece) for _, piece in victims)
    assert not _leftovers(tmp_path)


def test_no_worker_fails_the_run_within_the_timeout(models, empty_scheduler, tmp_path, capsys):
    a, _, src = models
    out = tmp_path / "out.txt"
    out.write_text(OLD)
    stale = tmp_path / f".conjunct-parts-{_host_tag()}-{_dead_pid()}-abcdefgh"  # a driver killed earlier
    stale.mkdir()
    (stale / "part-000000").write_text("x")
    with pytest.raises(ConjunctError, match=r"no Dask worker for 0.5 s .* piece 1 of 4 .* and 3 more not done"):
        map_files(a, [src], [out], Tag(), client=empty_scheduler, worker_timeout=0.5)
    assert out.read_text() == OLD and not _leftovers(tmp_path)
    # the command line: one line, exit 2
    assert cli.main(["tag", "run", a, src, "-o", str(out), "-q", "--scheduler", empty_scheduler.scheduler.address,
                     "--worker-timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("conjunct: error: no Dask worker for 0.5 s") and err.count("\n") == 1
    assert out.read_text() == OLD


def test_cluster_options_are_checked(models, capsys):
    a, _, src = models
    for bad in (["--worker-timeout", "-1"], ["--worker-timeout", "soon"], ["--on-model-change", "mix"]):
        with pytest.raises(SystemExit):
            cli.main(["tag", "run", a, src, "--scheduler", "local:1", *bad])
        assert bad[0] in capsys.readouterr().err
    with pytest.raises(ConjunctError, match="on_model_change"):
        map_files(a, [src], ["-"], Tag(), client="local:1", on_model_change="mix")


def test_cluster_failures_become_one_line_errors():
    from conjunct.dask._cluster import _one_line_errors

    with pytest.raises(ConjunctError, match=r"a Dask worker died 4 times while running task 'x' \(.*last tcp://h:1\)"):
        with _one_line_errors(distributed):
            raise distributed.KilledWorker("x", "tcp://h:1", 3)
    with pytest.raises(ConjunctError, match="^the Dask cluster failed: RuntimeError: Nanny failed to start; "
                                           "OSError: no port$"):
        with _one_line_errors(distributed):
            try:
                raise OSError("no port")
            except OSError as e:
                raise RuntimeError("Nanny failed to start") from e
    with pytest.raises(RuntimeError, match="unrelated"):  # not the cluster's: left alone
        with _one_line_errors(distributed):
            raise RuntimeError("unrelated")
