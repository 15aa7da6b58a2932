"""Taggers: fit / predict / score, feature lists, validation, persistence, CLI,
and exactness of every decoder on trained perceptron and HMM models."""

import pickle

import numpy as np
import pytest

import conjunct
from conjunct import ConjunctError, DataFormatError, ModelFormatError
from conjunct.cli import main
from conjunct.io.corpora import read_conllu
from conjunct.tagging import DECODERS, EXACT_DECODERS, Featurizer, HMMTagger, PerceptronTagger, word_shape
from conjunct.tagging.features import TokenFeatures


def toy_corpus(n=300, seed=0):
    """Determiner-adjective-noun-verb sentences; the tag depends on the word and
    (for ambiguous words) on the previous tag."""
    rng = np.random.default_rng(seed)
    det, adj, noun, verb = ["the", "a", "this"], ["big", "red", "old"], ["dog", "cat", "run", "walk"], ["run", "walk", "sees"]
    sents, tags = [], []
    for _ in range(n):
        s, t = [], []
        for _ in range(rng.integers(1, 3)):
            s.append(str(rng.choice(det))), t.append("D")
            if rng.random() < 0.5:
                s.append(str(rng.choice(adj))), t.append("A")
            s.append(str(rng.choice(noun))), t.append("N")
            s.append(str(rng.choice(verb))), t.append("V")
        sents.append(s), tags.append(t)
    return sents, tags


def test_word_shape_and_templates():
    assert word_shape("McDonald's") == "XxXx'x"
    assert word_shape("1,234.5") == "d,d.d"
    feats = Featurizer(["w", "s2", "w-1", "w-1|w", "shape|w+1"]).strings(["The", "Dogs"])
    assert feats[0] == ["w=The", "s2=he", "w-1=<s>", "w-1,w=<s>|The", "shape,w+1=Xx|dogs"]
    assert feats[1][-1] == "shape,w+1=Xx|</s>"
    with pytest.raises(ValueError, match="unknown feature template part 'w-3'"):
        Featurizer(["w", "w-3"])
    with pytest.raises(ValueError, match="unknown feature template part 'x'"):
        Featurizer(["w|x"])
    # A flag alone has no feature where it is off (conjoined, it has both values).
    assert Featurizer(["hyphen", "digit|w", "len"]).strings(["a-b", "c"]) == [
        ["hyphen=1", "digit,w=0|a-b", "len=3"], ["digit,w=0|c", "len=1"]]
    keys, _, _ = Featurizer(["hyphen", "w"]).build([["a-b", "c"]])
    assert keys.names() == ["hyphen=1", "w=a-b", "w=c"]
    assert Featurizer(["shape-1", "s2+1|title"]).strings(["The", "dogs"]) == [
        ["shape-1=<s>", "s2+1,title=gs|1"], ["shape-1=Xx", "s2+1,title=</s>|0"]]
    with pytest.raises(ValueError, match="at most 3 parts"):
        Featurizer(["w|w-1|w+1|s2"])


def test_feature_strings_are_unambiguous():
    # Issue 16: values joined by '|' must not run into each other, nor a word into a boundary marker.
    feat = Featurizer(["w|w+1", "w-1", "s2"])
    a, b = feat.strings(["a|b", "c"]), feat.strings(["a", "b|c"])
    assert a[0][0] == r"w,w+1=a\|b|c" and b[0][0] == r"w,w+1=a|b\|c"
    assert feat.strings(["<s>", "x"])[1][1] == r"w-1=\<s>" != feat.strings(["x"])[0][1] == "w-1=<s>"
    assert feat.strings(["a\\|"])[0][2] == r"s2=\\\|"
    every = {f for words in (["a|b", "c"], ["a", "b|c"], ["a\\", "|c"], ["a\\|", "c"]) for f in feat.strings(words)[0]}
    assert len([f for f in every if f.startswith("w,w+1=")]) == 4


def test_engine_ids_match_feature_strings():
    sents = [["The", "old", "man", "the", "boats", "."], ["Run", "!"], [], ["the", "the", "the"]]
    templates = ["bias", "w", "lw", "p2", "s3", "shape", "w-2", "w-1", "w+1", "w+2", "w-1|w", "w|w+1", "s3|w-1|shape"]
    feat = Featurizer(templates)
    keys, indptr, ids = feat.build(sents)
    names = keys.names()
    expected = [f for s in sents for f in feat.strings(s)]
    assert len(indptr) == len(expected) + 1
    for i, fs in enumerate(expected):
        assert [names[j] for j in ids[indptr[i]:indptr[i + 1]]] == fs
    # At run time, features the model lacks are left out and the others keep their ids.
    indptr2, ids2 = TokenFeatures(keys).encode([["The", "zebra"]])
    got = [[names[j] for j in ids2[indptr2[i]:indptr2[i + 1]]] for i in range(2)]
    assert got == [[f for f in fs if f in set(names)] for fs in feat.strings(["The", "zebra"])]


@pytest.mark.parametrize("cls", [PerceptronTagger, HMMTagger])
def test_fit_predict_learns_ambiguity(cls):
    X, Y = toy_corpus()
    tagger = cls().fit(X, Y)
    assert tagger.labels_[0] in ("D", "N", "V")  # most frequent first
    Xt, Yt = toy_corpus(100, seed=1)
    assert tagger.score(Xt, Yt) > 0.97
    # "run" is a noun after a determiner/adjective, a verb after a noun.
    assert tagger.predict([["the", "run", "run"]]) == [["D", "N", "V"]]


@pytest.mark.parametrize("cls", [PerceptronTagger, HMMTagger])
def test_every_exact_decoder_matches_viterbi_on_trained_models(cls):
    X, Y = toy_corpus()
    tagger = cls(n_iter=2) if cls is PerceptronTagger else cls()
    tagger.fit(X[:50], Y[:50])
    ref = tagger.decode(X, decoder="viterbi")
    for name in DECODERS:
        got = tagger.decode(X, decoder=name)
        if name in EXACT_DECODERS:
            np.testing.assert_allclose(got.scores, ref.scores, rtol=1e-9, atol=1e-9)
        else:
            assert np.all(got.scores <= ref.scores + 1e-9 * np.maximum(1, np.abs(ref.scores)))
        assert np.all(got.iterations >= 1)


def test_training_with_any_decoder_and_progress(capsys):
    X, Y = toy_corpus(150)
    for name in DECODERS:
        tagger = PerceptronTagger(decoder=name, n_iter=3, verbose=True).fit(X, Y)
        assert len(tagger.train_log_) == 3
        assert tagger.train_log_[-1]["token_errors"] <= tagger.train_log_[0]["token_errors"]
        assert tagger.score(X, Y) > 0.95
    err = capsys.readouterr().err
    assert "epoch 3/3" in err and "search steps/sentence (staggered-column)" in err


def test_feature_list_input_is_refused():
    X, Y = toy_corpus(100)
    F = [[[f"w={w}", f"prev={s[i - 1] if i else '<s>'}"] for i, w in enumerate(s)] for s in X]
    with pytest.raises(DataFormatError, match="sentence 1, token 1: .*word tokens.*feature lists"):
        PerceptronTagger(n_iter=5).fit(F, Y)
    with pytest.raises(DataFormatError, match="HMM needs word tokens"):
        HMMTagger().fit(F, Y)


def test_unseen_words_and_labels_only_from_training():
    X, Y = toy_corpus(100)
    tagger = PerceptronTagger(n_iter=3).fit(X, Y)
    out = tagger.predict([["zebra", "qux"], []])
    assert len(out[0]) == 2 and out[1] == [] and set(out[0]) <= set(tagger.labels_)
    hmm = HMMTagger().fit(X, Y)
    assert len(hmm.predict([["zebra", "qux", "the"]])[0]) == 3


def test_validation_errors():
    X, Y = toy_corpus(10)
    with pytest.raises(DataFormatError, match="sentence 2: .* tokens but .* tags"):
        PerceptronTagger().fit(X, [Y[0], Y[1][:-1]] + Y[2:])
    with pytest.raises(DataFormatError, match="10 sentences but 9"):
        PerceptronTagger().fit(X, Y[:9])
    with pytest.raises(DataFormatError, match="expected a list of tokens"):
        PerceptronTagger().fit(["the dog"], [["D", "N"]])
    with pytest.raises(DataFormatError, match="non-empty strings"):
        PerceptronTagger().fit([["the", ""]], [["D", "N"]])
    with pytest.raises(ConjunctError, match="unknown decoder"):
        PerceptronTagger(decoder="fast").fit(X, Y)
    with pytest.raises(ConjunctError, match="not fitted"):
        PerceptronTagger().predict(X)
    with pytest.raises(ConjunctError, match="n_iter"):
        PerceptronTagger(n_iter=0).fit(X, Y)


def test_hmm_words_looked_up_by_the_engine_as_by_a_dictionary():
    # The C++ token engine finds each word's feature, as a dictionary of the
    # training words would: escaped values, boundary-like words, non-ASCII
    # words, unknown words (feature 1) and a model restored from its file.
    X, Y = toy_corpus(50)
    odd = [["a|b", "<s>", "back\\slash", "東京", "</s>", "dog"], ["😀", "\\<s>", "x|y|z"]]
    hmm = HMMTagger(transition_smoothing=0.1, emission_smoothing=0.1).fit(X + odd, Y + [["N"] * 6, ["N"] * 3])
    queries = odd + [["zebra", "a|b", "<s>x", "A|B", "東京都"], [], ["dog"] * 3] + X[:5]
    for model in (hmm, HMMTagger.from_container(*hmm.to_container()[1:]), pickle.loads(pickle.dumps(hmm))):
        vocab = {w: i + 2 for i, w in enumerate(model.feature_names_[2:])}
        indptr, ids = model._encode(queries)
        want = [i for s in queries for w in s for i in (0, vocab.get(w, 1))]
        assert indptr.tolist() == list(range(0, len(want) + 1, 2)) and ids.tolist() == want
        assert model.predict(queries) == hmm.predict(queries)


def test_hmm_smoothing_chosen_on_held_out_sentences():
    from conjunct.tagging.hmm import EMISSION_GRID, TRANSITION_GRID
    X, Y = toy_corpus(200)
    hmm = HMMTagger().fit(X, Y)
    scores = hmm.smoothing_scores_
    assert len(scores) == len(TRANSITION_GRID) * len(EMISSION_GRID)
    best = max(r["accuracy"] for r in scores)
    chosen = [r for r in scores if (r["transition_smoothing"], r["emission_smoothing"])
              == (hmm.transition_smoothing_, hmm.emission_smoothing_)]
    assert chosen and chosen[0]["accuracy"] == best
    # The chosen model is the one a fixed choice of the same values gives.
    fixed = HMMTagger(transition_smoothing=hmm.transition_smoothing_, emission_smoothing=hmm.emission_smoothing_).fit(X, Y)
    assert fixed.smoothing_scores_ == [] and np.array_equal(fixed.model_.w_values, hmm.model_.w_values)
    # Held-out accuracy is what the table says: one pair re-checked by hand.
    r = scores[-1]
    held = [k % 10 == 9 for k in range(len(X))]
    part = HMMTagger(transition_smoothing=r["transition_smoothing"], emission_smoothing=r["emission_smoothing"]).fit(
        [x for x, h in zip(X, held) if not h], [y for y, h in zip(Y, held) if not h])
    assert part.score([x for x, h in zip(X, held) if h], [y for y, h in zip(Y, held) if h]) == pytest.approx(r["accuracy"])
    loaded = HMMTagger.from_container(*hmm.to_container()[1:])
    assert (loaded.transition_smoothing_, loaded.emission_smoothing_) == (hmm.transition_smoothing_, hmm.emission_smoothing_)
    for bad in (0, -1.0, float("nan"), "none", True):
        with pytest.raises(ConjunctError, match="positive number or 'auto'"):
            HMMTagger(emission_smoothing=bad).fit(X, Y)


@pytest.mark.parametrize("cls", [PerceptronTagger, HMMTagger])
def test_save_load_pickle(cls, tmp_path):
    X, Y = toy_corpus(120)
    tagger = cls(decoder="staggered").fit(X, Y)
    expected = tagger.decode(X)
    path = tmp_path / "tagger.cjt"
    tagger.save(path)
    for loaded in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(tagger))):
        assert type(loaded) is cls and loaded.get_params() == tagger.get_params()
        got = loaded.decode(X)
        assert got.tags == expected.tags
        np.testing.assert_array_equal(got.scores, expected.scores)
    unfitted = pickle.loads(pickle.dumps(cls(beam_width=7)))
    assert unfitted.beam_width == 7 and not hasattr(unfitted, "model_")
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFormatError, match="hash"):
        conjunct.load(path)


def test_taggers_of_earlier_feature_versions_are_refused_with_advice(tmp_path):
    X = [["a|b", "c", "<s>"], ["a", "b|c"]] * 10
    Y = [["A", "B", "C"], ["A", "B"]] * 10
    tagger = PerceptronTagger(n_iter=2).fit(X, Y)
    assert tagger.feature_version_ == 3 and "w,w+1=a\\|b|c" in tagger.feature_names_
    kind, meta, arrays = tagger.to_container()
    from conjunct.io import model_io

    # Version 1 (no feature_version) and 2 stored feature strings, not keys.
    old = {k: v for k, v in meta.items() if k not in ("feature_version", "keys")}
    strings = {k: v for k, v in arrays.items() if not k.startswith("keys.")}
    strings["names_blob"] = np.frombuffer(b"w=a", np.uint8)
    strings["names_offsets"] = np.array([0, 3], np.int64)
    for version, header in ((1, old), (2, {**old, "feature_version": 2}), (7, {**meta, "feature_version": 7})):
        path = tmp_path / f"old{version}.cjt"
        model_io.write_container(path, kind, header, strings if version < 7 else arrays)
        with pytest.raises(ModelFormatError, match=f"old{version}.cjt.*feature_version.*version {version}.*retrain it"):
            conjunct.load(path)


def test_read_conllu(tmp_path):
    p = tmp_path / "a.conllu"
    p.write_text("# sent_id = 1\n1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\tdo\tAUX\tVBP\tMood=Ind\t0\troot\t_\t_\n"
                 "2\tn't\tnot\tPART\tRB\t_\t1\tadvmod\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
                 "1\tyes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n")
    assert read_conllu(p) == [[("do", "VBP"), ("n't", "RB")], [("yes", "UH")]]
    assert read_conllu(p, fields=("form", "upos|feats"))[0][0] == ("do", "AUX|Mood=Ind")
    p.write_text("1\tdo\tdo\tAUX\tVBP\t_\t0\troot\t_\n")
    with pytest.raises(DataFormatError, match=r"a.conllu:1: expected 10 tab-separated"):
        read_conllu(p)
    p.write_text("1\ta\t_\t_\tX\t_\t0\troot\t_\t_\n3\tb\t_\t_\tX\t_\t1\tdep\t_\t_\n")
    with pytest.raises(DataFormatError, match=r"a.conllu:2: word id 3 out of sequence"):
        read_conllu(p)
    with pytest.raises(DataFormatError, match="unknown CoNLL-U field"):
        read_conllu(p, fields=("form", "pos"))


def test_cli_train_tag_eval_info(tmp_path, capsys):
    X, Y = toy_corpus(200)
    train = tmp_path / "train.txt"
    train.write_text("".join("".join(f"{w} {t}\n" for w, t in zip(s, ts)) + "\n" for s, ts in zip(X, Y)))
    model = tmp_path / "m.cjt"
    assert main(["tag", "train", str(train), "-o", str(model), "-i", "3", "--format", "columns"]) == 0
    assert "epoch 3/3" in capsys.readouterr().err
    raw = tmp_path / "raw.txt"
    raw.write_text("the\nrun\nrun\n\na\ncat\nsees\n")
    out = tmp_path / "out.txt"
    assert main(["tag", "run", str(model), str(raw), "-o", str(out), "--format", "columns"]) == 0
    assert out.read_text() == "the\tD\nrun\tN\nrun\tV\n\na\tD\ncat\tN\nsees\tV\n\n"
    capsys.readouterr()
    assert main(["tag", "eval", str(model), str(train), "--format", "columns", "--decoder", "staggered"]) == 0
    report = capsys.readouterr().out
    assert "accuracy 1.000000" in report and "search steps/sentence" in report
    assert main(["info", str(model)]) == 0
    assert "perceptron tagger" in capsys.readouterr().out
    assert main(["tag", "train", str(tmp_path / "missing.txt"), "-o", str(model)]) == 2
    assert "missing.txt: no such file" in capsys.readouterr().err


def test_cli_train_japanese_templates(tmp_path, capsys):
    # --templates japanese: the defaults and the words' character types, read back from the file.
    from conjunct.tagging import DEFAULT_TEMPLATES, JAPANESE_TEMPLATES

    train = tmp_path / "train.txt"
    train.write_text("日本 N\nの P\nカメラ N\n\n東京 N\nへ P\n行く V\n\n")
    for option, expected in (("default", DEFAULT_TEMPLATES), ("japanese", JAPANESE_TEMPLATES)):
        model = tmp_path / f"{option}.cjt"
        assert main(["tag", "train", str(train), "-o", str(model), "-i", "2", "--quiet", "--format", "columns",
                     "--templates", option]) == 0
        tagger = conjunct.load(model)
        assert tuple(tagger.templates or DEFAULT_TEMPLATES) == expected
        assert any(n.startswith("ctype=") for n in tagger.feature_names_) == (option == "japanese")
    assert JAPANESE_TEMPLATES == DEFAULT_TEMPLATES + ("ctype",)


def test_iter_words_streams_every_format(tmp_path, monkeypatch):
    import io

    from conjunct.tagging.io import iter_words, read_tagged

    conllu = tmp_path / "a.conllu"
    conllu.write_text("# text = I'm here\n1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_\n1\tI\t_\t_\tPRP\t_\t0\troot\t_\t_\n"
                      "2\t'm\t_\t_\tVBP\t_\t1\tcop\t_\t_\n3\there\t_\t_\tRB\t_\t1\tadvmod\t_\t_\n\n"
                      "1\tOK\t_\t_\tUH\t_\t0\troot\t_\t_\n")
    cols = tmp_path / "a.txt"
    cols.write_text("He PRP B-NP\n# NN I-NP\n\nruns VBZ B-VP\n")
    for path in (conllu, cols):
        assert list(iter_words(path)) == read_tagged(path, with_tags=False)[0]
    assert list(iter_words(cols)) == [["He", "#"], ["runs"]]  # '#' is a token outside CoNLL-U
    monkeypatch.setattr("sys.stdin", io.StringIO(conllu.read_text()))
    assert list(iter_words("-")) == [["I", "'m", "here"], ["OK"]]
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nb\n\nc\n"))
    assert list(iter_words("-")) == [["a", "b"], ["c"]]
    # Lazy: the first sentence comes before a bad later one is read.
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tfine\t_\t_\tX\t_\t0\troot\t_\t_\n\n1\tbroken\tline\n")
    words = iter_words(bad)
    assert next(words) == ["fine"]
    with pytest.raises(DataFormatError, match=r"bad.conllu:3: expected 10 tab-separated"):
        next(words)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(DataFormatError, match="no sentences"):
        list(iter_words(empty, format="columns"))


def test_cli_tag_in_batches(tmp_path, capsys):
    X, Y = toy_corpus(200)
    train = tmp_path / "train.txt"
    train.write_text("".join("".join(f"{w} {t}\n" for w, t in zip(s, ts)) + "\n" for s, ts in zip(X, Y)))
    model = tmp_path / "m.cjt"
    assert main(["tag", "train", str(train), "-o", str(model), "-i", "3", "--quiet"]) == 0
    raw = tmp_path / "raw.txt"
    raw.write_text("".join("\n".join(s) + "\n\n" for s in X[:25]))
    whole, batched = tmp_path / "whole.txt", tmp_path / "batched.txt"
    assert main(["tag", "run", str(model), str(raw), "-o", str(whole), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["tag", "run", str(model), str(raw), "-o", str(batched), "--batch-size", "10"]) == 0
    progress = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in progress] == ["tagged 10 sentences", "tagged 20 sentences",
                                                          "tagged 25 sentences"]
    assert batched.read_text() == whole.read_text()
    tagged = [block.splitlines() for block in whole.read_text().strip("\n").split("\n\n")]
    assert [[line.split("\t")[0] for line in block] for block in tagged] == X[:25]
    assert main(["tag", "run", str(model), str(raw), "--batch-size", "0"]) == 2
    assert "--batch-size must be at least 1" in capsys.readouterr().err
