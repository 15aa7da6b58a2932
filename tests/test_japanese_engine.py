"""The Japanese text pipeline's one-call path (segmenter -> tagger ->
bunsetsu chunker -> bunsetsu parser in C++) against the stage-by-stage path
on real GSD text, word for word, tag for tag, head for head; threads; odd and
bad input; the fallback for stages it does not run."""

import numpy as np
import pytest

from conjunct import DataFormatError
from conjunct.analysis import JapaneseTextPipeline
from conjunct.analysis.japanese_engine import engine_for, stage_arguments
from conjunct.tagging import JAPANESE_TEMPLATES, HMMTagger, PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.segment import WordSegmenter

SMALL = {"dense_features": 64}


def _text(s):
    return "".join(t.form for b in s.bunsetsu for t in b.tokens)


def _words(s):
    return [t.form for b in s.bunsetsu for t in b.tokens]


@pytest.fixture(scope="module")
def gsd(shared_data):
    base = shared_data / "ud_japanese_gsd"
    return load_gsd_bunsetsu(base, "train")[:120], load_gsd_bunsetsu(base, "test")


@pytest.fixture(scope="module")
def nlp(gsd):
    return JapaneseTextPipeline(WordSegmenter(n_iter=2, method_params=SMALL), PerceptronTagger(n_iter=2, templates=JAPANESE_TEMPLATES),
                                Chunker(n_iter=2, method_params=SMALL),
                                BunsetsuDependencyParser(degree=2, n_iter=2, method_params=SMALL), folds=2).fit(gsd[0])


def _fields(analyses):
    return [(a.forms, a.upos, a.xpos, a.bunsetsu, a.bunsetsu_heads, a.heads, a.chunks) for a in analyses]


ODD = ["東京 に 行った", "  前後に空白  ", "😀絵文字👍です。", "a\x00b の NUL", "ＡＢＣ１２３と abc123", "。", "x",
       "改行\nと\tタブ"]


def test_one_call_equals_stage_by_stage_on_gsd_test(nlp, gsd):
    texts = [_text(s) for s in gsd[1]] + ODD
    assert engine_for(nlp) is not None
    fast = nlp.analyze(texts)
    reference = nlp.analyze_reference(texts)
    assert len(fast) == len(texts)
    assert _fields(fast) == _fields(reference)
    # The stages did something: more than one bunsetsu somewhere, non-trivial heads.
    assert sum(len(a.bunsetsu_heads) for a in fast) > 2 * len(texts)
    assert all(type(x) is str for a in fast[:5] for x in a.forms + a.upos + a.xpos)


def test_gold_words_and_threads(nlp, gsd):
    sentences = [_words(s) for s in gsd[1][:200]]
    fast = nlp.analyze_words(sentences)
    assert _fields(fast) == _fields(nlp._analyze_words_reference(sentences))
    assert _fields(nlp.analyze_words(sentences, n_jobs=3)) == _fields(fast)
    texts = [_text(s) for s in gsd[1]]
    assert _fields(nlp.analyze(texts, n_jobs=2)) == _fields(nlp.analyze(texts))


def test_engine_follows_recompiled_stages(nlp, gsd):
    texts = [_text(s) for s in gsd[1][:60]]
    parser = nlp.parser
    saved = dict(parser.classifiers_)
    before = engine_for(nlp)
    try:
        parser.compile("pkb")
        assert engine_for(nlp) is not before
        assert _fields(nlp.analyze(texts)) == _fields(nlp.analyze_reference(texts))
    finally:
        parser.classifiers_ = saved
    assert engine_for(nlp) is engine_for(nlp)


def test_bad_input_as_before(nlp):
    with pytest.raises(DataFormatError, match="text 2 is empty"):
        nlp.analyze(["東京", ""])
    with pytest.raises(DataFormatError, match="text 1 is empty"):
        nlp.analyze([" \n"])
    with pytest.raises(DataFormatError, match="text 1"):
        nlp.analyze(["a\ud800b"])
    with pytest.raises(TypeError):
        nlp.analyze("東京")
    with pytest.raises(DataFormatError, match="text 1: expected a string"):
        nlp.analyze([3])
    assert nlp.analyze([]) == []


def test_pieces_in_one_call(nlp):
    core = engine_for(nlp).core
    a, b = "東京に行った".encode(), "。".encode()
    arrays = dict(text=a + b, piece_offsets=np.array([0, len(a), len(a) + len(b)], dtype=np.int64),
                  piece_ptr=np.array([0, 1, 2], dtype=np.int64))
    words, sent_ptr = core.analyze_pieces(**arrays)[:2]
    assert words == nlp.segmenter.segment(["東京に行った"])[0] + ["。"] and sent_ptr.tolist() == [0, len(words) - 1, len(words)]
    with pytest.raises(ValueError, match="piece 2: text is not UTF-8"):
        core.analyze_pieces(text=a + b"\xff", piece_offsets=np.array([0, len(a), len(a) + 1], dtype=np.int64),
                            piece_ptr=np.array([0, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="piece offsets"):
        core.analyze_pieces(text=a, piece_offsets=np.array([0, 1], dtype=np.int64), piece_ptr=np.array([0, 1], dtype=np.int64))


def test_stages_take_compiled_handles_that_match_their_classes(nlp):
    """Each stage's classifier goes as its compiled handle (rule and classes with it); class names
    that do not match a handle's classes, a missing segmenter classifier or a Classifier itself are refused."""
    from conjunct import _core

    kw = stage_arguments(engine_for(nlp).key)
    assert all(isinstance(kw[k], _core.CompiledClassifier) for k in ("chunk_classifier", "parser_classifier",
                                                                      "segment_classifier"))
    assert isinstance(kw["tag_features"], _core.TokenFeatures) and kw["tag_features"] is nlp.tagger.compiled_features
    _core.JapanesePipeline(**kw)
    with pytest.raises(ValueError, match="one chunk class name per class"):
        _core.JapanesePipeline(**dict(kw, chunk_classes=kw["chunk_classes"][:-1]))
    with pytest.raises(ValueError, match="one segmenter class name per class"):
        _core.JapanesePipeline(**dict(kw, segment_classes=kw["segment_classes"] + ["x"]))
    with pytest.raises(ValueError, match="need its classifier"):
        _core.JapanesePipeline(**dict(kw, segment_classifier=None))
    with pytest.raises(TypeError):
        _core.JapanesePipeline(**dict(kw, parser_classifier=nlp.parser.runner().classifier))


def test_hmm_tagger_takes_the_stage_by_stage_path(nlp, gsd):
    train, test = gsd
    words = [_words(s) for s in train]
    tags = [[f"{t.upos}|{t.xpos}" for b in s.bunsetsu for t in b.tokens] for s in train]
    other = JapaneseTextPipeline(nlp.segmenter, HMMTagger().fit(words, tags), nlp.bunsetsu, nlp.parser)
    assert engine_for(other) is None
    texts = [_text(s) for s in test[:40]]
    assert _fields(other.analyze(texts)) == _fields(other.analyze_reference(texts))
