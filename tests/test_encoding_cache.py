"""EncodingCache: tokens encoded through remembered word types and integer
template keys must give exactly the feature ids of the uncached encoder, call
after call, across resets, between threads and on real corpora."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conjunct.tagging import PerceptronTagger
from conjunct.tagging.features import DEFAULT_TEMPLATES, EncodingCache, Featurizer
from conjunct.tagging.io import read_tagged

# Characters that stress the feature strings: the part separator, the boundary
# words' characters, case changes that alter length, digits, non-ASCII.
WORD = st.text(alphabet="ab|\\<>s/AİßÉ1.-", min_size=1, max_size=5)
SENTENCES = st.lists(st.lists(WORD, min_size=0, max_size=6), min_size=0, max_size=8)
TEMPLATES = st.lists(st.sampled_from(["bias", "w", "lw", "p1", "s2", "shape", "w-2", "w-1", "w+1", "w+2", "w-1|w",
                                      "w|w+1", "s2|w-1|shape", "w-2|w-1|w|w+1", "shape-1", "s3+1",
                                      "title|w-1", "hyphen", "upper", "len|digit"]),
                     min_size=1, max_size=8, unique=True)


def assert_same(a, b):
    assert np.array_equal(a[0], b[0]) and a[0].dtype == b[0].dtype
    assert np.array_equal(a[1], b[1]) and a[1].dtype == b[1].dtype


@given(train=SENTENCES, batches=st.lists(SENTENCES, min_size=1, max_size=4), templates=TEMPLATES,
       max_keys=st.sampled_from([1, 40, 1 << 23]), max_types=st.sampled_from([1, 10, 1 << 20]),
       name_in_cpp=st.booleans())
@example(train=[["a|b", "<s>"], ["|"]], batches=[[["a", "b|<s>", "|"]], [["a|b", "<s>"]]],
         templates=["w-1|w", "w|w+1", "w-1"], max_keys=1 << 23, max_types=1 << 20, name_in_cpp=True)
def test_cached_encoding_equals_uncached(train, batches, templates, max_keys, max_types, name_in_cpp):
    feat = Featurizer(templates)
    vocab, names = {}, []
    feat.encode(train, vocab, names)
    cache = EncodingCache(feat.templates, vocab, max_types=max_types, max_keys=max_keys, name_in_cpp=name_in_cpp)
    assert cache.names_in_cpp == (name_in_cpp and bool(vocab))
    for batch in batches + batches:  # the second round meets only remembered words
        assert_same(feat.encode(batch, vocab, cache=cache), feat.encode(batch, vocab))


@pytest.mark.parametrize("name_in_cpp", [True, False])
def test_cache_stays_bounded_and_recovers_from_an_unresolved_lookup(name_in_cpp):
    sents = [["w%d" % (i * 7 + j) for j in range(6)] for i in range(50)]
    feat = Featurizer()
    vocab, names = {}, []
    feat.encode(sents[:25], vocab, names)
    cache = EncodingCache(feat.templates, vocab, max_types=40, max_keys=500, name_in_cpp=name_in_cpp)
    for s in sents:
        assert_same(feat.encode([s], vocab, cache=cache), feat.encode([s], vocab))
        assert cache.n_types <= 40 + 6 and cache.n_keys <= 500 + 6 * len(feat.templates)
    # A lookup whose pending keys are never resolved (an exception in between)
    # leaves placeholders behind; the next lookup must not trust them.
    cache._keys.lookup(np.zeros(1, np.int32), np.array([0, 1], np.int64), cache._type_codes[:1])
    assert_same(feat.encode(sents[:3], vocab, cache=cache), feat.encode(sents[:3], vocab))


def test_cache_must_match_templates_and_vocabulary():
    feat = Featurizer()
    vocab, names = {}, []
    feat.encode([["a", "b"]], vocab, names)
    with pytest.raises(ValueError, match="another vocabulary"):
        feat.encode([["a"]], vocab, cache=EncodingCache(feat.templates, dict(vocab)))
    with pytest.raises(ValueError, match="other templates"):
        feat.encode([["a"]], vocab, cache=EncodingCache(["w"], vocab))
    with pytest.raises(ValueError, match="unknown attribute"):
        from conjunct import _core
        _core.TemplateKeys([[(3, 0)]], 2)


def test_tagger_reuses_its_cache_and_shares_it_between_threads():
    words = ["the", "dog", "runs", "a", "cat", "sees", "it", "old", "man", "boats"]
    rng = np.random.default_rng(1)
    sents = [[str(w) for w in rng.choice(words, size=rng.integers(1, 8))] for _ in range(200)]
    tags = [["T" + w[0] for w in s] for s in sents]
    tagger = PerceptronTagger(n_iter=2).fit(sents[:100], tags[:100])
    new = [s + ["unseen%d" % i] for i, s in enumerate(sents[100:])]
    expected = [tagger.predict([s])[0] for s in new]  # one call per sentence
    cache = tagger._cache
    assert cache.n_types > 0 and tagger.predict(new) == expected and tagger._cache is cache
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda s: tagger.predict([s])[0], new * 3))
    assert got == expected * 3
    # Refitting makes a new vocabulary, hence a new cache.
    tagger.fit(sents[100:], tags[100:])
    assert tagger.predict(new[:5]) and tagger._cache is not cache


@pytest.mark.realdata
@pytest.mark.parametrize("name_in_cpp", [True, False])
@pytest.mark.parametrize("path,fmt,field", [("ud_english_ewt/en_ewt-ud-train.conllu", "conllu", "xpos"),
                                            ("conll2000/train.txt", "conll2000", "joint"),
                                            ("ud_japanese_v1.4_bunsetsu/ja-ud-train.conllu", "conllu", "xpos")])
def test_cached_encoding_on_real_text(shared_data, path, fmt, field, name_in_cpp):
    words, _ = read_tagged(shared_data / path, format=fmt, tag_field=field)
    feat = Featurizer(DEFAULT_TEMPLATES)
    vocab, names = {}, []
    feat.encode(words[:2000], vocab, names)
    cache = EncodingCache(feat.templates, vocab, name_in_cpp=name_in_cpp)
    assert cache.names_in_cpp == name_in_cpp
    for b in range(2000, 4000, 500):  # batches of unseen text, then the same again
        batch = words[b:b + 500]
        assert_same(feat.encode(batch, vocab, cache=cache), feat.encode(batch, vocab))
    assert_same(feat.encode(words[2000:4000], vocab, cache=cache), feat.encode(words[2000:4000], vocab))
