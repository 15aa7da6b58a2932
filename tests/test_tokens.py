"""Token streams people already have (conllu TokenLists, NLTK pairs, spaCy Docs,
plain tokens) read by the taggers and pipelines, or refused with a message
that says what was got and what is expected; taggers and pipelines under
scikit-learn's cross_val_score and GridSearchCV."""

from __future__ import annotations

import numpy as np
import pytest

import conjunct
from conjunct import DataFormatError, HMMTagger, PerceptronTagger
from conjunct.io.corpora import read_conll2000
from conjunct.io.tokens import as_sentences, sentence_columns, sentence_tags, tags_of
from conjunct.tagging.io import read_tagged


@pytest.fixture(scope="module")
def ewt(shared_data):
    path = shared_data / "ud_english_ewt"
    train = path / "en_ewt-ud-train.conllu"
    test = path / "en_ewt-ud-dev.conllu"
    words, tags = read_tagged(train, tag_field="upos")
    twords, ttags = read_tagged(test, tag_field="upos")
    return words[:1500], tags[:1500], twords[:300], ttags[:300], test


@pytest.fixture(scope="module")
def tagger(ewt):
    words, tags, *_ = ewt
    return PerceptronTagger(n_iter=3).fit(words, tags)


def _token_lists(path, n):
    conllu = pytest.importorskip("conllu")
    with open(path, encoding="utf-8") as f:
        return conllu.parse(f.read())[:n]


def test_conllu_token_lists_tag_as_their_words(ewt, tagger):
    """Before: a TokenList was read as per-token feature lists (accuracy 0.023 instead of 0.932)."""
    _, _, twords, ttags, test_path = ewt
    token_lists = _token_lists(test_path, 300)
    assert as_sentences(token_lists) == twords  # multi-word ranges and empty nodes left out
    plain = tagger.score(twords, ttags)
    assert plain > 0.85
    assert tagger.score(token_lists, ttags) == plain
    assert tagger.score(token_lists) == plain          # the tags the TokenLists carry (upos)
    assert tagger.predict(token_lists) == tagger.predict(twords)
    # training from TokenLists (xpos by name) equals training from the read corpus
    xwords, xtags = read_tagged(test_path, tag_field="xpos")
    a = HMMTagger().fit(token_lists, "xpos")
    b = HMMTagger().fit(xwords[:300], xtags[:300])
    assert a.predict(xwords[:50]) == b.predict(xwords[:50])


def test_nltk_pairs(ewt, tagger):
    """Before: NLTK (word, tag) pairs were taken as feature lists."""
    _, _, twords, ttags, _ = ewt
    pairs = [list(zip(w, t)) for w, t in zip(twords, ttags)]
    assert tagger.predict(pairs) == tagger.predict(twords)
    assert tagger.score(pairs) == tagger.score(twords, ttags)
    words, tags, *_ = ewt
    trained = PerceptronTagger(n_iter=3).fit([list(zip(w, t)) for w, t in zip(words, tags)])
    assert trained.predict(twords) == tagger.predict(twords)


def test_nltk_tagged_sents_if_installed(tagger):
    nltk = pytest.importorskip("nltk")
    sent = [("The", "DT"), ("bank", "NN"), ("closed", "VBD"), (".", ".")]
    assert as_sentences([sent]) == [["The", "bank", "closed", "."]]
    assert sentence_tags(sent) == ["DT", "NN", "VBD", "."]
    assert len(tagger.predict([sent])[0]) == 4 and nltk is not None


def test_spacy_docs(tagger):
    """Before: a spaCy Doc raised a bare TypeError."""
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    doc = nlp("The bank closed early .")
    assert tagger.predict([doc]) == tagger.predict([["The", "bank", "closed", "early", "."]])
    assert len(tagger.predict([doc[0:2]])[0]) == 2  # a Span is a sentence too
    with pytest.raises(DataFormatError, match=r"one spaCy Doc: pass \[doc\]"):
        tagger.predict(doc)
    assert sentence_columns(doc, ("form",))[1] == ("bank",)


@pytest.mark.parametrize("bad, match", [
    ("The bank", "got a string"),
    (["The bank closed"], "got a string"),
    ([[("The", "DT", "B-NP")]], "first token is tuple"),
    ([[3, 4]], "first token is int"),
    ([None], "got NoneType"),
])
def test_unknown_streams_say_what_they_got(tagger, bad, match):
    with pytest.raises(DataFormatError, match=match) as e:
        tagger.predict(bad)
    assert "expected" in str(e.value)


def test_tags_must_be_given_for_plain_tokens():
    with pytest.raises(DataFormatError, match="plain tokens carry no tags"):
        tags_of([["a", "b"]])
    with pytest.raises(DataFormatError, match="plain tokens carry no tags"):
        PerceptronTagger().fit([["a", "b"]])


def test_chunker_reads_token_lists_and_docs(shared_data):
    from conjunct.tasks.chunk import Chunker

    train = read_conll2000(shared_data / "conll2000" / "train.txt")[:300]
    chunker = Chunker(degree=2, n_iter=3).fit(train)
    pairs = [[(w, p) for w, p, _ in s] for s in train[:20]]
    want = chunker.chunk(pairs)
    conllu = pytest.importorskip("conllu")
    text = "\n\n".join("\n".join(f"{i + 1}\t{w}\t_\t_\t{p}\t_\t_\t_\t_\t_" for i, (w, p) in enumerate(s)) for s in pairs)
    assert chunker.chunk(conllu.parse(text + "\n")) == want
    with pytest.raises(DataFormatError, match="needs tokens with columns"):
        chunker.chunk([[w for w, _ in s] for s in pairs])


# -- scikit-learn's model selection on sequence tasks -----------------------------------------------
def test_taggers_under_cross_val_score_and_grid_search(ewt):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV, cross_val_score

    words, tags, *_ = ewt
    words, tags = words[:600], tags[:600]
    scores = cross_val_score(PerceptronTagger(n_iter=2), words, tags, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.7)
    grid = GridSearchCV(HMMTagger(), {"emission_smoothing": [0.01, 0.1]}, cv=2).fit(words, tags)
    assert grid.best_params_["emission_smoothing"] in (0.01, 0.1)
    assert grid.best_estimator_.score(words, tags) > 0.8
    assert sklearn.base.clone(PerceptronTagger(n_iter=4)).n_iter == 4


def test_pipeline_under_cross_val_score_and_grid_search(shared_data):
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV, cross_val_score

    from conjunct.tasks.chunk import Chunker

    train = read_conll2000(shared_data / "conll2000" / "train.txt")[:300]
    scores = cross_val_score(Chunker(degree=2, n_iter=2), train, cv=2)
    assert scores.shape == (2,) and np.all(scores > 0.6)  # chunk F1
    grid = GridSearchCV(Chunker(n_iter=2), {"degree": [1, 2]}, cv=2).fit(train)
    assert grid.best_params_["degree"] in (1, 2) and 0.6 < grid.best_score_ <= 1.0
    assert conjunct is not None
