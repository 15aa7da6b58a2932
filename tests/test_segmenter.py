import pickle

import numpy as np
import pytest

import conjunct
from conjunct.tasks.segment import (
    PAD,
    WordSegmenter,
    boundary_features,
    boundary_labels,
    char_type,
    read_segmented_conllu,
    segment_reference,
    training_examples,
    word_scores,
    words_from_boundaries,
)

METHODS = ["pkb", "pki", "pke", "split", "fstrie"]


def test_char_types():
    assert [char_type(c) for c in "漢字々ひらがなカタカナーｶﾀabcＡ１2、。 !"] == list("KKKHHHHTTTTTTTAAAANNSSSS")
    assert char_type(PAD) == "O"


def test_boundary_labels_and_words_round_trip():
    words = ["日本", "語", "の", "文"]
    labels = boundary_labels(words)
    assert labels == [-1, 1, 1, 1]
    assert words_from_boundaries("日本語の文", [y > 0 for y in labels]) == words
    assert boundary_labels(["a"]) == [] and words_from_boundaries("", []) == []


def test_boundary_features_hand_case():
    f = boundary_features("日本語", 1, ngram=2)
    assert f[:6] == [f"c-3:1={PAD}", f"c-2:1={PAD}", "c-1:1=日", "c+0:1=本", "c+1:1=語", f"c+2:1={PAD}"]
    assert "c-1:2=日本" in f and "t-1:2=KK" in f and "t+1:2=KO" in f
    assert len(boundary_features("日本語", 2, ngram=3)) == 2 * (6 + 5 + 4)


def test_engine_ids_equal_reference_features():
    from conjunct import _core
    from conjunct.features.spec import FeatureKeys
    from conjunct.tasks.segment import spec
    from conjunct.tasks.segment.runner import text_buffers

    texts = ["日本語の文です。", "ab", "x", "", "カタカナ１２３abc、漢字", "a\x02b"]
    for ngram in (1, 2, 3):
        expected = [boundary_features(t, b, ngram) for t in texts for b in range(1, len(t))]
        names = sorted({f for row in expected for f in row})
        keys = FeatureKeys.from_names(spec(ngram), names)
        assert keys.names() == names
        positions, ptr, indptr, ids = _core.BoundaryFeatures(tables=keys.tables()).features(*text_buffers(texts), "all")
        assert list(np.diff(ptr)) == [max(len(t) - 1, 0) for t in texts]
        assert positions.tolist() == [b for t in texts for b in range(1, len(t))]
        got = [[names[i] for i in ids[a:b]] for a, b in zip(indptr[:-1], indptr[1:])]
        assert got == expected


def test_word_scores_hand_case():
    gold = [["日本", "語", "の"], ["ab"]]
    pred = [["日", "本語", "の"], ["a", "b"]]
    s = word_scores(gold, pred)
    assert (s["correct_words"], s["gold_words"], s["predicted_words"]) == (1, 4, 5)
    assert s["precision"] == pytest.approx(1 / 5) and s["recall"] == pytest.approx(1 / 4)
    assert s["accuracy"] == pytest.approx(1 / 4)  # boundaries: 日|本 wrong, 本|語 wrong, 語|の right, a|b wrong
    with pytest.raises(ValueError, match="different sentences"):
        word_scores([["ab"]], [["a"]])


# -- the pipeline on real data --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(shared_data):
    base = shared_data / "ud_japanese_gsd" / "r2.8"
    return read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:400], read_segmented_conllu(base / "ja_gsd-ud-test.conllu")[:150]


@pytest.fixture(scope="module")
def segmenter(corpus):
    return WordSegmenter(degree=2, n_iter=5).fit(corpus[0])


@pytest.mark.realdata
def test_small_training_reaches_a_sane_f1(segmenter, corpus):
    result = segmenter.evaluate(corpus[1])
    assert result["f1"] > 0.85, result
    assert result["decisions"] == sum(len("".join(s)) - 1 for s in corpus[1])
    assert 0 < result["classifier_seconds"] <= result["seconds"]


@pytest.mark.realdata
def test_batched_path_equals_python_reference(segmenter, corpus):
    texts = ["".join(s) for s in corpus[1][:40]] + ["未知の文字𠮷を含む", "Ｘ"]
    assert segmenter.dictionary_ is not None and len(segmenter.dictionary_) > 1000  # the training words
    assert segmenter.segment(texts) == segment_reference(segmenter.classifier_, texts, dictionary=segmenter.dictionary_)


@pytest.mark.realdata
def test_every_method_gives_identical_words(segmenter, corpus):
    texts = ["".join(s) for s in corpus[1]]
    reference = segmenter.segment(texts)
    for method in METHODS:
        segmenter.compile(method, events=corpus[0][:100])
        assert segmenter.classifier_.method == method
        assert segmenter.segment(texts) == reference, method
    segmenter.compile("fstrie", events=corpus[0])


@pytest.mark.realdata
def test_the_boundary_loop_takes_the_compiled_handle(segmenter, corpus):
    """BoundaryFeatures.classify gets the classifier's handle alone: its rule and classes come with it."""
    from conjunct.tasks.segment.runner import text_buffers

    runner = segmenter.runner()
    blob, offsets = text_buffers(["".join(s) for s in corpus[1][:10]])
    call = dict(early_exit=True, n_threads=1, text=blob, offsets=offsets)
    classes = runner.features.classify(classifier=runner.classifier.compiled, **call)[2]
    assert classes.tolist() == runner.classify(["".join(s) for s in corpus[1][:10]])[2].tolist()
    with pytest.raises(TypeError):
        runner.features.classify(classifier=runner.classifier, **call)


@pytest.mark.realdata
def test_events_are_the_vectors_classified(segmenter, corpus):
    texts = ["".join(s) for s in corpus[1][:20]]
    cuts, events = segmenter.runner().boundaries(texts, collect=True)
    flat = np.concatenate(cuts)
    assert events.shape[0] == flat.size
    assert list(segmenter.classifier_.predict(events) == 1) == list(flat)


@pytest.mark.realdata
def test_training_examples_label_every_boundary(corpus):
    feats, labels = training_examples(corpus[0][:30], ngram=3)
    assert len(feats) == len(labels) == sum(len("".join(s)) - 1 for s in corpus[0][:30])
    assert sum(y > 0 for y in labels) == sum(len(s) - 1 for s in corpus[0][:30])


@pytest.mark.realdata
def test_save_load_pickle(segmenter, corpus, tmp_path):
    texts = ["".join(s) for s in corpus[1]]
    reference = segmenter.segment(texts)
    path = tmp_path / "seg.cjm"
    segmenter.save(path)
    for loaded in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(segmenter))):
        assert isinstance(loaded, WordSegmenter) and loaded.ngram == segmenter.ngram
        assert loaded.segment(texts) == reference


def test_untrained_segmenter_raises():
    with pytest.raises(conjunct.ConjunctError, match="not trained"):
        WordSegmenter().segment(["日本"])


# -- CLI ----------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_cli_round_trip(shared_data, corpus, tmp_path, capsys, monkeypatch):
    import io

    from conjunct.cli import main

    base = shared_data / "ud_japanese_gsd" / "r2.8"
    model = tmp_path / "seg.cjm"
    user = tmp_path / "user.txt"
    user.write_text("形態素解析器\n", encoding="utf-8")
    assert main(["segment", "train", str(base / "ja_gsd-ud-train.conllu"), "-o", str(model), "-d", "2", "-i", "3",
                 "--max-sentences", "300", "--quiet", "--keep-models", "--user-dictionary", str(user)]) == 0
    seg = conjunct.load(model)
    assert seg.dictionary and "形態素解析器" in seg.dictionary_.words
    texts = ["".join(s) for s in corpus[1][:30]]
    reference = seg.segment(texts)

    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(texts) + "\n\n"))
    assert main(["segment", "run", str(model), "-"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[:30] == [" ".join(w) for w in reference] and lines[30] == ""

    # Whitespace in the input is a boundary; another method gives the same words.
    raw = tmp_path / "raw.txt"
    raw.write_text(texts[0] + " " + texts[1] + "\n")
    out_file = tmp_path / "out.txt"
    assert main(["segment", "run", str(model), str(raw), "-o", str(out_file), "--method", "pke"]) == 0
    assert out_file.read_text() == " ".join(reference[0] + reference[1]) + "\n"

    assert main(["segment", "eval", str(model), str(base / "ja_gsd-ud-test.conllu")]) == 0
    out = capsys.readouterr().out
    assert "F1" in out and "classifications/s" in out


def test_cli_errors(tmp_path, capsys):
    from conjunct.cli import main

    assert main(["segment", "train", str(tmp_path / "missing.conllu"), "-o", str(tmp_path / "m.cjm")]) == 2
    assert "missing.conllu" in capsys.readouterr().err


# -- the word-dictionary flags --------------------------------------------------------------------------------
def test_dictionary_flags_hand_case():
    from conjunct.tasks.segment.dictionary import WordDictionary, flag_names

    d = WordDictionary(["日本", "日本語", "語", "本語です", "x y", ""])  # words with whitespace or empty are not kept
    assert sorted(d.words) == ["日本", "日本語", "本語です", "語"]
    flags = d.flags("日本語です").tolist()
    # boundary 1 (日|本): 本語です starts, 日本 and 日本語 span it; 2 (本|語): 日本 ends, 語 starts
    assert flag_names(flags[1]) == ["dR4", "dI2", "dI3"]
    assert flag_names(flags[2]) == ["dL2", "dR1", "dI3", "dI4"]
    assert flag_names(flags[3]) == ["dL1", "dL3", "dI4"]
    assert flag_names(flags[4]) == ["dI4"]
    f = boundary_features("日本語です", 2, ngram=1, dictionary=d)
    assert f[-4:] == ["dL2", "dR1", "dI3", "dI4"]


def test_longest_match_flags_hand_case():
    from conjunct.tasks.segment.dictionary import WordDictionary, flag_names

    d = WordDictionary(["日本", "日本語", "語", "の", "本語の"])
    text = "日本語の日本"
    # from the left: 日本語|の|日本; from the right: 日|本語の|日本 (日本 ends the text, then 本語の, then 日)
    flags = d.flags(text, longest_match=True).tolist()
    assert [b for b in range(1, len(text)) if "dM1" in flag_names(flags[b])] == [3, 4]
    assert [b for b in range(1, len(text)) if "dM2" in flag_names(flags[b])] == [1, 4]
    assert d.flags(text).tolist() == [f & ~(3 << 12) for f in flags]  # off by default: the other flags alike
    # an unknown character is a word of its own
    flags = WordDictionary(["ab"]).flags("xaby", longest_match=True).tolist()
    assert [b for b in range(1, 4) if "dM1" in flag_names(flags[b])] == [1, 3]
    assert [b for b in range(1, 4) if "dM2" in flag_names(flags[b])] == [1, 3]
    assert boundary_features(text, 4, ngram=1, dictionary=d, longest_match=True)[-2:] == ["dM1", "dM2"]
    assert "dM1" not in boundary_features(text, 4, ngram=1, dictionary=d)


@pytest.mark.realdata
def test_longest_match_segmenter_round_trip(corpus, tmp_path):
    seg = WordSegmenter(degree=1, n_iter=2, longest_match=True).fit(corpus[0][:100])
    texts = ["".join(s) for s in corpus[1][:30]]
    words = seg.segment(texts)
    assert words == segment_reference(seg.classifier_, texts, dictionary=seg.dictionary_, longest_match=True)
    seg.save(tmp_path / "lm.cjt")
    loaded = conjunct.load(tmp_path / "lm.cjt")
    assert loaded.longest_match is True and loaded.segment(texts) == words
    # A file written before the setting has no longest-match flags: it loads as it was.
    plain = WordSegmenter(degree=1, n_iter=2).fit(corpus[0][:100])
    kind, meta, arrays = plain.to_container()
    meta["config"].pop("longest_match")
    conjunct.io.model_io.write_container(tmp_path / "old.cjt", kind, meta, arrays)
    old = conjunct.load(tmp_path / "old.cjt")
    assert old.longest_match is False and old.segment(texts) == plain.segment(texts)


def test_fold_dictionaries_leave_out_the_sentence_fold():
    from conjunct.tasks.segment.dictionary import fold_dictionaries

    sentences = [["a", "b"], ["b", "c"], ["c", "d"], ["a"]]
    dicts = fold_dictionaries(sentences, 2, extra=["z"])
    # Folds: sentences 0, 2 and 1, 3; a sentence sees the other fold's words.
    assert dicts[0] is dicts[2] and sorted(dicts[0].words) == ["a", "b", "c", "z"]
    assert dicts[1] is dicts[3] and sorted(dicts[1].words) == ["a", "b", "c", "d", "z"]
    assert sorted(fold_dictionaries(sentences, 1)[3].words) == ["a", "b", "c", "d"]


def test_user_dictionary_file(tmp_path):
    from conjunct.tasks.segment.dictionary import read_user_dictionary

    path = tmp_path / "user.txt"
    path.write_text("# names\n形態素\n\n  京都大学 \n", encoding="utf-8")
    assert read_user_dictionary(path) == ["形態素", "京都大学"]
    path.write_text("形態素\n二つ の語\n", encoding="utf-8")
    with pytest.raises(conjunct.DataFormatError, match="line 2: a dictionary word holds whitespace"):
        read_user_dictionary(path)


@pytest.mark.realdata
def test_user_dictionary_words_are_known(corpus, tmp_path):
    path = tmp_path / "user.txt"
    path.write_text("形態素解析器\n", encoding="utf-8")
    seg = WordSegmenter(degree=1, n_iter=2, user_dictionary=str(path)).fit(corpus[0][:100])
    assert "形態素解析器" in seg.dictionary_.words
    saved = tmp_path / "seg.cjm"
    seg.save(saved)
    loaded = conjunct.load(saved)
    assert loaded.dictionary_.words == seg.dictionary_.words
    texts = ["形態素解析器で文を解析した。"] + ["".join(s) for s in corpus[1][:30]]
    assert loaded.segment(texts) == seg.segment(texts) == segment_reference(seg.classifier_, texts, dictionary=seg.dictionary_)


@pytest.mark.realdata
def test_dictionary_flags_improve_a_small_model(corpus):
    # The flags are what KyTea adds to character n-grams: on 400 sentences they help.
    plain = WordSegmenter(degree=1, n_iter=5, dictionary=False).fit(corpus[0])
    assert plain.dictionary_ is None
    assert "dL1" not in plain.classifier_.features.names
    with_dict = WordSegmenter(degree=1, n_iter=5).fit(corpus[0])
    assert with_dict.evaluate(corpus[1])["f1"] > plain.evaluate(corpus[1])["f1"]


@pytest.mark.realdata
def test_file_without_dictionary_loads_as_before(corpus, tmp_path):
    # A file written before the dictionary flags: no dictionary in its config.
    seg = WordSegmenter(degree=1, n_iter=2, dictionary=False).fit(corpus[0][:100])
    texts = ["".join(s) for s in corpus[1][:30]]
    kind, meta, arrays = seg.to_container()
    for key in ("dictionary", "dictionary_folds", "user_dictionary"):
        meta["config"].pop(key)
    path = tmp_path / "old.cjm"
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    loaded = conjunct.load(path)
    assert loaded.dictionary is False and loaded.segment(texts) == seg.segment(texts)
    # A file that says it has dictionary flags but holds no words is refused.
    meta["config"]["dictionary"] = True
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    with pytest.raises(conjunct.ModelFormatError, match="dictionary_words"):
        conjunct.load(path)


def test_dictionary_words_refuse_exactly_whitespace_and_the_separator():
    """The regex check of a dictionary word equals its definition on every code point."""
    from conjunct.tasks.segment.dictionary import MAX_WORD, _usable

    for c in range(0x110000):
        ch = chr(c)
        assert _usable(ch) is not (ch.isspace() or ch == "\x02")
    assert _usable("a" * MAX_WORD) and not _usable("a" * (MAX_WORD + 1)) and not _usable("")


@pytest.mark.realdata
def test_type_ngram_round_trip_and_files_without_it(corpus, tmp_path):
    # Longer type n-grams are read by both paths and kept by the file; a file
    # written before the setting (no type_ngram in its config) reads type n-grams as long as ngram.
    seg = WordSegmenter(degree=1, n_iter=2, ngram=3, type_ngram=5).fit(corpus[0][:100])
    texts = ["".join(s) for s in corpus[1][:30]]
    assert any(n.startswith("t-3:5=") for n in seg.classifier_.features.names)
    assert seg.segment(texts) == segment_reference(seg.classifier_, texts, 3, seg.dictionary_, type_ngram=5)
    path = tmp_path / "t5.cjm"
    seg.save(path)
    loaded = conjunct.load(path)
    assert loaded.type_ngram == 5 and loaded.segment(texts) == seg.segment(texts)
    old = WordSegmenter(degree=1, n_iter=2).fit(corpus[0][:100])
    kind, meta, arrays = old.to_container()
    meta["config"].pop("type_ngram")
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    loaded = conjunct.load(path)
    assert loaded.type_ngram is None and loaded.segment(texts) == old.segment(texts)
    # A file whose type_ngram does not match its features is refused.
    meta["config"]["type_ngram"] = 4
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    with pytest.raises(conjunct.ModelFormatError, match="retrain it"):
        conjunct.load(path)
    meta["config"]["type_ngram"] = 7
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    with pytest.raises(conjunct.ModelFormatError, match="type_ngram"):
        conjunct.load(path)
