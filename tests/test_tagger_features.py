"""The taggers' features on the feature engine: the C++ token attributes equal
Python's string methods, the engine's feature ids equal the Python reference
path's feature names on real corpora (EWT, GSD), feature for feature, and a
tagger tags new text as it tags text it has seen."""

import unicodedata

import numpy as np
import pytest

import conjunct
from conjunct import ModelFormatError, _core
from conjunct.tagging import EXACT_DECODERS, PerceptronTagger
from conjunct.tagging.features import ATTRIBUTES, DEFAULT_TEMPLATES, Featurizer, TokenFeatures, attribute_value
from conjunct.tagging.io import read_tagged

EWT = "ud_english_ewt/en_ewt-ud-{}.conllu"
GSD = "ud_japanese_gsd/r2.18/ja_gsd-ud-{}.conllu"
# Every attribute at once, at offsets and in conjunctions (at most 3 parts).
ALL_TEMPLATES = tuple(ATTRIBUTES) + ("w-2", "w-1", "w+1", "w+2", "shape-1", "s3+1", "w-1|w", "w|w+1", "s3|w-1|shape",
                                     "title|lw+1", "len-9", "p2+9")


def _c(name, word):
    return _core.token_attribute(name, word.encode("utf-8", "surrogatepass")).decode("utf-8", "surrogatepass")


def test_attributes_of_every_interesting_character_equal_pythons():
    # Characters with case, digits, the case-ignorable classes, and a sample of the rest.
    odd = ("Mn", "Me", "Cf", "Lm", "Sk", "Lt", "Po")
    cps = [c for c in range(0x110000) if c % 97 == 0 or chr(c).lower() != chr(c) or chr(c).isupper()
           or chr(c).islower() or chr(c).isdigit() or unicodedata.category(chr(c)) in odd]
    assert len(cps) > 5000
    for c in cps:
        w = chr(c)
        for name in ("lw", "shape", "upper", "digit", "title", "allcaps"):
            assert _c(name, w) == attribute_value(name, w), (hex(c), name)


@pytest.mark.parametrize("word", ["ΟΔΟΣ", "ΣΑ", "AΣ'", "Σ", "AΣ'B", "A'Σ", "İstanbul", "ǅemal", "ǅ", "ABC", "Abc",
                                  "aBc", "a-b", "3.14", "ẞtraße", "|\\", "<s>", "</s>", "\\<s>", "ﬃ", "e\u0301",
                                  "\ud800x", "Ab Cd", "A1", "x" * 15, "naïve", "日本語"])
def test_attributes_of_words_equal_pythons(word):
    for name in ATTRIBUTES:
        assert _c(name, word) == attribute_value(name, word), name


def _check_reference(feat, keys, sentences, ids_of):
    """Each token's engine ids name exactly the reference path's features (those the model has)."""
    names = keys.names()
    known = set(names)
    indptr, ids = ids_of(sentences)
    row = 0
    for words in sentences:
        for fs in feat.strings(words):
            assert [names[j] for j in ids[indptr[row]:indptr[row + 1]]] == [f for f in fs if f in known]
            row += 1
    assert row == len(indptr) - 1


@pytest.mark.realdata
@pytest.mark.parametrize("corpus", [EWT, GSD])
def test_engine_ids_equal_reference_path_on_real_data(shared_data, corpus):
    train_split, test_split = ("train", "dev") if corpus == EWT else ("dev", "test")
    words, _ = read_tagged(shared_data / corpus.format(train_split), tag_field="upos")
    test, _ = read_tagged(shared_data / corpus.format(test_split), tag_field="upos")
    for templates in (DEFAULT_TEMPLATES, ALL_TEMPLATES):
        feat = Featurizer(templates)
        keys, indptr, ids = feat.build(words[:300])
        # Training: every feature is new or known, numbered as met.
        _check_reference(feat, keys, words[:300], lambda s: (indptr, ids))
        # Run time on text the model has seen and on new text.
        extractor = TokenFeatures(keys)
        _check_reference(feat, keys, words[:100], extractor.encode)
        _check_reference(feat, keys, test[:150], extractor.encode)


@pytest.mark.realdata
def test_tagging_new_text_equals_tagging_it_again(shared_data, tmp_path):
    words, tags = read_tagged(shared_data / EWT.format("train"), tag_field="upos")
    dev, _ = read_tagged(shared_data / EWT.format("dev"), tag_field="upos")
    tagger = PerceptronTagger(n_iter=2).fit(words[:300], tags[:300])
    tagger.save(tmp_path / "t.cjt")
    fresh = conjunct.load(tmp_path / "t.cjt")
    first = fresh.decode(dev[:200])  # a fresh process' first call, on text never seen
    again = fresh.decode(dev[:200])
    assert first.tags == again.tags == tagger.predict(dev[:200])
    np.testing.assert_array_equal(first.scores, again.scores)
    # The one-call path decodes what the feature ids say, with every exact decoder.
    indptr, ids = fresh._encode(dev[:200])
    ptr = np.cumsum([0] + [len(s) for s in dev[:200]]).astype(np.int64)
    for decoder in EXACT_DECODERS:
        paths, scores, _ = fresh.model_.decode_batch(indptr, ids, ptr, decoder)
        np.testing.assert_allclose(fresh.decode(dev[:200], decoder=decoder).scores, scores, rtol=0, atol=0)
        assert [fresh.labels_[y] for y in paths] == [t for s in first.tags for t in s]
    assert fresh.decode(dev[:200], n_jobs=2).tags == first.tags


def test_feature_keys_section_is_validated(tmp_path):
    from conjunct.io import model_io

    tagger = PerceptronTagger(n_iter=1).fit([["a", "b"], ["b", "c"]], [["A", "B"], ["B", "C"]])
    kind, meta, arrays = tagger.to_container()
    bad = dict(arrays)
    bad["keys.codes"] = bad["keys.codes"].copy()
    bad["keys.codes"][0, 0] = 10 ** 6
    model_io.write_container(tmp_path / "codes.cjt", kind, meta, bad)
    with pytest.raises(ModelFormatError, match="codes.cjt.*section 'keys.codes'.*outside"):
        conjunct.load(tmp_path / "codes.cjt")
    # A spec the tagger's templates do not give, or whose attributes are not token attributes.
    other = {**meta, "params": {**meta["params"], "templates": ["w", "lw"]}}
    model_io.write_container(tmp_path / "spec.cjt", kind, other, arrays)
    with pytest.raises(ModelFormatError, match="spec.cjt.*template spec"):
        conjunct.load(tmp_path / "spec.cjt")
    keys = dict(meta["keys"], attributes=["pos"] + meta["keys"]["attributes"][1:])
    model_io.write_container(tmp_path / "attr.cjt", kind, {**meta, "keys": keys}, arrays)
    with pytest.raises(ModelFormatError, match="attr.cjt"):
        conjunct.load(tmp_path / "attr.cjt")
    del arrays["keys.template"]
    model_io.write_container(tmp_path / "missing.cjt", kind, meta, arrays)
    with pytest.raises(ModelFormatError, match="missing.cjt.*missing section 'keys.template'"):
        conjunct.load(tmp_path / "missing.cjt")


def test_extractor_refuses_a_spec_it_cannot_read():
    from conjunct.features.spec import FeatureKeys, FeatureSpec, Part, Template

    for attribute, position, problem in (("pos", "0", "not a token attribute"), ("w", "s0", "token offset"),
                                         ("w", "+10", "offsets run from")):
        spec = FeatureSpec([Template("t", (Part(attribute, position),))])
        keys = FeatureKeys(spec, [["x"]], np.zeros(1, np.int32), np.array([[0, -1, -1]], np.int32))
        with pytest.raises(ValueError, match=problem):
            TokenFeatures(keys)


def test_token_buffers_byte_offsets_of_any_characters():
    from conjunct.tagging.features import token_buffers

    words = ["a", "é", "日本", "😀x", "\ud800", "ascii", "Ω\U0010ffff", "\x00", "ñandú"]
    for sentences in ([words], [words[:3], words[3:]], [["plain", "ascii"], ["only"]]):
        text, offsets, sent_ptr = token_buffers(sentences)
        flat = [w for s in sentences for w in s]
        encoded = [w.encode("utf-8", "surrogatepass") for w in flat]
        assert offsets.tolist() == np.cumsum([0] + [len(e) for e in encoded]).tolist()
        assert bytes(text) == b"".join(encoded)
        assert sent_ptr.tolist() == np.cumsum([0] + [len(s) for s in sentences]).tolist()


def test_character_types_attribute_equals_the_segmenters_classes():
    # ctype: the Japanese segmenter's character classes, runs collapsed, on every class and across runs.
    from conjunct.tasks.segment import char_type

    sample = [c for c in range(0x110000) if c % 251 == 0 or 0x3000 <= c < 0x3100 or 0xFF00 <= c < 0xFFA0]
    for c in sample:
        if 0xD800 <= c < 0xE000:
            continue
        assert _c("ctype", chr(c)) == char_type(chr(c)), hex(c)
    for word, types in [("日本", "K"), ("食べる", "KH"), ("2024年", "NK"), ("カタカナ語", "TK"), ("ＡＢＣ", "A"),
                        ("々", "K"), ("、", "S"), ("a\x02b", "AOA")]:
        assert _c("ctype", word) == attribute_value("ctype", word) == types
    feat = Featurizer(("ctype", "ctype-1|ctype", "ctype|s1"))
    assert feat.strings(["日本", "の"]) == [["ctype=K", "ctype-1,ctype=<s>|K", "ctype,s1=K|本"],
                                            ["ctype=H", "ctype-1,ctype=K|H", "ctype,s1=H|の"]]
