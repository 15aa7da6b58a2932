"""The CoNLL 2018 shared task's evaluation (tokens, words, sentences, tags and
attachment over aligned words) on hand-made documents whose scores are worked
out by hand, multiword tokens included."""

import pytest

from conjunct.tasks.tokenize import EvalWord, conll18_scores, document_from_conllu


def W(form, upos="X", head=None, deprel="_", xpos="_"):
    return EvalWord(form, upos, xpos, head, deprel)


def plain(*forms_heads):
    """One sentence of single-word tokens: (form, upos, head, deprel)."""
    return [(f, [W(f, u, h, d)]) for f, u, h, d in forms_heads]


GOLD = [
    # "I can't go." : can't = ca + n't (a multiword token)
    [("I", [W("I", "PRON", 4, "nsubj")]), ("can't", [W("ca", "AUX", 4, "aux"), W("n't", "PART", 4, "advmod")]),
     ("go", [W("go", "VERB", 0, "root")]), (".", [W(".", "PUNCT", 4, "punct")])],
    plain(("Yes", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")),
]


def test_identical_documents_score_one():
    s = conll18_scores(GOLD, GOLD)
    for m in ("tokens", "sentences", "words", "upos", "uas", "las"):
        assert s[f"{m}_f1"] == 1.0
    assert (s["gold_tokens"], s["gold_words"], s["gold_sentences"]) == (6, 7, 2)


def test_multiword_token_split_as_two_tokens_still_aligns_its_words():
    # The system writes ca / n't as two tokens: tokens differ, the words align by LCS of forms.
    system = [
        [("I", [W("I", "PRON", 4, "nsubj")]), ("ca", [W("ca", "AUX", 4, "aux")]), ("n't", [W("n't", "PART", 4, "advmod")]),
         ("go", [W("go", "VERB", 0, "root")]), (".", [W(".", "PUNCT", 4, "punct")])],
        plain(("Yes", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")),
    ]
    s = conll18_scores(GOLD, system)
    # tokens: gold 6, system 7, correct 5 (all but can't / ca / n't)
    assert s["tokens_precision"] == pytest.approx(5 / 7) and s["tokens_recall"] == pytest.approx(5 / 6)
    assert s["words_f1"] == 1.0
    # Every head maps to the aligned gold word (system word 4 = gold word 4): all attachments right.
    assert s["uas_f1"] == 1.0 and s["las_f1"] == 1.0


def test_wrong_multiword_split_aligns_only_matching_forms():
    # can't as one token of words "can" + "'t": neither matches "ca" / "n't" by form.
    system = [
        [("I", [W("I", "PRON", 4, "nsubj")]), ("can't", [W("can", "AUX", 4, "aux"), W("'t", "PART", 4, "advmod")]),
         ("go", [W("go", "VERB", 0, "root")]), (".", [W(".", "PUNCT", 4, "punct")])],
        plain(("Yes", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")),
    ]
    s = conll18_scores(GOLD, system)
    assert s["tokens_f1"] == 1.0
    assert s["words_precision"] == pytest.approx(5 / 7) and s["words_recall"] == pytest.approx(5 / 7)
    assert s["upos_aligned_accuracy"] == 1.0 and s["upos_f1"] == pytest.approx(5 / 7)


def test_sentence_split_and_attachment_scores():
    # One system sentence for both gold ones; "!" attached to "go" with the wrong relation subtype only.
    system = [[("I", [W("I", "PRON", 4, "nsubj")]), ("can't", [W("ca", "AUX", 4, "aux"), W("n't", "PART", 4, "advmod")]),
               ("go", [W("go", "VERB", 0, "root")]), (".", [W(".", "PUNCT", 4, "punct")]),
               ("Yes", [W("Yes", "INTJ", 4, "parataxis")]), ("!", [W("!", "PUNCT", 6, "punct:x")])]]
    s = conll18_scores(GOLD, system)
    assert s["sentences_precision"] == 0.0 and s["sentences_recall"] == 0.0
    assert s["words_f1"] == 1.0
    # "Yes" is a root in gold, attached to "go" in the system: wrong; "!" -> "Yes" right, and the
    # relation subtype is ignored (punct:x == punct).
    assert s["uas_f1"] == pytest.approx(6 / 7) and s["las_f1"] == pytest.approx(6 / 7)


def test_token_boundary_errors_cost_words_and_heads():
    gold = [plain(("New", "PROPN", 2, "compound"), ("York", "PROPN", 0, "root"), (".", "PUNCT", 2, "punct"))]
    system = [plain(("NewYork", "PROPN", 0, "root"), (".", "PUNCT", 1, "punct"))]
    s = conll18_scores(gold, system)  # whitespace aside the texts agree
    assert s["words_precision"] == pytest.approx(1 / 2) and s["words_recall"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="differ at non-whitespace character 6"):
        conll18_scores(gold, [plain(("New", "PROPN", 0, "root"), ("Yolk.", "PUNCT", 1, "punct"))])
    gold = [plain(("New", "PROPN", 2, "compound"), ("York.", "PROPN", 0, "root"))]
    system = [plain(("New", "PROPN", 2, "compound"), ("York", "PROPN", 0, "root"), (".", "PUNCT", 2, "punct"))]
    s = conll18_scores(gold, system)
    assert s["tokens_precision"] == pytest.approx(1 / 3) and s["tokens_recall"] == pytest.approx(1 / 2)
    assert s["words_precision"] == pytest.approx(1 / 3) and s["words_recall"] == pytest.approx(1 / 2)
    # "New" is aligned and its gold head (York.) has no aligned system word: not attached right.
    assert s["uas_f1"] == 0.0


def test_multiword_tokens_overlapping_differently():
    # Gold: "dont" = do + nt; system: "do" and "nt" plus "n" -- regions extend over both sides.
    gold = [[("dont", [W("do", "AUX", 0, "root"), W("nt", "PART", 1, "advmod")]), ("go", [W("go", "VERB", 1, "xcomp")])]]
    system = [[("do", [W("do", "AUX", 0, "root")]), ("ntgo", [W("nt", "PART", 1, "advmod"), W("go", "VERB", 1, "xcomp")])]]
    s = conll18_scores(gold, system)
    assert s["tokens_f1"] == 0.0
    assert s["words_f1"] == 1.0 and s["las_f1"] == 1.0


def test_document_from_conllu_reads_ranges(tmp_path):
    f = tmp_path / "g.conllu"
    f.write_text("# text = I can't\n1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                 "2\tca\tcan\tAUX\tMD\t_\t0\troot\t_\t_\n3\tn't\tnot\tPART\tRB\t_\t2\tadvmod\t_\t_\n3.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n\n",
                 encoding="utf-8")
    doc = document_from_conllu(f)
    assert [t for t, _ in doc[0]] == ["I", "can't"]
    assert [[w.form for w in ws] for _, ws in doc[0]] == [["I"], ["ca", "n't"]]
    assert doc[0][1][1][1].head == 2 and doc[0][1][1][1].xpos == "RB"


def test_raw_text_scores_reads_two_conllu_files(tmp_path):
    from conjunct.analysis.metrics import raw_text_scores

    gold, system = tmp_path / "g.conllu", tmp_path / "s.conllu"
    gold.write_text("1\tI\t_\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n"
                    "2\tca\t_\tAUX\tMD\t_\t0\troot\t_\t_\n3\tn't\t_\tPART\tRB\t_\t2\tadvmod\t_\t_\n\n", encoding="utf-8")
    system.write_text("1\tI\t_\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n2\tcan't\t_\tAUX\tMD\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    s = raw_text_scores(gold, system)
    assert s["tokens_f1"] == 1.0 and s["words_recall"] == pytest.approx(1 / 3) and s["words_precision"] == pytest.approx(1 / 2)
