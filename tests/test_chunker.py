import pickle

import numpy as np
import pytest

import conjunct
from conjunct.io.corpora import read_conll2000
from conjunct.tasks.chunk import Chunker, chunk_reference, chunk_scores, conlleval_chunks

METHODS = ["pkb", "pki", "pke", "split", "fstrie"]


# -- conlleval -------------------------------------------------------------------------------------------
def conlleval_counts(gold_sents, pred_sents):
    """A literal port of conlleval's streaming counter (sentence boundaries as -X- / O)."""
    def split(tag):
        return tuple(tag.split("-", 1)) if "-" in tag else (tag, "")

    def end_of_chunk(pt, t, ptype, typ):
        e = (pt, t) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
        if pt != "O" and pt != "." and ptype != typ:
            e = True
        return e or pt in ("]", "[")

    def start_of_chunk(pt, t, ptype, typ):
        s = (pt, t) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
        if t != "O" and t != "." and ptype != typ:
            s = True
        return s or t in ("[", "]")

    stream = []
    for g, p in zip(gold_sents, pred_sents):
        stream += list(zip(g, p)) + [("O", "O")]
    correct = found_c = found_g = 0
    in_correct = False
    lc, lct, lg, lgt = "O", "", "O", ""
    for c_tag, g_tag in stream:
        c, ct = split(c_tag)
        g, gt = split(g_tag)
        end_c, end_g = end_of_chunk(lc, c, lct, ct), end_of_chunk(lg, g, lgt, gt)
        start_c, start_g = start_of_chunk(lc, c, lct, ct), start_of_chunk(lg, g, lgt, gt)
        if in_correct:
            if end_c and end_g and lgt == lct:
                in_correct = False
                correct += 1
            elif end_c != end_g or gt != ct:
                in_correct = False
        if start_c and start_g and gt == ct:
            in_correct = True
        found_c += start_c
        found_g += start_g
        lc, lct, lg, lgt = c, ct, g, gt
    if in_correct:
        correct += 1
    return correct, found_c, found_g


def test_conlleval_chunks_hand_cases():
    assert conlleval_chunks(["B-NP", "I-NP", "O", "B-VP"]) == [("NP", 0, 2), ("VP", 3, 4)]
    assert conlleval_chunks(["I-NP", "I-NP"]) == [("NP", 0, 2)]                       # I- without B- starts a chunk
    assert conlleval_chunks(["O", "I-NP", "B-NP", "I-NP"]) == [("NP", 1, 2), ("NP", 2, 4)]
    assert conlleval_chunks(["B-NP", "I-VP", "I-VP"]) == [("NP", 0, 1), ("VP", 1, 3)]  # type change splits
    assert conlleval_chunks(["B-NP", "B-NP", "O", "O"]) == [("NP", 0, 1), ("NP", 1, 2)]
    assert conlleval_chunks(["O", "O"]) == []
    assert conlleval_chunks([]) == []


def test_chunk_scores_hand_case():
    gold = [["B-NP", "I-NP", "O", "B-VP"], ["B-PP", "B-NP"]]
    pred = [["B-NP", "O", "O", "B-VP"], ["B-PP", "I-NP"]]
    s = chunk_scores(gold, pred)
    # Correct: VP (sentence 1), PP and NP (I-NP after B-PP starts an NP) in sentence 2.
    assert (s["correct_chunks"], s["gold_chunks"], s["predicted_chunks"]) == (3, 4, 4)
    assert s["precision"] == pytest.approx(0.75) and s["recall"] == pytest.approx(0.75) and s["f1"] == pytest.approx(0.75)
    assert s["accuracy"] == pytest.approx(4 / 6)


def test_chunk_scores_match_conlleval_streaming_counts():
    rng = np.random.default_rng(0)
    tags = ["O", "B-NP", "I-NP", "B-VP", "I-VP", "I-PP"]
    for _ in range(300):
        lengths = rng.integers(0, 7, size=int(rng.integers(1, 4)))
        gold = [[tags[k] for k in rng.integers(0, len(tags), size=n)] for n in lengths]
        pred = [[tags[k] for k in rng.integers(0, len(tags), size=n)] for n in lengths]
        s = chunk_scores(gold, pred)
        assert (s["correct_chunks"], s["gold_chunks"], s["predicted_chunks"]) == conlleval_counts(gold, pred)


# -- the pipeline on real data ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(shared_data):
    train = read_conll2000(shared_data / "conll2000" / "train.txt")[:600]
    test = read_conll2000(shared_data / "conll2000" / "test.txt")[:200]
    return train, test


@pytest.fixture(scope="module")
def chunker(corpus):
    return Chunker(degree=2, n_iter=5).fit(corpus[0])


@pytest.mark.realdata
def test_small_training_reaches_a_sane_f1(chunker, corpus):
    result = chunker.evaluate(corpus[1])
    assert result["f1"] > 0.85, result
    assert result["decisions"] == sum(len(s) for s in corpus[1])
    assert 0 < result["classifier_seconds"] <= result["seconds"]


@pytest.mark.realdata
def test_cpp_loop_equals_python_reference(chunker, corpus):
    sents = corpus[1][:60]
    assert chunker.chunk(sents) == chunk_reference(chunker.classifier_, sents)


@pytest.mark.realdata
def test_every_method_gives_identical_tags(chunker, corpus):
    reference = chunker.chunk(corpus[1])
    for method in METHODS:
        chunker.compile(method, events=corpus[0][:200])
        assert chunker.classifier_.method == method
        assert chunker.chunk(corpus[1]) == reference, method
    chunker.compile("fstrie", events=corpus[0])


@pytest.mark.realdata
def test_events_are_the_vectors_classified(chunker, corpus):
    sents = corpus[1][:20]
    tags, events = chunker.runner().chunk_many(sents, collect=True)
    assert events.shape[0] == sum(len(s) for s in sents)
    # Re-classifying the collected vectors gives the same tags.
    flat = [t for s in tags for t in s]
    assert list(chunker.classifier_.predict(events)) == flat


@pytest.mark.realdata
def test_save_load_pickle(chunker, corpus, tmp_path):
    reference = chunker.chunk(corpus[1])
    path = tmp_path / "chunk.cjm"
    chunker.save(path)
    for loaded in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(chunker))):
        assert isinstance(loaded, Chunker) and loaded.window == chunker.window
        assert loaded.chunk(corpus[1]) == reference


def test_training_needs_gold_tags():
    with pytest.raises(conjunct.DataFormatError, match="gold chunk tag"):
        Chunker().fit([[("He", "PRP")]])


def test_untrained_chunker_raises():
    with pytest.raises(conjunct.ConjunctError, match="not trained"):
        Chunker().chunk([[("He", "PRP")]])


# -- CLI ----------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_cli_round_trip(corpus, tmp_path, capsys, monkeypatch):
    import io

    from conjunct.cli import main

    train, test = corpus
    train_file, test_file, model = tmp_path / "train.txt", tmp_path / "test.txt", tmp_path / "chunk.cjm"
    for path, sents in ((train_file, train[:300]), (test_file, test[:60])):
        path.write_text("".join(" ".join(t) + "\n" for s in sents for t in s + [()]).replace("\n\n", "\n\n"))
    assert main(["chunk", "train", str(train_file), "-o", str(model), "-i", "3", "--quiet", "--keep-models"]) == 0
    reference = conjunct.load(model).chunk(test[:60])

    # run with gold: conlleval input (word POS gold guess); from stdin to stdout.
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO(test_file.read_text()))
    assert main(["chunk", "run", str(model), "-"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line]
    assert [r[3] for r in rows] == [t for s in reference for t in s]
    assert [r[:3] for r in rows] == [list(t) for s in test[:60] for t in s]

    # run without gold, another method, to a file.
    raw = tmp_path / "raw.txt"
    raw.write_text("".join(" ".join(t[:2]) + "\n" for s in test[:60] for t in s + [("", "")]).replace(" \n", "\n"))
    out_file = tmp_path / "out.txt"
    assert main(["chunk", "run", str(model), str(raw), "-o", str(out_file), "--method", "pki"]) == 0
    tags = [line.split()[2] for line in out_file.read_text().splitlines() if line]
    assert tags == [t for s in reference for t in s]

    assert main(["chunk", "eval", str(model), str(test_file)]) == 0
    out = capsys.readouterr().out
    f1 = 100 * chunk_scores([[t[2] for t in s] for s in test[:60]], reference)["f1"]
    assert f"FB1: {f1:6.2f}" in out and "classifications/s" in out


def test_cli_errors(tmp_path, capsys):
    from conjunct.cli import main

    bad = tmp_path / "bad.txt"
    bad.write_text("He PRP B-NP\nreckons VBZ\n")
    assert main(["chunk", "train", str(bad), "-o", str(tmp_path / "m.cjm")]) == 2
    assert "bad.txt" in capsys.readouterr().err


@pytest.mark.realdata
def test_events_collected_in_batches_are_one_runs(chunker, corpus):
    """collect_events runs in batches (for its progress bar): the rows are those of one run, in order."""
    import copy

    whole = chunker.collect_events(corpus[1])["chunk"]
    small = copy.copy(chunker)
    small.EVENT_BATCH = 7
    batched = small.collect_events(corpus[1])["chunk"]
    assert batched.shape == whole.shape and batched.shape[0] > 0
    assert (batched != whole).nnz == 0
    assert np.array_equal(batched.indptr, whole.indptr) and np.array_equal(batched.indices, whole.indices)


# -- the feature engine ----------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_engine_ids_equal_python_reference(corpus):
    from conjunct import _core
    from conjunct.features.index import FeatureIndex
    from conjunct.features.spec import FeatureKeys
    from conjunct.tasks.chunk import spec, token_features
    from conjunct.tasks.chunk.features import dynamic_features, features_with

    train, test = corpus[0][:300], corpus[1][:100] + [[("Zyxw", "NNP")], []]
    classes = ["B-NP", "I-NP", "O", "B-XX"]  # B-XX: a class the features never saw
    for window in (1, 2):
        index = FeatureIndex.from_data(features_with(s, i, [t[2] for t in s], window) for s in train for i in range(len(s)))
        engine = _core.ChunkFeatures(tables=FeatureKeys.from_names(spec(window), index.names).tables(), classes=classes)
        indptr, ids = engine.static_features(test)
        rows = [ids[a:b].tolist() for a, b in zip(indptr[:-1], indptr[1:])]
        expected = [[j for j in (index.get(f) for f in token_features(s, i, window)) if j >= 0]
                    for s in test for i in range(len(s))]
        assert rows == expected and sum(map(len, rows)) > 0.7 * len(rows) * len(spec(window).templates[:-2])
        for k, table in enumerate(engine.dynamic_ids()):
            names = [dynamic_features(c, c, window)[k] for c in classes] + [dynamic_features(None, None, window)[k]]
            assert table.tolist() == [index.get(n) for n in names]


@pytest.mark.realdata
def test_old_file_converts_at_load_and_other_features_are_refused(chunker, corpus, tmp_path):
    from conjunct import ModelFormatError
    from conjunct.io import model_io

    kind, meta, arrays = chunker.to_container()
    for entry in meta["components"]["chunk"].values():
        entry["meta"]["features"].pop("keys", None)
    arrays = {k: v for k, v in arrays.items() if ".features.keys." not in k}
    old = tmp_path / "old.cjm"
    model_io.write_container(old, kind, meta, arrays)
    loaded = conjunct.load(old)
    assert loaded.classifier_.features.keys is not None
    assert loaded.chunk(corpus[1][:50]) == chunker.chunk(corpus[1][:50])
    blob_key = next(k for k in arrays if k.endswith("features.names_blob"))
    blob = bytearray(arrays[blob_key].tobytes())
    blob[:2] = b"x("  # "w[-2]=..." becomes a name of no chunk template
    model_io.write_container(tmp_path / "foreign.cjm", kind, meta, {**arrays, blob_key: np.frombuffer(bytes(blob), np.uint8)})
    with pytest.raises(ModelFormatError, match="retrain it"):
        conjunct.load(tmp_path / "foreign.cjm")


@pytest.mark.realdata
def test_the_loop_takes_a_compiled_handle_with_the_features_classes(chunker, corpus):
    """The chunk loop gets the classifier's handle alone (its rule and classes come with it);
    a handle with another number of classes than the features were built for is refused."""
    import conjunct
    from conjunct.tasks.chunk.runner import YamchaChunker

    runner = chunker.runner()
    assert isinstance(runner, YamchaChunker)
    sentences = list(corpus[1][:5])
    out = runner.features.chunk(classifier=runner.classifier.compiled, early_exit=True, sentences=sentences)
    assert runner.classes[out[0]].tolist() == [t for tags in runner.chunk_many(sentences) for t in tags]
    binary = conjunct.KernelModel([[1, 0], [0, 1]], [1.0, -1.0], degree=2).compile("pke")
    with pytest.raises(ValueError, match="another number of classes"):
        runner.features.chunk(classifier=binary.compiled, early_exit=True, sentences=sentences)
    with pytest.raises(TypeError):
        runner.features.chunk(classifier=runner.classifier, early_exit=True, sentences=sentences)
