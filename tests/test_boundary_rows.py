"""Boundary training rows from the C++ feature engine (boundary_rows): the
rows, feature index, counts and keys the feature strings give, for the English
tokenizer's gaps and the Japanese segmenter's boundaries on real data, and the
same rows as the runner's own features at run time."""

import numpy as np
import pytest

from conjunct.features.spec import FeatureKeys, FeatureSpec, Part, Template
from conjunct.tasks.boundary_rows import boundary_rows, value_tables
from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu
from conjunct.tasks.segment import oracle as segment_oracle
from conjunct.tasks.segment.dictionary import training_dictionaries
from conjunct.tasks.tokenize import EnglishTokenizer, read_tokenized_conllu
from conjunct.tasks.tokenize import oracle as tokenize_oracle


@pytest.fixture(scope="module")
def ewt_raw(shared_data):
    return read_tokenized_conllu(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:12]


@pytest.fixture(scope="module")
def gsd_words(shared_data):
    return read_segmented_conllu(shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu")[:60]


def _same(engine_rows, string_rows):
    a, b = engine_rows, string_rows
    assert a.matrix.shape == b.matrix.shape
    for part in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(a.matrix, part), getattr(b.matrix, part)), part
    assert a.matrix.data.dtype == b.matrix.data.dtype
    assert list(a.index.names) == list(b.index.names)
    assert np.array_equal(a.index.counts, b.index.counts)
    # The keys the runner would read from the names.
    want = FeatureKeys.from_names(a.index.keys.spec, b.index.names)
    assert a.index.keys.vocabs == want.vocabs
    assert np.array_equal(a.index.keys.template_of, want.template_of)
    assert np.array_equal(a.index.keys.codes, want.codes)


@pytest.mark.parametrize("dictionary,links,type_ngram", [(True, True, None), (False, False, 4)])
def test_tokenizer_engine_rows_are_its_feature_strings(ewt_raw, dictionary, links, type_ngram):
    tok = EnglishTokenizer(dictionary=dictionary, dictionary_folds=3)
    d = training_dictionaries(tok, [tokenize_oracle.known_words(t) for t in ewt_raw])
    strings = tokenize_oracle.training_rows(ewt_raw, 3, d, links, links, type_ngram)
    engine = tokenize_oracle.engine_training_rows(ewt_raw, 3, d, links, links, type_ngram)
    for c in ("boundary", "sentence"):
        assert engine[c][1] == strings[c][1]
    _same(engine["boundary"][0], strings["boundary"][0])
    assert engine["sentence"][0] == strings["sentence"][0]


@pytest.mark.parametrize("ngram,longest", [(3, True), (4, False)])
def test_segmenter_engine_rows_are_its_feature_strings(gsd_words, ngram, longest):
    seg = WordSegmenter(dictionary_folds=4)
    d = training_dictionaries(seg, gsd_words)
    rows, y = segment_oracle.training_rows(gsd_words, ngram, d, None, longest)
    engine, labels = segment_oracle.engine_training_rows(gsd_words, ngram, d, None, longest)
    assert labels == y
    _same(engine, rows)


def test_training_rows_are_the_runtime_features(ewt_raw):
    # The trained tokenizer's runner, on its training texts, reads exactly the training rows.
    tok = EnglishTokenizer(n_iter=1, method="pki").fit(ewt_raw)
    d = training_dictionaries(EnglishTokenizer(), [tokenize_oracle.known_words(t) for t in ewt_raw])
    rows = tokenize_oracle.engine_training_rows(ewt_raw, 3, d, True, True)["boundary"][0]
    assert tok.models_["boundary"].features == rows.index
    # At run time the dictionary is every training word (not a fold's): compare on a tokenizer without one.
    plain = EnglishTokenizer(n_iter=1, method="pki", dictionary=False).fit(ewt_raw)
    rows = tokenize_oracle.engine_training_rows(ewt_raw, 3, None, True, True)["boundary"][0]
    runner = plain.runner()
    _, events = runner.classify_gaps([t.text for t in ewt_raw], collect=True)
    assert runner.boundary.features == rows.index
    assert events.shape == rows.matrix.shape
    assert np.array_equal(events.indptr, rows.matrix.indptr)
    got = events.copy()
    got.sort_indices()
    assert np.array_equal(got.indices, rows.matrix.indices)


def test_boundary_rows_refuse_what_the_engine_does_not_read():
    with pytest.raises(ValueError, match="template 'pair' has 2 parts"):
        value_tables(FeatureSpec([Template("pair", (Part("c1", "-1"), Part("c1", "+0")))]), ["ab"])
    with pytest.raises(ValueError, match="unknown attribute 'w'"):
        value_tables(FeatureSpec([Template("w", (Part("w", "+0"),))]), ["ab"])
    with pytest.raises(ValueError, match="unknown piece attribute 'piece.middle'"):
        value_tables(FeatureSpec([Template("m", (Part("piece.middle", "gap"),))]), ["ab"])
    # No text, or only one character: no rows.
    rows, positions = boundary_rows(["", "a"], FeatureSpec([Template("c", (Part("c1", "+0"),))]), "all")
    assert rows.matrix.shape == (0, 0) and [len(p) for p in positions] == [0, 0]


def test_sentence_rows_of_short_texts_are_their_feature_strings():
    from conjunct.tasks.tokenize import TokenizedText

    texts = [TokenizedText("Hi", [(0, 2)], [("Hi",)], [1]),
             TokenizedText("Mr. X can't. Go", [(0, 3), (4, 5), (6, 8), (8, 11), (11, 12), (13, 15)],
                           [("Mr.",), ("X",), ("ca",), ("n't",), (".",), ("Go",)], [5, 1]),
             TokenizedText("", [], [], [])]
    want = tokenize_oracle.training_rows(texts, 3)["sentence"]
    got = tokenize_oracle.sentence_rows(texts)
    assert got[1] == want[1] == [-1, -1, -1, -1, 1]
    assert got[0] == want[0]
    assert tokenize_oracle.sentence_rows([])[0].matrix.shape == (0, 0)
