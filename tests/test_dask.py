"""conjunct.dask on a LocalCluster: files processed in pieces give the serial
output byte for byte, models are loaded once per worker by path (memory-mapped)
and never travel in the graph, and parameter mixing with one shard is ``fit``."""

import io
import mmap
import os
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

distributed = pytest.importorskip("distributed", reason="conjunct.dask needs dask and distributed (the dask extra)")
import dask.bag as db  # noqa: E402

from conjunct import cli  # noqa: E402
from conjunct._errors import ConjunctError  # noqa: E402
from conjunct.dask import connect, map_files, mix_states, predict, shared_model, split_ranges, train_tagger  # noqa: E402
from conjunct.tagging import PerceptronTagger  # noqa: E402
from conjunct.tagging.io import read_tagged  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """Two worker processes: models must be loaded in each, not shipped."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def ewt(shared_data):
    path = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    words, tags = read_tagged(path, tag_field="upos")
    return path, words, tags


@pytest.fixture(scope="module")
def tagger_file(ewt, tmp_path_factory):
    _, words, tags = ewt
    path = tmp_path_factory.mktemp("dask") / "upos.tagger"
    PerceptronTagger(n_iter=1).fit(words[:1000], tags[:1000]).save(path)
    return str(path)


# -- splitting -------------------------------------------------------------------------------------------------
@given(st.lists(st.lists(st.text("ab \t#", min_size=1, max_size=6), min_size=1, max_size=4), max_size=12),
       st.integers(1, 9), st.sampled_from(["\n", "\n  \n", "\n\n\n"]))
def test_split_ranges_cover_the_file_at_sentence_ends(tmp_path_factory, sentences, n, gap):
    text = "".join("\n".join(s) + gap for s in sentences)
    path = tmp_path_factory.mktemp("split") / "f.txt"
    path.write_bytes(text.encode())
    for unit in ("block", "line"):
        ranges = split_ranges(path, n, unit)
        assert len(ranges) <= max(1, n)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(text.encode())
        assert all(a < b for a, b in ranges) or len(text) == 0
        assert all(ranges[k][1] == ranges[k + 1][0] for k in range(len(ranges) - 1))
        data = text.encode()
        for _, end in ranges[:-1]:
            assert data[end - 1:end] == b"\n"
            if unit == "block":  # the line before the cut is blank: no sentence is cut
                previous = data[:end - 1].rsplit(b"\n", 1)[-1]
                assert previous.strip() == b""


# -- processing ------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_cli_tag_on_local_2_is_byte_identical(ewt, tagger_file, tmp_path):
    src = ewt[0]
    serial, parallel = tmp_path / "serial.txt", tmp_path / "dask.txt"
    assert cli.main(["tag", "run", tagger_file, str(src), "-o", str(serial), "-q"]) == 0
    assert cli.main(["tag", "run", tagger_file, str(src), "-o", str(parallel), "-q", "--scheduler", "local:2"]) == 0
    assert serial.read_bytes() == parallel.read_bytes()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".conjunct-parts-")]  # parts removed


@pytest.mark.realdata
def test_pieces_give_the_serial_output_on_an_existing_cluster(ewt, tagger_file, tmp_path, client):
    src = ewt[0]
    serial, parallel = tmp_path / "serial.txt", tmp_path / "dask.txt"
    cli.main(["tag", "run", tagger_file, str(src), "-o", str(serial), "-q", "--decoder", "viterbi"])
    cli.main(["tag", "run", tagger_file, str(src), "-o", str(parallel), "-q", "--decoder", "viterbi",
              "--scheduler", client.scheduler.address])
    assert serial.read_bytes() == parallel.read_bytes()
    # every worker that ran a piece loaded the model once, memory-mapped
    loads = client.run(_loads_of, tagger_file)
    assert loads and all(v in (0, 1) for v in loads.values()) and sum(loads.values()) >= 1
    assert all(client.run(_weights_are_mapped, tagger_file).values())


def _loads_of(path):
    from conjunct.dask._shared import LOADS

    return LOADS.get(os.path.abspath(path), 0)


def _weights_are_mapped(path):
    from conjunct.dask._shared import LOADS

    if not LOADS.get(os.path.abspath(path)):
        return True  # this worker ran no piece
    a = shared_model(path).model_.w_values
    while a is not None and not isinstance(a, mmap.mmap):
        a = getattr(a, "base", None) if isinstance(a, np.ndarray) else getattr(a, "obj", None)
    return isinstance(a, mmap.mmap)


@pytest.mark.realdata
def test_chunker_run_on_a_cluster_equals_serial(shared_data, tmp_path, client, capsys):
    from conjunct.io.corpora import read_conll2000
    from conjunct.tasks.chunk import Chunker

    model = tmp_path / "chunker.model"
    Chunker(degree=2, n_iter=2).fit(read_conll2000(shared_data / "conll2000" / "train.txt")[:150]).save(model)
    src = tmp_path / "test.txt"
    src.write_text("".join(b + "\n\n" for b in (shared_data / "conll2000" / "test.txt").read_text().split("\n\n")[:300]))
    serial, parallel = tmp_path / "serial.txt", tmp_path / "dask.txt"
    cli.main(["chunk", "run", str(model), str(src), "-o", str(serial)])
    cli.main(["chunk", "run", str(model), str(src), "-o", str(parallel), "--scheduler", client.scheduler.address])
    assert serial.read_bytes() == parallel.read_bytes()
    capsys.readouterr()
    assert cli.main(["chunk", "run", str(model), str(src), "-o", str(parallel), "--scheduler", client.scheduler.address,
                     "--method", "pkb"]) != 0
    assert "--method pkb with --scheduler" in capsys.readouterr().err


@pytest.mark.realdata
def test_map_files_takes_several_files_and_a_runner(ewt, tagger_file, tmp_path, client):
    lines = ewt[0].read_text(encoding="utf-8").split("\n\n")
    inputs, outputs = [], []
    for k in range(3):
        p = tmp_path / f"in{k}.conllu"
        p.write_text("\n\n".join(lines[k * 50:(k + 1) * 50]) + "\n\n", encoding="utf-8")
        inputs.append(p)
        outputs.append(tmp_path / f"out{k}.txt")
    map_files(tagger_file, inputs, outputs, _count_sentences, client=client)
    for src, dst in zip(inputs, outputs):
        assert dst.read_text() == _count_sentences.serial(src)


class _CountSentences:
    """A runner: one line per sentence, its first word and its tag."""

    def __call__(self, tagger, src, dst):
        with open(dst, "w") as f:
            f.write(self.serial(src, tagger))

    @staticmethod
    def serial(src, tagger=None):
        from conjunct.tagging.io import iter_words, write_tagged

        tagger = tagger or shared_model(os.environ.get("CONJUNCT_TEST_TAGGER", ""))
        words = list(iter_words(src))
        out = io.StringIO()
        write_tagged(out, [w[:1] for w in words], [t[:1] for t in tagger.predict(words)])
        return out.getvalue()


_count_sentences = _CountSentences()


@pytest.fixture(autouse=True)
def _tagger_env(monkeypatch, request):
    if "tagger_file" in request.fixturenames:
        monkeypatch.setenv("CONJUNCT_TEST_TAGGER", request.getfixturevalue("tagger_file"))


class _Fails:
    def __call__(self, obj, src, dst):
        raise ConjunctError(f"refused {os.path.basename(src)}")


@pytest.mark.realdata
def test_a_failed_piece_fails_the_run_and_leaves_no_parts(ewt, tagger_file, tmp_path, client):
    with pytest.raises(ConjunctError, match="refused conjunct-piece-"):
        map_files(tagger_file, [ewt[0]], [tmp_path / "out.txt"], _Fails(), client=client)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".conjunct-parts-")]


@pytest.mark.realdata
def test_bag_and_series_predictions_equal_serial(ewt, tagger_file, client):
    from conjunct.io.persistence import load

    words = ewt[1][:300]
    expected = load(tagger_file).predict(words)
    bag = db.from_sequence(words, npartitions=6)
    assert predict(tagger_file, bag).compute() == expected
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    texts = dd.from_pandas(pd.Series([" ".join(w) for w in words], name="text"), npartitions=5)
    assert list(predict(tagger_file, texts).compute()) == expected


@pytest.mark.realdata
def test_the_graph_holds_the_path_not_the_model(ewt, tmp_path):
    _, words, tags = ewt
    small, big = tmp_path / "a.tagger", tmp_path / "b.tagger"
    PerceptronTagger(n_iter=1).fit(words[:50], tags[:50]).save(small)
    PerceptronTagger(n_iter=1).fit(words, tags).save(big)
    assert os.path.getsize(big) > 5 * os.path.getsize(small)
    bag = db.from_sequence(words[:100], npartitions=4)
    sizes = [len(pickle.dumps(dict(predict(m, bag).__dask_graph__()))) for m in (small, big)]
    assert sizes[0] == sizes[1]  # the same length of path, whatever the model's size
    assert sizes[1] < os.path.getsize(small)


# -- errors ------------------------------------------------------------------------------------------------------
def test_bad_schedulers_and_inputs(tmp_path):
    with pytest.raises(ConjunctError, match="local:N"):
        with connect("local:0"):
            pass
    with pytest.raises(ConjunctError, match="standard input"):
        map_files(tmp_path / "m", ["-"], ["-"], _count_sentences, client="local:1")
    with pytest.raises(ConjunctError, match="Bag"):
        predict(tmp_path / "m", [["a"]])


# -- iterative parameter mixing ----------------------------------------------------------------------------------
@pytest.mark.realdata
def test_one_shard_trains_exactly_the_serial_model(ewt):
    _, words, tags = ewt
    words, tags = words[:600], tags[:600]
    serial = PerceptronTagger(n_iter=3, random_state=4).fit(words, tags)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        mixed = train_tagger(PerceptronTagger(n_iter=3, random_state=4), words, tags, client=c)
    assert mixed.n_shards_ == 1
    a, b = serial.model_.arrays(), mixed.model_.arrays()
    for k in a:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
    assert [r["token_errors"] for r in serial.train_log_] == [r["token_errors"] for r in mixed.train_log_]


@pytest.mark.realdata
def test_two_shards_learn_a_tagger_near_serial(ewt, client):
    _, words, tags = ewt
    train, test = (words[:1500], tags[:1500]), (words[1500:], tags[1500:])
    serial = PerceptronTagger(n_iter=3).fit(*train).score(*test)
    mixed = train_tagger(PerceptronTagger(n_iter=3), *train, client=client, mix="size")
    assert mixed.n_shards_ == 2
    assert abs(mixed.score(*test) - serial) < 0.03  # the 0.5-point figure on full EWT: benchmarks/bench_dask.py


def _state(rng, F, L, c, n):
    nnz = rng.integers(0, F * L)
    keys = np.sort(rng.choice(F * L, size=nnz, replace=False))
    indptr = np.zeros(F + 1, np.int64)
    np.cumsum(np.bincount(keys // L, minlength=F), out=indptr[1:])
    w, u = rng.normal(size=nnz), rng.normal(size=nnz) * c
    dense = [rng.normal(size=s) for s in [(L, L)] * 2 + [L] * 4]
    return (indptr, (keys % L).astype(np.int32), w, u, *dense, float(c + n))


@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 3))
def test_mixing_means_the_weights_and_the_averaged_weights(seed, shards):
    rng = np.random.default_rng(seed)
    F, L, c = 5, 3, 7.0
    states = [_state(rng, F, L, c, n) for n in rng.integers(1, 20, size=shards)]
    mu = rng.dirichlet(np.ones(shards))
    mixed = mix_states(states, mu, c)

    def dense(s, averaged):
        W = np.zeros((F, L))
        rows = np.repeat(np.arange(F), np.diff(s[0]))
        W[rows, s[1]] = s[2] - (s[3] / s[10] if averaged else 0)
        return np.concatenate([W.ravel()] + [(s[k] - (s[k + 1] / s[10] if averaged else 0)).ravel() for k in (4, 6, 8)])

    if shards == 1:
        assert mixed is states[0]
        return
    assert mixed[10] == c + sum(s[10] - c for s in states)
    for averaged in (False, True):
        np.testing.assert_allclose(dense(mixed, averaged), sum(m * dense(s, averaged) for s, m in zip(states, mu)),
                                   rtol=1e-9, atol=1e-9)


@pytest.mark.realdata
def test_pa_one_shard_is_fit_and_two_shards_mix(shared_data):
    from conjunct import PAClassifier
    from conjunct.dask import train_classifier
    from conjunct.io.corpora import read_conll2000
    from conjunct.tasks.chunk import Chunker

    # chunking decisions: the chunker's own training examples (string features, many classes)
    X, y = Chunker(degree=2).training_examples(read_conll2000(shared_data / "conll2000" / "train.txt")[:150])["chunk"]
    serial = PAClassifier(degree=2, n_iter=3, random_state=1).fit(X, y)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        one = train_classifier(PAClassifier(degree=2, n_iter=3, random_state=1), X, y, client=c)
        two = train_classifier(PAClassifier(degree=2, n_iter=3, random_state=1), X, y, client=c, n_shards=2)
    a, b = serial.model_.to_container(), one.model_.to_container()
    assert a[1] == b[1] and all(np.array_equal(a[2][k], b[2][k]) for k in a[2])
    assert two.n_shards_ == 2 and abs(two.score(X, y) - serial.score(X, y)) < 0.05


def test_mixed_support_sets_replay_to_the_mean(tmp_path):
    from conjunct import PAClassifier
    from conjunct.dask.mixing_kernel import _pa_shard_epoch, _rows, mix_supports

    rng = np.random.default_rng(3)
    X = [[f"f{j}" for j in rng.choice(12, size=4, replace=False)] for _ in range(200)]
    y = [int("f1" in x or "f2" in x) for x in X]
    est = PAClassifier(degree=2, n_iter=1, random_state=0)
    M, yy, _ = est._begin(X, y, None, True, est._validated())
    trainer, indptr, indices, labels = est._training_rows(M, yy)
    F = int(trainer.n_features)
    states = []
    for k in range(2):
        shard = _rows(indptr, indices, labels, np.arange(k, 200, 2))
        states.append(_pa_shard_epoch(est, shard, None, np.arange(100, dtype=np.int64), F, False)[0])
    mixed = est._load_trainer(mix_supports(states, [0.25, 0.75], 0, F))
    assert mixed.rounds == 200
    expected = {}
    for (ip, ix, a, g, _), m in zip(states, [0.25, 0.75]):
        for i in range(len(ip) - 1):
            e = expected.setdefault(ix[ip[i]:ip[i + 1]].tobytes(), np.zeros(2))
            e += m * np.array([a[i, 0], g[i, 0]])
    ip, ix, alpha, _ = mixed.export(average=False)
    averaged = mixed.export(average=True)[2]
    assert len(ip) - 1 == len(expected)
    for i in range(len(ip) - 1):
        np.testing.assert_allclose([alpha[i, 0], averaged[i, 0]], expected[ix[ip[i]:ip[i + 1]].tobytes()], atol=1e-12)


@pytest.mark.realdata
def test_cli_training_with_one_worker_equals_serial(ewt, shared_data, tmp_path):
    from conjunct import load, write_strings
    from conjunct.io.corpora import read_conll2000
    from conjunct.tasks.chunk import Chunker

    src = tmp_path / "train.conllu"
    src.write_text("\n\n".join(ewt[0].read_text(encoding="utf-8").split("\n\n")[:300]) + "\n\n", encoding="utf-8")
    vectors = tmp_path / "train.txt"
    write_strings(vectors, *Chunker(degree=2).training_examples(
        read_conll2000(shared_data / "conll2000" / "train.txt")[:60])["chunk"])
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        for argv in (["tag", "train", str(src), "-i", "2", "-q", "--tag-field", "upos"],
                     ["train", str(vectors), "-i", "2", "-q", "--seed", "3"]):
            assert cli.main(argv + ["-o", str(tmp_path / "serial.model")]) == 0
            assert cli.main(argv + ["-o", str(tmp_path / "dask.model"), "--scheduler", c.scheduler.address]) == 0
            a, b = load(tmp_path / "serial.model"), load(tmp_path / "dask.model")
            if argv[0] == "tag":
                a, b = a.model_.arrays(), b.model_.arrays()
            else:
                a, b = a.to_container()[2], b.to_container()[2]
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a), argv[:2]
