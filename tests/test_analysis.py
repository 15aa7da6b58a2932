"""The text pipelines: English (tagger -> parser and chunker) and Japanese
(segmenter -> tagger -> bunsetsu -> parser) end to end on real sentences,
jackknifing, one model file, swapping stages, ``conjunct analyze`` and its
errors, and the bunsetsu fstrie built from raw text."""

import io
import pickle

import numpy as np
import pytest

import conjunct
from conjunct import ConjunctError, DataFormatError, ModelFormatError
from conjunct.analysis import (EnglishTextPipeline, JapaneseTextPipeline, analyze_stream, fold_of, jackknife_tags,
                               read_text)
from conjunct.analysis.metrics import chunking_scores, english_scores, japanese_scores
from conjunct.cli import main
from conjunct.io.corpora import iter_conllu, read_conll2000
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.english import EnglishDependencyParser
from conjunct.tasks.segment import WordSegmenter

SMALL = {"dense_features": 64}


@pytest.fixture(scope="module")
def ewt(ewt_sentences):
    train, dev = ewt_sentences
    return train[:160], dev[:40]


@pytest.fixture(scope="module")
def english(ewt, shared_data):
    train, _ = ewt
    chunks = read_conll2000(shared_data / "conll2000" / "train.txt")[:120]
    return EnglishTextPipeline(PerceptronTagger(n_iter=3), EnglishDependencyParser(n_iter=2, method_params=SMALL),
                               Chunker(n_iter=2, method_params=SMALL), folds=2).fit(train, chunk_data=chunks)


@pytest.fixture(scope="module")
def gsd(shared_data):
    base = shared_data / "ud_japanese_gsd"
    return load_gsd_bunsetsu(base, "train")[:120], load_gsd_bunsetsu(base, "dev")[:30], load_gsd_bunsetsu(base, "test")[:30]


@pytest.fixture(scope="module")
def japanese(gsd):
    train = gsd[0]
    return JapaneseTextPipeline(WordSegmenter(n_iter=2, method_params=SMALL), PerceptronTagger(n_iter=3),
                                Chunker(n_iter=2, method_params=SMALL),
                                BunsetsuDependencyParser(degree=2, n_iter=2, method_params=SMALL), folds=2).fit(train)


def _text(s):
    return "".join(t.form for b in s.bunsetsu for t in b.tokens)


# -- jackknifing ---------------------------------------------------------------------------------------
def test_folds_cover_every_sentence_once_and_are_seeded():
    f = fold_of(103, 5, random_state=7)
    assert sorted(np.bincount(f).tolist()) == [20, 20, 21, 21, 21]
    assert np.array_equal(f, fold_of(103, 5, random_state=7)) and not np.array_equal(f, fold_of(103, 5, random_state=8))
    with pytest.raises(ConjunctError, match="at least 2 folds"):
        fold_of(10, 1)
    with pytest.raises(ConjunctError, match="cannot be cut"):
        fold_of(3, 5)


class _Recording(PerceptronTagger):
    """The real tagger, remembering the sentences it was trained on."""

    def fit(self, sentences, tags):
        self.seen_ = [tuple(s) for s in sentences]
        return super().fit(sentences, tags)


def test_fold_taggers_never_see_their_fold(ewt):
    train, _ = ewt
    words = [s.forms for s in train]
    tags = [s.xpos for s in train]
    seen = {}

    def record(f, tagger, held):
        seen[f] = (set(tagger.seen_), held)

    predicted, folds = jackknife_tags(lambda: _Recording(n_iter=2), words, tags, 3, on_fold=record)
    assert sorted(seen) == [0, 1, 2]
    for f, (trained_on, held) in seen.items():
        assert held.tolist() == np.flatnonzero(folds == f).tolist()
        assert not trained_on & {tuple(words[i]) for i in held if words.count(words[i]) == 1}
        assert len(trained_on) <= len(words) - len(held)
    # each sentence tagged exactly by its fold's tagger: the same tags as that tagger gives
    again = {}
    jackknife_tags(lambda: _Recording(n_iter=2), words, tags, 3,
                   on_fold=lambda f, tagger, held: again.update({i: tagger.predict([words[i]])[0] for i in held}))
    assert [again[i] for i in range(len(words))] == predicted
    # held-out tags are noisier than the resubstitution tags of a tagger trained on everything
    full = PerceptronTagger(n_iter=2).fit(words, tags).predict(words)
    acc = lambda p: np.mean([a == b for ps, gs in zip(p, tags) for a, b in zip(ps, gs)])  # noqa: E731
    assert acc(predicted) < acc(full)


# -- English ---------------------------------------------------------------------------------------------
def test_english_chain_end_to_end(english, ewt, shared_data):
    _, dev = ewt
    out = english.analyze([s.forms for s in dev])
    assert len(out) == len(dev)
    for a, s in zip(out, dev):
        assert a.forms == s.forms and len(a.upos) == len(a.xpos) == len(a.heads) == len(a.deprels) == len(a.chunks) == len(s)
        assert all(0 <= h <= len(s) for h in a.heads) and a.heads.count(0) >= 1
        assert all(c == "O" or c[:2] in ("B-", "I-") for c in a.chunks)
    scores = english_scores(dev, out)
    assert 0.6 < scores["upos_accuracy"] <= 1 and 0.3 < scores["uas"] <= 1 and scores["las"] <= scores["uas"]
    test = read_conll2000(shared_data / "conll2000" / "test.txt")[:40]
    chunked = chunking_scores(test, english.analyze([[t[0] for t in s] for s in test]))
    assert 0.3 < chunked["chunk_f1"] <= 1
    # the parser reads the predicted tags: the same trees as the parser alone on them
    from conjunct.tasks.english import DepSentence

    alone = english.parser.parse([DepSentence(a.forms, a.upos, a.xpos) for a in out])
    assert [(a.heads, a.deprels) for a in out] == [(list(h), list(l)) for h, l in alone]


def test_one_model_file_round_trips(english, japanese, ewt, gsd, tmp_path):
    sentences = [s.forms for s in ewt[1][:15]]
    texts = [_text(s) for s in gsd[2][:15]]
    for nlp, inputs in ((english, sentences), (japanese, texts)):
        path = tmp_path / f"{nlp.lang}.cjt"
        nlp.save(path)
        expected = [a.to_conllu() for a in nlp.analyze(inputs)]
        for again in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(nlp))):
            assert type(again) is type(nlp)
            assert [a.to_conllu() for a in again.analyze(inputs)] == expected
        assert again.get_params()["folds"] == 2


def test_stages_are_swappable(english, ewt):
    sentences = [s.forms for s in ewt[1][:10]]
    without = english.replace(chunker=None)
    assert english.chunker is not None and all(a.chunks is None for a in without.analyze(sentences))
    other = EnglishDependencyParser(n_iter=1, method_params=SMALL).fit(ewt[0][:60])
    swapped = english.replace(parser=other)
    from conjunct.tasks.english import DepSentence

    out = swapped.analyze(sentences)
    assert [(a.heads, a.deprels) for a in out] == [
        (list(h), list(l)) for h, l in other.parse([DepSentence(a.forms, a.upos, a.xpos) for a in out])]
    with pytest.raises(ConjunctError, match="no stage 'lemmatizer'"):
        english.replace(lemmatizer=other)
    with pytest.raises(ConjunctError, match="parser stage must be"):
        EnglishTextPipeline(parser=Chunker()).fit(ewt[0][:20])
    with pytest.raises(ConjunctError, match="not trained"):
        EnglishTextPipeline().analyze([["a"]])
    with pytest.raises(ConjunctError, match="not trained"):
        EnglishTextPipeline().save("/nonexistent/x.cjt")


def test_bad_sentences_are_refused(english, japanese):
    with pytest.raises(DataFormatError, match="sentence 2 is empty"):
        english.analyze([["a"], []])
    with pytest.raises(DataFormatError, match="whitespace"):
        english.analyze([["a b"]])
    with pytest.raises(TypeError):
        english.analyze("a b c")
    with pytest.raises(DataFormatError, match="text 1 is empty"):
        japanese.analyze(["  "])


# -- Japanese ----------------------------------------------------------------------------------------------
def test_japanese_chain_end_to_end(japanese, gsd):
    test = gsd[2]
    out = japanese.analyze([_text(s) for s in test])
    for a, s in zip(out, test):
        assert "".join(a.forms) == _text(s)
        n = max(a.bunsetsu) + 1
        assert a.bunsetsu[0] == 0 and all(0 <= b - c <= 1 for b, c in zip(a.bunsetsu[1:], a.bunsetsu))
        assert len(a.bunsetsu_heads) == n and a.bunsetsu_heads[-1] == -1
        assert all(k < h < n for k, h in enumerate(a.bunsetsu_heads[:-1]))  # head-final
    scores = japanese_scores(test, out)
    assert 0.7 < scores["word_f1"] <= 1 and 0.2 < scores["dependency_f1"] <= 1
    gold_words = japanese_scores(test, japanese.analyze_words([[t.form for b in s.bunsetsu for t in b.tokens] for s in test]))
    assert gold_words["word_f1"] == 1.0
    # whitespace separates words and is not one
    spaced = japanese.analyze(["東京 に 行った"])[0]
    assert "".join(spaced.forms) == "東京に行った" and {"東京", "に"} <= set(spaced.forms)


def test_fstrie_from_raw_text_classifies_exactly(japanese, gsd):
    """The parser's fstrie built on the decisions it takes on raw dev text (no
    annotation read) parses test exactly as the brute-force classifier does."""
    _, dev, test = gsd
    parser = japanese.parser
    saved = dict(parser.classifiers_)
    inputs = japanese.bunsetsu_sentences([_text(s) for s in test])
    try:
        events = japanese.bunsetsu_sentences([_text(s) for s in dev])
        parser.compile("fstrie", events=events)
        raw = parser.classifiers_[parser.COMPONENT]
        assert raw.method == "fstrie"
        got = parser.parse(inputs)
        vectors = parser.collect_events(inputs)[parser.COMPONENT]
        parser.compile("pkb")
        assert parser.parse(inputs) == got
        from helpers import assert_margins_close, reference_margins

        expected, scale = reference_margins(parser.models_[parser.COMPONENT], vectors)
        assert_margins_close(raw.decision_function(vectors), expected, scale)
    finally:
        parser.classifiers_ = saved


# -- conjunct analyze -----------------------------------------------------------------------------------------
def _valid_conllu(text):
    sentences = [s for s in iter_conllu(io.StringIO(text)) if s.words]
    for s in sentences:
        assert [int(w[0]) for w in s.words] == list(range(1, len(s.words) + 1))
        for w in s.words:
            assert len(w) == 10 and all(w)
            assert w[6] == "_" or 0 <= int(w[6]) <= len(s.words)
    return sentences


def test_analyze_command_writes_valid_conllu(english, japanese, shared_data, tmp_path, capsys):
    en, ja = tmp_path / "en.cjt", tmp_path / "ja.cjt"
    english.save(en)
    japanese.save(ja)
    text = tmp_path / "in.txt"
    text.write_text("The dog barked .\nI saw her yesterday\n\n\n")  # blank lines at the end are fine
    out = tmp_path / "out.conllu"
    assert main(["analyze", str(en), str(text), "-o", str(out)]) == 0
    sentences = _valid_conllu(out.read_text())
    assert [s.column("form") for s in sentences] == [["The", "dog", "barked", "."], ["I", "saw", "her", "yesterday"]]
    assert all(m.startswith("Chunk=") for s in sentences for m in s.column("misc"))
    # CoNLL-U in: comments kept, same output through the explicit action and in batches of 7
    gold = tmp_path / "dev.conllu"
    blocks = (shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu").read_text(encoding="utf-8").split("\n\n")
    gold.write_text("\n\n".join(blocks[:60]) + "\n\n", encoding="utf-8")
    assert main(["analyze", "run", str(en), str(gold), "-o", str(out), "--batch-size", "7", "--lang", "en"]) == 0
    sentences = _valid_conllu(out.read_text())
    assert sentences[0].lines[0].startswith("# ") and len(sentences) == 60
    one = "".join(analyze_stream(english, read_text(gold), batch_size=1000))
    assert one == out.read_text()
    raw = tmp_path / "ja.txt"
    raw.write_text("日本語の文を解析します。\n東京に行った\n")
    assert main(["analyze", str(ja), str(raw), "-o", str(out)]) == 0
    sentences = _valid_conllu(out.read_text())
    assert ["".join(s.column("form")) for s in sentences] == ["日本語の文を解析します。", "東京に行った"]
    assert all("BunsetuHead=" in m for s in sentences for m in s.column("misc"))
    capsys.readouterr()


def test_analyze_command_errors(english, japanese, tmp_path, capsys):
    en = tmp_path / "en.cjt"
    english.save(en)
    blank = tmp_path / "blank.txt"
    blank.write_text("a b\n\nc d\n")
    assert main(["analyze", str(en), str(blank)]) == 2
    assert "blank.txt:2: empty line" in capsys.readouterr().err
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"fine line\n\xff\xfe oops\n")
    assert main(["analyze", str(en), str(binary)]) == 2
    err = capsys.readouterr().err
    assert "bin.txt:2" in err and "not UTF-8" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    assert main(["analyze", str(en), str(empty)]) == 2
    assert "no sentences" in capsys.readouterr().err
    assert main(["analyze", str(en), str(blank), "--lang", "ja"]) == 2
    assert "language 'en', not 'ja'" in capsys.readouterr().err
    parser = tmp_path / "parser.cjt"
    english.parser.save(parser)
    assert main(["analyze", str(parser), str(blank)]) == 2
    assert "ud-english task pipeline, not a text pipeline" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["analyze", str(en)])


def test_analyze_train_command(shared_data, tmp_path, capsys):
    out = tmp_path / "m.cjt"
    treebank = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    assert main(["analyze", "train", "--lang", "en", str(treebank), "--max-sentences", "60", "-k", "2", "-i", "1",
                 "-o", str(out)]) == 0
    assert "jackknifed in 2 folds" in capsys.readouterr().err
    nlp = conjunct.load(out)
    assert isinstance(nlp, EnglishTextPipeline) and nlp.chunker is None and nlp.folds == 2
    assert main(["analyze", "train", "--lang", "ja", str(treebank), "-o", str(out)]) == 2
    assert "GSD directory" in capsys.readouterr().err


def test_corrupt_text_pipeline_is_refused(english, tmp_path):
    from conjunct.io import model_io

    kind, meta, arrays = english.to_container()
    arrays = {k: v for k, v in arrays.items() if not k.startswith("stage.parser.")}
    path = tmp_path / "bad.cjt"
    model_io.write_container(path, kind, meta, arrays)
    with pytest.raises(ModelFormatError, match="bad.cjt"):
        conjunct.load(path)


def test_analyze_on_a_dask_cluster_equals_serial(english, ewt, tmp_path, capsys):
    """conjunct analyze --scheduler: pieces of whole sentences, the model loaded once per worker."""
    pytest.importorskip("distributed")
    model = tmp_path / "en.cjt"
    english.save(model)
    _, dev = ewt
    for name, text in (("plain.txt", "".join(" ".join(s.forms) + "\n" for s in dev)),
                       ("tokens.conllu", "".join("".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, w in enumerate(s.forms, 1))
                                                 + "\n" for s in dev))):
        src = tmp_path / name
        src.write_text(text, encoding="utf-8")
        serial, parallel = tmp_path / f"{name}.serial", tmp_path / f"{name}.dask"
        assert main(["analyze", str(model), str(src), "-o", str(serial)]) == 0
        assert main(["analyze", str(model), str(src), "-o", str(parallel), "--scheduler", "local:2"]) == 0
        assert serial.read_bytes() == parallel.read_bytes() and serial.stat().st_size > 0
    capsys.readouterr()
    assert main(["analyze", str(model), "-", "--scheduler", "local:2"]) != 0
    assert "not standard input" in capsys.readouterr().err
