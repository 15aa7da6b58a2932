"""The character-boundary features on the feature engine: the C++ ids equal
the reference path's feature for feature on real text (GSD for the
segmenter, EWT for the tokenizer's gaps), the character classes both paths
read, what the engine refuses, and model files written before feature keys
(converted at load, or refused with "retrain it")."""

import importlib.util
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import conjunct
from conjunct import ModelFormatError, _core
from conjunct.features.index import FeatureIndex
from conjunct.features.spec import FeatureKeys, FeatureSpec, Part, Template
from conjunct.tasks.runner import engine_keys
from conjunct.tasks.segment import WordSegmenter, char_type, read_segmented_conllu, spec
from conjunct.tasks.segment.dictionary import WordDictionary
from conjunct.tasks.segment.features import feature_lists
from conjunct.tasks.segment.runner import text_buffers
from conjunct.tasks.tokenize import read_tokenized_conllu
from conjunct.tasks.tokenize.features import gap_piece_features, gap_spec
from helpers import reference_gap_rows
from conjunct.tasks.tokenize.oracle import decided_gaps, known_words

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _engine(names, the_spec, dictionary=None):
    keys = FeatureKeys.from_names(the_spec, names)
    if dictionary is None:
        return _core.BoundaryFeatures(tables=keys.tables())
    words, offsets = dictionary.to_arrays()
    return _core.BoundaryFeatures(tables=keys.tables(), dictionary_words=words.tobytes(), dictionary_offsets=offsets)


def _rows(engine, texts, gaps):
    positions, ptr, indptr, ids = engine.features(*text_buffers(texts), gaps)
    rows = [ids[a:b].tolist() for a, b in zip(indptr[:-1].tolist(), indptr[1:].tolist())]
    return positions, ptr, rows


# -- character classes ------------------------------------------------------------------------------------
def test_character_classes_of_every_code_point():
    loader = importlib.util.spec_from_file_location("gen_char_classes", TOOLS / "gen_char_classes.py")
    gen_char_classes = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(gen_char_classes)

    cps = np.arange(0x110000, dtype=np.int64)
    classes, spaces = _core.BoundaryFeatures.char_classes(cps)
    _, _, _, version = _core.BoundaryFeatures.char_class_ranges()
    assert spaces.astype(bool).tolist() == [chr(c).isspace() for c in range(0x110000)]
    engine = bytes(classes).decode("ascii")
    assert engine[2] == "O"  # the padding character
    sample = list(range(0, 0x3100)) + list(range(0xFF00, 0xFFA0)) + [0x20BB7, 0x10FFFF]
    assert "".join(char_type(chr(c)) for c in sample) == "".join(engine[c] for c in sample)
    if unicodedata.unidata_version != version:
        pytest.skip(f"the table follows Unicode {version}, this Python's unicodedata {unicodedata.unidata_version}")
    # The generated table is the generator's definition over every code point.
    assert engine[:2] + engine[3:] == "".join(gen_char_classes.char_class(c) for c in range(0x110000) if c != 2)


# -- engine ids against the reference, on real text ------------------------------------------------------------
@pytest.mark.realdata
def test_segmenter_engine_ids_equal_reference_on_gsd(shared_data):
    base = shared_data / "ud_japanese_gsd" / "r2.8"
    train = ["".join(s) for s in read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:300]]
    dev = ["".join(s) for s in read_segmented_conllu(base / "ja_gsd-ud-dev.conllu")[:200]]
    texts = dev + ["未知の文字𠮷を含む", "Ｘ", "", "a\x02b"]
    for ngram in (2, 3):
        index = FeatureIndex.from_data(f for t in train for f in feature_lists(t, range(1, len(t)), ngram))
        positions, ptr, rows = _rows(_engine(index.names, spec(ngram)), texts, "all")
        expected = [[i for i in (index.get(f) for f in fl) if i >= 0]
                    for t in texts for fl in feature_lists(t, range(1, len(t)), ngram)]
        assert positions.tolist() == [b for t in texts for b in range(1, len(t))]
        assert np.diff(ptr).tolist() == [max(len(t) - 1, 0) for t in texts]
        assert rows == expected
        assert sum(map(len, rows)) > 0.8 * len(rows) * len(spec(ngram))  # most features are known


@pytest.mark.realdata
@pytest.mark.parametrize("ngram, type_ngram", [(3, 4), (3, 6), (4, 5)])
def test_longer_ngrams_engine_ids_equal_reference_on_gsd(shared_data, ngram, type_ngram):
    # Character 4-grams and type n-grams up to the whole window of six characters.
    base = shared_data / "ud_japanese_gsd" / "r2.8"
    train = ["".join(s) for s in read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:300]]
    texts = ["".join(s) for s in read_segmented_conllu(base / "ja_gsd-ud-dev.conllu")[:150]] + ["𠮷野家", "Ｘ", "", "a\x02b"]
    the_spec = spec(ngram, type_ngram=type_ngram)
    assert len(the_spec) == sum(7 - n for n in range(1, ngram + 1)) + sum(7 - n for n in range(1, type_ngram + 1))
    index = FeatureIndex.from_data(f for t in train for f in feature_lists(t, range(1, len(t)), ngram, type_ngram=type_ngram))
    assert any(n.startswith(f"t-3:{type_ngram}=") for n in index.names)
    positions, ptr, rows = _rows(_engine(index.names, the_spec), texts, "all")
    expected = [[i for i in (index.get(f) for f in fl) if i >= 0]
                for t in texts for fl in feature_lists(t, range(1, len(t)), ngram, type_ngram=type_ngram)]
    assert rows == expected


def _gsd_dictionary_and_texts(shared_data):
    """A dictionary of 500 GSD train sentences' words (and two of other scripts),
    and 200 dev texts with hand-picked edge cases."""
    base = shared_data / "ud_japanese_gsd" / "r2.8"
    train = read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:500]
    dictionary = WordDictionary([w for s in train for w in s] + ["𠮷野家", "ａｂ"])
    dev = ["".join(s) for s in read_segmented_conllu(base / "ja_gsd-ud-dev.conllu")[:200]]
    return dictionary, dev + ["𠮷野家の牛丼", "ａｂｃ", "", "日", "a\x02b", "東京都の東京"]


@pytest.mark.realdata
def test_dictionary_flags_of_the_engine_equal_reference_on_gsd(shared_data):
    dictionary, texts = _gsd_dictionary_and_texts(shared_data)
    the_spec = spec(2, dictionary=True)
    reference = [fl for t in texts for fl in feature_lists(t, range(1, len(t)), 2, dictionary)]
    index = FeatureIndex.from_data(reference[::2])
    positions, ptr, rows = _rows(_engine(index.names, the_spec, dictionary), texts, "all")
    assert rows == [[i for i in (index.get(f) for f in fl) if i >= 0] for fl in reference]
    flags = {index.get(f"d{k}{n}") for k in "LRI" for n in range(1, 5)} - {-1}
    assert len(flags) >= 10 and sum(i in flags for r in rows for i in r) > len(rows)  # the flags are read


@pytest.mark.realdata
def test_longest_match_flags_of_the_engine_equal_reference_on_gsd(shared_data):
    dictionary, texts = _gsd_dictionary_and_texts(shared_data)
    the_spec = spec(2, dictionary=True, longest_match=True)
    reference = [fl for t in texts for fl in feature_lists(t, range(1, len(t)), 2, dictionary, longest_match=True)]
    index = FeatureIndex.from_data(reference[::2])
    positions, ptr, rows = _rows(_engine(index.names, the_spec, dictionary), texts, "all")
    assert rows == [[i for i in (index.get(f) for f in fl) if i >= 0] for fl in reference]
    forward, backward = index.get("dM1"), index.get("dM2")
    assert min(forward, backward) >= 0
    assert sum(forward in r for r in rows) > len(rows) // 4 and sum(backward in r for r in rows) > len(rows) // 4


@pytest.mark.realdata
@pytest.mark.parametrize("extras", [False, True])
def test_tokenizer_engine_ids_equal_reference_on_ewt(shared_data, extras):
    base = shared_data / "ud_english_ewt"
    train = read_tokenized_conllu(base / "en_ewt-ud-train.conllu")[:60]
    dev = [t.text for t in read_tokenized_conllu(base / "en_ewt-ud-dev.conllu")[:30]]
    texts = dev + ["I can't  believe it's 5 p.m.!! Mr. Smith said:\"no\".", "x", "", "a\u00a0b\tc\u3000d",
                   "supercalifragilisticexpialidocious word", "ünïcödé straße", "<me...@x.com> http://a.b/c-d www.e.f"]
    dictionary = WordDictionary([w for t in train for w in known_words(t)]) if extras else None

    def reference(text):
        gaps = decided_gaps(text).tolist()
        return gaps, [f + p for f, p in zip(feature_lists(text, gaps, 3, dictionary),
                                            gap_piece_features(text, gaps, links=extras))]

    index = FeatureIndex.from_data(f for t in train + read_tokenized_conllu(base / "en_ewt-ud-dev.conllu")[30:40]
                                   for f in reference(t.text)[1])
    positions, ptr, rows = _rows(_engine(index.names, gap_spec(3, extras, extras), dictionary), texts, "inner")
    expected_gaps, expected = reference_gap_rows(texts, reference, index)
    assert positions.tolist() == expected_gaps
    assert rows == expected
    piece = {index.get(f) for f in index.names if f[:2] in ("L=", "R=", "P=", "N=")}
    assert sum(i in piece for r in rows for i in r) > len(rows)  # the piece templates are read too
    if extras:
        assert index.get("K=link") >= 0 and any(index.get("K=link") in r for r in rows)
        assert sum(index.get("dI4") in r for r in rows) > 10


@pytest.mark.realdata
def test_direct_path_at_inner_gaps_equals_reference_on_ewt(shared_data):
    # Templates of one part each (n-grams, dictionary flags): ids by code, rows
    # only at gaps between non-whitespace characters, on text with spaces.
    base = shared_data / "ud_english_ewt"
    train = [t.text for t in read_tokenized_conllu(base / "en_ewt-ud-train.conllu")[:80]]
    texts = [t.text for t in read_tokenized_conllu(base / "en_ewt-ud-dev.conllu")[:60]] + [
        "a  b\tc\u3000d", " lead and trail ", "x", "", "日本 語"]
    dictionary = WordDictionary([w for t in train for w in t.split()])
    the_spec = spec(3, dictionary=True, longest_match=True)

    def reference(text):
        gaps = decided_gaps(text).tolist()
        return gaps, feature_lists(text, gaps, 3, dictionary, longest_match=True)

    index = FeatureIndex.from_data(f for t in train for f in reference(t)[1])
    positions, ptr, rows = _rows(_engine(index.names, the_spec, dictionary), texts, "inner")
    expected_gaps, expected = reference_gap_rows(texts, reference, index)
    assert positions.tolist() == expected_gaps and rows == expected
    assert len(rows) > 1000 and sum(map(len, rows)) > 0.5 * len(rows) * len(the_spec)


# -- what the engine refuses ------------------------------------------------------------------------------------
def test_engine_refuses_what_it_cannot_compute():
    ok = _engine(["c-1:1=a"], spec(1))
    with pytest.raises(ValueError, match="text 2: text is not UTF-8"):
        ok.features(b"ab\xff\xfe", np.array([0, 2, 4]), "all")
    with pytest.raises(ValueError, match="offsets"):
        ok.features(b"ab", np.array([0, 3]), "all")
    with pytest.raises(ValueError, match="gaps"):
        ok.features(b"ab", np.array([0, 2]), "some")
    with pytest.raises(ValueError, match="non-whitespace"):
        _engine(["L=a"], gap_spec(1)).features(b"ab", np.array([0, 2]), "all")
    bad = [FeatureSpec([Template("x", (Part("c3", "+1"),))]),        # past the window
           FeatureSpec([Template("x", (Part("w", "+0"),))]),         # no such attribute
           FeatureSpec([Template("x", (Part("c1", "s0"),))]),        # no such position
           FeatureSpec([Template("x", (Part("piece.left", "+0"),))])]
    for s in bad:
        with pytest.raises(ValueError, match="boundary feature template 'x'"):
            _engine([], s)
    with pytest.raises(ValueError, match="boundary feature template 'x': a flag at 'dict.L5'"):
        _engine([], FeatureSpec([Template("x", (Part(None, "dict.L5"),))]))
    with pytest.raises(ValueError, match="need the model's dictionary"):
        _engine(["dL1"], spec(1, dictionary=True))
    with pytest.raises(ValueError, match="dict.M1, dict.M2"):  # longest match: from the left or from the right only
        _engine([], FeatureSpec(list(spec(1).templates) + [Template("dM3", (Part(None, "dict.M3"),), "dictionary")]))
    with pytest.raises(ValueError, match="dictionary"):
        _core.BoundaryFeatures(tables=FeatureKeys.from_names(spec(1), []).tables(), dictionary_words=b"ab",
                               dictionary_offsets=np.array([0, 3]))


# -- model files ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_segmenter(shared_data):
    base = shared_data / "ud_japanese_gsd" / "r2.8"
    return WordSegmenter(degree=2, n_iter=2, ngram=2).fit(read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:120])


def _without_keys(segmenter):
    """The file of this segmenter as written before feature keys (with its kernel models, as files were then)."""
    keep, segmenter.keep_models = segmenter.keep_models, True
    try:
        kind, meta, arrays = segmenter.to_container()
    finally:
        segmenter.keep_models = keep
    for c in meta["components"].values():
        for part in ("model", "classifier"):
            features = c[part]["meta"].get("features") if "meta" in c[part] else None
            if features is not None:
                features.pop("keys", None)
    return kind, meta, {k: v for k, v in arrays.items() if ".keys." not in k}


@pytest.mark.realdata
def test_segmenter_file_stores_keys_and_old_files_convert(small_segmenter, shared_data, tmp_path):
    texts = ["".join(s) for s in read_segmented_conllu(shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu")[:30]]
    expected = small_segmenter.segment(texts)
    _, _, arrays = small_segmenter.to_container()
    assert any(".keys." in k for k in arrays)  # a trained segmenter's file stores its keys
    old = tmp_path / "old.cjt"
    conjunct.io.model_io.write_container(old, *_without_keys(small_segmenter))
    assert not any(".keys." in k for k in conjunct.io.model_io.read_container(old)[2])
    loaded = conjunct.load(old)  # converted at load: the names read through the templates
    assert loaded.classifier_.features.keys is not None
    assert loaded.segment(texts) == expected
    resaved = tmp_path / "resaved.cjt"
    loaded.save(resaved)
    assert any(".keys." in k for k in conjunct.io.model_io.read_container(resaved)[2])


def test_file_of_other_features_is_refused_with_retrain_it():
    index = FeatureIndex(["c-1:1=a", "w[-1]=the"])
    with pytest.raises(ModelFormatError, match="retrain it"):
        engine_keys(index, spec(3), "word segmentation", "old.cjt")
    keyed = FeatureIndex(["c-1:1=a"])
    keyed.keys = FeatureKeys.from_names(spec(1), keyed.names)
    with pytest.raises(ModelFormatError, match="retrain it"):
        engine_keys(keyed, spec(3), "word segmentation", "odd.cjt")


@pytest.mark.realdata
def test_old_segmenter_file_of_other_features_is_refused_at_load(small_segmenter, tmp_path):
    kind, meta, arrays = _without_keys(small_segmenter)
    # A feature name of another model (the old string encoder skipped such names silently).
    blob_key = next(k for k in arrays if k.endswith("features.names_blob"))
    blob = bytearray(arrays[blob_key].tobytes())
    blob[:2] = b"w["
    arrays = {**arrays, blob_key: np.frombuffer(bytes(blob), dtype=np.uint8)}
    path = tmp_path / "foreign.cjt"
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    with pytest.raises(ModelFormatError, match="retrain it") as e:
        conjunct.load(path)
    assert "foreign.cjt" in str(e.value)
