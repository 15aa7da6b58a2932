"""EnglishTextPipeline.analyze: the tagger and the parser in one C++ call
(``_core.tag_parse_english``) give the stages' own results on real sentences,
with a perceptron tagger and through the two-call path of an HMM tagger; the
batch check of the tokens names the first bad sentence and token as the check
sentence by sentence does."""

import pytest

from conjunct import DataFormatError
from conjunct.analysis import EnglishTextPipeline
from conjunct.analysis.result import split_joint_tag
from conjunct.tagging import HMMTagger, PerceptronTagger
from conjunct.tasks.english import DepSentence, EnglishDependencyParser

SMALL = {"dense_features": 64}


@pytest.fixture(scope="module")
def ewt(ewt_sentences):
    train, dev = ewt_sentences
    return train[:160], dev[:120]


@pytest.fixture(scope="module")
def english(ewt):
    train, _ = ewt
    return EnglishTextPipeline(PerceptronTagger(n_iter=3), EnglishDependencyParser(n_iter=2, method_params=SMALL),
                               folds=2).fit(train)


def _stage_by_stage(nlp, sentences):
    """The tagger alone, then the parser alone on its tags."""
    tags = [[split_joint_tag(t) for t in ts] for ts in nlp.tagger.predict(sentences)]
    upos = [[u for u, _ in ts] for ts in tags]
    xpos = [[x for _, x in ts] for ts in tags]
    trees = nlp.parser.parse([DepSentence(list(f), u, x) for f, u, x in zip(sentences, upos, xpos)])
    return [(list(f), u, x, list(h), list(l)) for f, u, x, (h, l) in zip(sentences, upos, xpos, trees)]


def test_one_call_gives_the_stages_results(english, ewt):
    sentences = [s.forms for s in ewt[1]]
    runner = english.parser.runner()
    before = runner.counters()
    out = english.analyze(sentences)
    # The parser's counters see the call's decisions: one transition per word at least, one label per arc at most.
    n_words = sum(map(len, sentences))
    assert runner.counters()["transition_decisions"] - before["transition_decisions"] >= n_words
    assert 0 < runner.counters()["label_decisions"] - before["label_decisions"] <= n_words
    assert [(a.forms, a.upos, a.xpos, a.heads, a.deprels) for a in out] == _stage_by_stage(english, sentences)


def test_hmm_tagger_takes_the_two_call_path(english, ewt):
    train, dev = ewt
    words = [s.forms for s in train]
    gold = [[u + "|" + x for u, x in zip(s.upos, s.xpos)] for s in train]
    hmm = english.replace(tagger=HMMTagger().fit(words, gold))
    sentences = [s.forms for s in dev[:40]]
    out = hmm.analyze(sentences)
    assert [(a.forms, a.upos, a.xpos, a.heads, a.deprels) for a in out] == _stage_by_stage(hmm, sentences)


def test_forms_are_copies_of_the_input(english):
    sentence = ["The", "dog", "barked", "."]
    out = english.analyze([sentence, tuple(sentence), iter(sentence)])
    assert [a.forms for a in out] == [sentence] * 3
    assert all(a.forms is not sentence for a in out)
    sentence.append("!")
    assert out[0].forms == ["The", "dog", "barked", "."]


@pytest.mark.parametrize("sentences, message", [
    ([["a"], ["b", "c d"], []], "sentence 2, token 2: tokens are non-empty strings without whitespace, got 'c d'"),
    ([["a"], [], ["b", "c d"]], "sentence 2 is empty"),
    ([["a"], ["b", ""]], "sentence 2, token 2: tokens are non-empty strings without whitespace, got ''"),
    ([["a", "b\u00a0c"]], "sentence 1, token 2: tokens are non-empty strings without whitespace"),
    ([["a"], ["b", 3]], "sentence 2, token 2: tokens are non-empty strings without whitespace, got 3"),
    ([["a"], ["b", "x\ud800"]], "sentence 2, token 2: lone surrogate U\\+D800"),
    ([["a"], "b c"], "sentence 2 is a string"),
    ([["a"], 5], "sentence 2: expected a list of tokens"),
    ([iter(["a"]), iter([]), ["b", "c d"]], "sentence 2 is empty"),
    ([iter(["a", "b"]), ["c d"]], "sentence 2, token 1"),
])
def test_bad_tokens_are_named(english, sentences, message):
    with pytest.raises(DataFormatError, match=message):
        english.analyze(sentences)


def test_collector_paused_while_results_are_built_and_restored(english, ewt):
    import gc

    from conjunct.analysis.result import collector_paused

    _, dev = ewt
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()  # restored after an error too
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a caller's choice to keep it off is kept
    finally:
        gc.enable()
    english.analyze([s.forms for s in dev[:5]])
    assert gc.isenabled()
