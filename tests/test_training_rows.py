"""Training rows built batch by batch (RowBuilder): the same rows, feature
index and trained model as the feature strings given all at once, for the
English tokenizer's and the Japanese segmenter's training."""

import numpy as np
import pytest

from conjunct.features.index import FeatureIndex
from conjunct.tasks import rows as rows_module
from conjunct.tasks.rows import RowBuilder
from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu
from conjunct.tasks.segment import oracle as segment_oracle
from conjunct.tasks.segment.dictionary import training_dictionaries
from conjunct.tasks.tokenize import EnglishTokenizer, read_tokenized_conllu
from conjunct.tasks.tokenize import oracle as tokenize_oracle
from conjunct.training import PAClassifier


@pytest.fixture(scope="module")
def ewt_raw(shared_data):
    return read_tokenized_conllu(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:15]


@pytest.fixture(scope="module")
def gsd_words(shared_data):
    return read_segmented_conllu(shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu")[:40]


def _same_rows(rows, strings):
    index = FeatureIndex(names=[])
    X = index.transform(strings, add=True, count=True)
    M = rows.matrix
    assert M.shape == X.shape
    assert np.array_equal(M.indptr, X.indptr) and np.array_equal(M.indices, X.indices)
    assert list(rows.index.names) == list(index.names)
    assert np.array_equal(rows.index.counts, index.counts)


def _same_model(a, b):
    assert a.features == b.features
    assert list(a.classes) == list(b.classes)
    assert (a.support_vectors != b.support_vectors).nnz == 0
    assert np.array_equal(a.dual_coef, b.dual_coef)


def test_row_builder_in_batches_equals_the_strings_at_once():
    feats = [["a", "b"], ["b", "c", "a"], [], ["d"], ["c", "c", "e"]]
    labels = [1, -1, 1, -1, 1]
    builder = RowBuilder()
    builder.add(feats[:2], labels[:2])
    builder.add(feats[2:4], labels[2:4])
    builder.add(feats[4:], labels[4:])
    assert len(builder) == 5
    rows, y = builder.rows()
    assert y == labels and len(builder) == 0
    _same_rows(rows, feats)
    with pytest.raises(ValueError, match="2 feature lists for 1 labels"):
        RowBuilder().add(feats[:2], labels[:1])
    rows_module.release_free_memory()  # harmless where there is no glibc


def test_tokenizer_rows_are_its_feature_strings(ewt_raw, monkeypatch):
    monkeypatch.setattr(tokenize_oracle, "ORACLE_BATCH", 7)  # several batches
    tok = EnglishTokenizer(n_iter=2)
    d = training_dictionaries(tok, [tokenize_oracle.known_words(t) for t in ewt_raw])
    strings = tokenize_oracle.training_examples(ewt_raw, 3, d, True, True)
    rows = tokenize_oracle.training_rows(ewt_raw, 3, d, True, True)
    assert set(rows) == {"boundary", "sentence"}
    for c in rows:
        assert rows[c][1] == list(strings[c][1])
        _same_rows(rows[c][0], strings[c][0])
    # The learner trains the same model on either.
    for c in rows:
        a = PAClassifier(degree=2, n_iter=2, random_state=0).fit(*strings[c]).model_
        b = PAClassifier(degree=2, n_iter=2, random_state=0).fit(*rows[c]).model_
        _same_model(a, b)


def test_tokenizer_trained_on_rows_is_the_one_trained_on_strings(ewt_raw, monkeypatch):
    by_rows = EnglishTokenizer(n_iter=2, method="pki").fit(ewt_raw)
    monkeypatch.setattr(EnglishTokenizer, "training_examples", lambda self, data: tokenize_oracle.training_examples(
        data, self.ngram, training_dictionaries(self, [tokenize_oracle.known_words(t) for t in data]), self.links,
        self.link_spans, self.type_ngram))
    by_strings = EnglishTokenizer(n_iter=2, method="pki").fit(ewt_raw)
    for c in ("boundary", "sentence"):
        _same_model(by_rows.models_[c], by_strings.models_[c])
    texts = [t.text for t in ewt_raw[:10]]
    assert [t.spans for t in by_rows.tokenize(texts)] == [t.spans for t in by_strings.tokenize(texts)]


def test_segmenter_rows_are_its_feature_strings(gsd_words, monkeypatch):
    monkeypatch.setattr(segment_oracle, "ROWS_BATCH", 9)
    seg = WordSegmenter(n_iter=2)
    d = training_dictionaries(seg, gsd_words)
    feats, labels = segment_oracle.training_examples(gsd_words, 3, d)
    rows, y = segment_oracle.training_rows(gsd_words, 3, d)
    assert y == labels
    _same_rows(rows, feats)
    a = PAClassifier(degree=2, n_iter=2, random_state=0).fit(feats, labels).model_
    b = PAClassifier(degree=2, n_iter=2, random_state=0).fit(rows, y).model_
    _same_model(a, b)
    # The segmenter trains on the rows.
    fitted = WordSegmenter(n_iter=2, method="pki").fit(gsd_words)
    _same_model(fitted.model_, PAClassifier(degree=2, n_iter=2, random_state=0).fit(rows, y).model_)


def test_parser_rows_are_its_feature_strings(shared_data, monkeypatch):
    from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
    from conjunct.tasks.english import oracle as english_oracle

    sentences = read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:40]
    monkeypatch.setattr(english_oracle, "ROWS_BATCH", 7)
    strings, skipped = english_oracle.training_examples(sentences)
    rows, skipped_rows = english_oracle.training_rows(sentences)
    assert skipped_rows == skipped
    for c in ("transition", "label"):
        assert rows[c][1] == strings[c][1]
        _same_rows(rows[c][0], strings[c][0])
    parser = EnglishDependencyParser(n_iter=1, method="pki").fit(sentences)
    for c in ("transition", "label"):
        _same_model(parser.models_[c], PAClassifier(degree=parser.degree, n_iter=1, random_state=0).fit(*strings[c]).model_)
