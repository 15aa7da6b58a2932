"""The English tokenizer and sentence splitter: gold data from a treebank's
raw text, its decisions against the one-at-a-time reference, and the text
pipeline from raw text: offsets, multiword tokens, rebuilding the input from
the output, and hostile input."""

import pytest

import conjunct
from conjunct import DataFormatError
from conjunct.analysis import EnglishTextPipeline
from conjunct.analysis.rawtext import read_paragraphs
from conjunct.analysis.result import unescape_spaces
from conjunct.cli import main
from conjunct.io.corpora import iter_conllu
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
from conjunct.tasks.tokenize import (EnglishTokenizer, TokenizedText, gap_labels, read_tokenized_conllu, shape,
                                     tokenization_scores, tokenize_reference)
from helpers import reference_gap_rows

SMALL = {"dense_features": 64}


@pytest.fixture(scope="module")
def ewt_raw(shared_data):
    base = shared_data / "ud_english_ewt"
    return read_tokenized_conllu(base / "en_ewt-ud-train.conllu")[:40], read_tokenized_conllu(base / "en_ewt-ud-dev.conllu")[:20]


@pytest.fixture(scope="module")
def tokenizer(ewt_raw):
    return EnglishTokenizer(n_iter=2, method_params=SMALL).fit(ewt_raw[0])


@pytest.fixture(scope="module")
def english(tokenizer, shared_data):
    train = read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:120]
    return EnglishTextPipeline(PerceptronTagger(n_iter=2), EnglishDependencyParser(n_iter=1, method_params=SMALL),
                               tokenizer=tokenizer, folds=2).fit(train).replace(tokenizer=tokenizer)


# -- gold data -------------------------------------------------------------------------------------------
def test_treebank_paragraphs_spell_their_tokens(ewt_raw):
    for p in ewt_raw[0]:
        assert sum(p.sentence_lengths) == len(p.spans)
        covered = set()
        for (a, b), words in zip(p.spans, p.words):
            assert p.text[a:b] == "".join(words) and not any(c.isspace() for c in p.text[a:b])
            covered.update(range(a, b))
        assert all(p.text[i].isspace() for i in range(len(p.text)) if i not in covered)
    first = ewt_raw[0][0]
    assert first.text.startswith("Al-Zaman : American forces killed")
    assert first.tokens()[:4] == ["Al", "-", "Zaman", ":"]
    multi = [w for p in ewt_raw[0] for w in p.words if len(w) > 1]
    assert multi and all(len(w) == 2 for w in multi)


def test_gap_labels_mark_tokens_and_multiword_words():
    text = "I can't go."
    t = TokenizedText(text, [(0, 1), (2, 7), (8, 10), (10, 11)], [("I",), ("ca", "n't"), ("go",), (".",)], [4])
    labels = gap_labels(t)
    # only gaps between two non-space characters are decided
    assert sorted(labels) == [3, 4, 5, 6, 9, 10]
    assert labels[4] == "2" and labels[10] == "1" and labels[3] == labels[5] == labels[6] == labels[9] == "0"


def test_shape():
    assert [shape(w) for w in ("Mr.", "U.S.", "1990s", "dog", "!!!")] == ["Xx.", "X.X.", "dx", "x", "!"]


def test_reader_refuses_text_that_does_not_match(tmp_path):
    f = tmp_path / "bad.conllu"
    f.write_text("# text = The cat\n1\tThe\t_\t_\t_\t_\t0\troot\t_\t_\n2\tdog\t_\t_\t_\t_\t1\tdep\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="does not match"):
        read_tokenized_conllu(f)


# -- decisions -----------------------------------------------------------------------------------------------
def test_batched_tokenizer_equals_reference(tokenizer, ewt_raw):
    texts = [p.text for p in ewt_raw[1][:8]] + ["I can't believe it's 5 p.m. already!! Mr. Smith said:\"no\".", "x", "",
                                               "  ", "a\u00a0b\tc\n", "Mail me at <a.b...@mail.com> or see http://x.org/a-b."]
    assert tokenizer.links and tokenizer.link_spans and len(tokenizer.dictionary_) > 500  # the training tokens
    expected = tokenize_reference(tokenizer.classifiers_["boundary"], tokenizer.classifiers_["sentence"], texts,
                                  dictionary=tokenizer.dictionary_, links=True, link_spans=True)
    got = tokenizer.tokenize(texts)
    assert [(t.spans, t.words, t.sentence_lengths) for t in got] == [(t.spans, t.words, t.sentence_lengths) for t in expected]


def test_tokenizer_learns_ewt_conventions(tokenizer, ewt_raw):
    scores = tokenizer.evaluate(ewt_raw[1])
    assert scores["tokens_f1"] > 0.9 and scores["words_f1"] > 0.9  # 40 training paragraphs, 2 epochs
    out = tokenizer.tokenize(["The dog barked at the mailman, and he ran away."])[0]
    assert out.tokens()[-2:] == ["away", "."] and "mailman" in out.tokens() and "," in out.tokens()


def test_tokenizer_model_file_round_trips(tokenizer, ewt_raw, tmp_path):
    path = tmp_path / "tok.cjm"
    tokenizer.save(path)
    back = conjunct.load(path)
    texts = [p.text for p in ewt_raw[1]]
    assert [t.spans for t in back.tokenize(texts)] == [t.spans for t in tokenizer.tokenize(texts)]
    assert tokenization_scores(ewt_raw[1], back.tokenize(texts))["words_f1"] == back.score(ewt_raw[1])


def test_piece_kind():
    from conjunct.tasks.tokenize.features import piece_features, piece_kind

    assert [piece_kind(p) for p in ("http://x.org", "www.x", "<a...@b.com>", "a@b", "U.S.", "@home.")] == \
        ["link", "link", "link", None, None, "link"]
    assert piece_features("see <a@b.co>", 5, links=True)[-1] == "K=link"
    assert "K=link" not in piece_features("see <a@b.co>", 2, links=True) + piece_features("see <a@b.co>", 5)


def test_link_span_finds_the_address_without_quotes_brackets_or_final_stop():
    from conjunct.tasks.tokenize.features import link_span, piece_features

    cases = {'Reynolds"<rreynol...@cog.com>': (10, 28), "'http://go.msn.com/a_b.asp'": (1, 26),
             "www.adobe.com.": (0, 13), "(see:www.x.org),": (5, 14), "mailto:a@b.c": (7, 12), "U.S.": None, "a@b": None, "@home.": (0, 5)}
    for piece, span in cases.items():
        assert link_span(piece) == span, piece
    text = 'x "Al"<a@b.co> y'
    assert [piece_features(text, b, spans=True)[-1] for b in (5, 6, 7, 8, 13)] == \
        ["N=y", "N=y", "U=edge", "U=in", "U=edge"]  # none at the quotes and between them and the bracket
    assert not any(f.startswith("U=") for b in (5, 7) for f in piece_features(text, b))


@pytest.mark.parametrize("type_ngram", [None, 5])
def test_engine_link_spans_and_type_ngrams_equal_reference(ewt_raw, type_ngram):
    # The C++ engine computes the same "U=" features and type n-grams as the reference path.
    from conjunct import _core
    from conjunct.features.index import FeatureIndex
    from conjunct.features.spec import FeatureKeys
    from conjunct.tasks.segment.features import feature_lists
    from conjunct.tasks.segment.runner import text_buffers
    from conjunct.tasks.tokenize.features import gap_piece_features, gap_spec
    from conjunct.tasks.tokenize.oracle import decided_gaps

    def reference(text):
        gaps = decided_gaps(text).tolist()
        return gaps, [f + p for f, p in zip(feature_lists(text, gaps, 3, None, type_ngram),
                                            gap_piece_features(text, gaps, links=True, spans=True))]

    texts = [p.text for p in ewt_raw[1][:10]] + [
        'Email: "Julie"<julie...@bells.net> or \'http://go.msn.com/x_y.asp\' (www.adobe.com).', "a@b.c@d.e,",
        "ünï@cödé.de http://ü.example/ä www. ://", "x", ""]
    index = FeatureIndex.from_data(f for t in [p.text for p in ewt_raw[0]] + texts for f in reference(t)[1])
    keys = FeatureKeys.from_names(gap_spec(3, False, True, True, type_ngram), index.names)
    positions, _, indptr, ids = _core.BoundaryFeatures(tables=keys.tables()).features(*text_buffers(texts), "inner")
    rows = [ids[a:b].tolist() for a, b in zip(indptr[:-1].tolist(), indptr[1:].tolist())]
    expected_gaps, expected = reference_gap_rows(texts, reference, index)
    assert positions.tolist() == expected_gaps and rows == expected
    link = {index.get("U=in"), index.get("U=edge")}
    assert -1 not in link and sum(len(link & set(r)) for r in rows) > 40


def test_tokenizer_with_link_spans_round_trips(ewt_raw, tmp_path):
    tok = EnglishTokenizer(n_iter=1, type_ngram=4, method_params=SMALL).fit(ewt_raw[0][:20])
    path = tmp_path / "tok.cjm"
    tok.save(path)
    back = conjunct.load(path)
    assert back.link_spans and back.type_ngram == 4
    texts = [p.text for p in ewt_raw[1]] + ['Email: "Julie"<julie...@bells.net>']
    expected = tokenize_reference(tok.classifiers_["boundary"], tok.classifiers_["sentence"], texts,
                                  dictionary=tok.dictionary_, links=True, link_spans=True, type_ngram=4)
    assert [t.spans for t in back.tokenize(texts)] == [t.spans for t in expected]


def test_tokenizer_file_without_the_new_features_loads_as_before(ewt_raw, tmp_path):
    # A file written before the dictionary flags and the piece kinds has neither in its config.
    old = EnglishTokenizer(n_iter=1, dictionary=False, links=False, link_spans=False,
                           method_params=SMALL).fit(ewt_raw[0][:20])
    kind, meta, arrays = old.to_container()
    for key in ("dictionary", "dictionary_folds", "links", "link_spans", "type_ngram"):
        meta["config"].pop(key)
    path = tmp_path / "old.cjm"
    conjunct.io.model_io.write_container(path, kind, meta, arrays)
    back = conjunct.load(path)
    texts = [p.text for p in ewt_raw[1]]
    assert not back.dictionary and not back.links and not back.link_spans and back.type_ngram is None
    assert [t.spans for t in back.tokenize(texts)] == [t.spans for t in old.tokenize(texts)]


def test_tokenizer_refuses_non_text(tokenizer):
    with pytest.raises(TypeError, match="sequence of texts"):
        tokenizer.tokenize("a text")
    with pytest.raises(TypeError, match="text 2"):
        tokenizer.tokenize(["fine", 3])
    with pytest.raises(DataFormatError, match="text 1.*surrogate"):
        tokenizer.tokenize(["bad \ud800 text"])


# -- the text pipeline from raw text ---------------------------------------------------------------------------
def _rebuild(conllu: str) -> str:
    """The input text from CoNLL-U output: each token's SpacesBefore, form and the whitespace after it."""
    out = []
    for s in iter_conllu(__import__("io").StringIO(conllu)):
        lines = [line.split("\t") for line in s.lines if not line.startswith("#")]
        k = 0
        while k < len(lines):
            cols = lines[k]
            misc = dict(m.split("=", 1) for m in cols[9].split("|") if "=" in m)
            if "TokenRange" in misc:
                out.append(unescape_spaces(misc.get("SpacesBefore", "")))
                out.append(cols[1])
                out.append("" if misc.get("SpaceAfter") == "No" else unescape_spaces(misc.get("SpacesAfter", "\\s")))
            k += int(cols[0].split("-")[1]) - int(cols[0].split("-")[0]) + 2 if "-" in cols[0] else 1
    return "".join(out)


def _offsets_match(conllu: str, text: str) -> None:
    for s in iter_conllu(__import__("io").StringIO(conllu)):
        spans = []
        for line in s.lines:
            cols = line.split("\t")
            if line.startswith("#") or len(cols) != 10 or "TokenRange=" not in cols[9]:
                continue
            a, b = map(int, dict(m.split("=", 1) for m in cols[9].split("|"))["TokenRange"].split(":"))
            assert text[a:b] == cols[1]
            spans.append((a, b))
        sent = [line[len("# text = "):] for line in s.lines if line.startswith("# text = ")][0]
        assert sent == "".join(" " if c.isspace() else c for c in text[spans[0][0]:spans[-1][1]])


def test_analyze_text_keeps_offsets_and_multiword_tokens(english):
    text = "The dog barked at the mailman, and he ran away. I can't believe it's true!"
    (sentences,) = english.analyze_text([text])
    tokens = [(a, b) for s in sentences for a, b, _ in s.tokens]
    assert "".join(text[a:b] + s.spaces_after[k] for s in sentences for k, (a, b, _) in enumerate(s.tokens)) == text
    forms = [f for s in sentences for f in s.forms]
    assert forms[-9:] == ["I", "ca", "n't", "believe", "it", "'s", "true", "!"][-9:] or "n't" in forms
    assert all(len(s.heads) == len(s.forms) for s in sentences)
    conllu = "".join(s.to_conllu() for s in sentences)
    assert "TokenRange=0:3" in conllu and any("-" in line.split("\t")[0] for line in conllu.splitlines() if "\t" in line)
    assert tokens[0] == (0, 3)


def test_cli_raw_text_round_trips_exactly(english, tmp_path, capsys):
    model = tmp_path / "en.cjt"
    english.save(model)
    text = ("  The dog barked at the mailman, and he ran away.  He's fast!\n"
            "A second line of the same paragraph\twith a tab.\n\n\n"
            "    Another paragraph: it can't end here... or can it?\n")
    src = tmp_path / "raw.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["analyze", str(model), str(src), "-o", str(out)]) == 0
    conllu = out.read_text(encoding="utf-8")
    assert _rebuild(conllu) == text
    _offsets_match(conllu, text)
    assert conllu.count("# newpar") == 2
    # --tokenized: one sentence per line of tokens, as a model without a tokenizer reads
    tok = tmp_path / "tok.txt"
    tok.write_text("The dog barked .\nI saw her\n", encoding="utf-8")
    assert main(["analyze", str(model), str(tok), "-o", str(out), "--tokenized"]) == 0
    assert [s.column("form") for s in iter_conllu(out)] == [["The", "dog", "barked", "."], ["I", "saw", "her"]]
    # CoNLL-U in: its FORMs are the tokens, the tokenizer does not run
    conllu_in = tmp_path / "in.conllu"
    conllu_in.write_text("# sent_id = a\n1\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n2\tgo.\t_\t_\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    assert main(["analyze", str(model), str(conllu_in), "-o", str(out)]) == 0
    (s,) = iter_conllu(out)
    assert s.column("form") == ["can't", "go."] and s.lines[0] == "# sent_id = a" and "TokenRange" not in out.read_text()
    capsys.readouterr()


@pytest.mark.slow
def test_hostile_raw_text_is_analysed_or_refused_with_its_line(english, tmp_path, capsys):
    model = tmp_path / "en.cjt"
    english.save(model)
    long_line = ("".join(chr(97 + k % 26) for k in range(99)) + " ") * ((1 << 20) // 100)  # a 1 MB line (of long pieces)
    text = ("Emoji 😀👍🏽 and flags 🇯🇵 here.\nNUL \x00 and bell \x07 and escape \x1b[0m inside.\n\n"
            "Zero-width\u200bjoiner, RTL \u202e text, combining e\u0301 and \ufeff mid-text.\n\n"
            "Odd spaces:\x0b\x0c\x1c\x85\u2028\u3000\u00a0between words.\n\n"
            "\x00\x00\x00\n\n" + long_line + "\n\nThe end.")
    src = tmp_path / "hostile.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["analyze", str(model), str(src), "-o", str(out)]) == 0
    conllu = out.read_text(encoding="utf-8")
    assert _rebuild(conllu) == text  # every input character is in some sentence or in the whitespace around them
    sentences = list(iter_conllu(out))
    assert sum(len(s.words) for s in sentences) >= len(text.split())
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Fine text.\n\nAnother fine line.\nbroken \xff\xfe here\n")
    assert main(["analyze", str(model), str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt:4" in err and "not UTF-8" in err
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\t\n", encoding="utf-8")
    assert main(["analyze", str(model), str(empty), "-o", str(out)]) == 2
    assert "no sentences" in capsys.readouterr().err


def test_paragraphs_spell_the_input_exactly():
    import io

    text = "\n\n  a b\nc\n\n\n d\n\ne"
    paragraphs = list(read_paragraphs(io.StringIO(text)))
    assert "".join(p.text for p in paragraphs) == text
    assert [p.line for p in paragraphs] == [3, 7, 9]
    assert [p.offset for p in paragraphs] == [0, len("\n\n  a b\nc\n\n\n"), len("\n\n  a b\nc\n\n\n d\n\n")]


def test_model_without_tokenizer_reads_tokens_per_line(english, tmp_path, capsys):
    """A pipeline saved before the tokenizer existed (no entry for it) loads and reads tokenized lines."""
    from conjunct.io import model_io

    kind, meta, arrays = english.replace(tokenizer=None).to_container()
    del meta["stages"]["tokenizer"]
    path = tmp_path / "old.cjt"
    model_io.write_container(path, kind, meta, arrays)
    old = conjunct.load(path)
    assert old.tokenizer is None
    src = tmp_path / "in.txt"
    src.write_text("The dog barked .\n", encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["analyze", str(path), str(src), "-o", str(out)]) == 0
    assert [s.column("form") for s in iter_conllu(out)] == [["The", "dog", "barked", "."]]
    with pytest.raises(conjunct.ConjunctError, match="no tokenizer"):
        old.analyze_text(["The dog barked."])
    capsys.readouterr()


def test_analyze_train_trains_the_tokenizer_from_the_treebank_text(shared_data, tmp_path, capsys):
    out = tmp_path / "m.cjt"
    treebank = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    assert main(["analyze", "train", "--lang", "en", str(treebank), "--max-sentences", "40", "-k", "2", "-i", "1",
                 "-o", str(out)]) == 0
    assert "tokenizer, tagger, parser" in capsys.readouterr().err
    nlp = conjunct.load(out)
    assert isinstance(nlp.tokenizer, EnglishTokenizer)
    src = tmp_path / "raw.txt"
    src.write_text("The dog barked. It ran away.\n", encoding="utf-8")
    result = tmp_path / "out.conllu"
    assert main(["analyze", str(out), str(src), "-o", str(result)]) == 0
    assert _rebuild(result.read_text(encoding="utf-8")) == src.read_text(encoding="utf-8")
    capsys.readouterr()
