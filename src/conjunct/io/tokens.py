"""Token streams people already have, as the taggers' and pipelines' sentences.

One sentence may be:

- a plain token list: ``["The", "bank", "closed"]``;
- NLTK-style ``(word, tag)`` pairs: ``[("The", "DT"), ("bank", "NN")]``
  (tuples; ``nltk.corpus.treebank.tagged_sents()`` gives these);
- a ``conllu.TokenList`` (the `conllu` package) or a list of its ``Token``
  dicts: the words are the ``form`` of the syntactic words (multi-word token
  ranges such as ``2-3`` and empty nodes such as ``8.1`` are left out, as
  CoNLL-U evaluation does);
- a spaCy ``Doc`` or ``Span``: the ``text`` of its tokens.

Anything else raises a :class:`~conjunct.DataFormatError` naming the sentence
and saying what it got and what is expected. Neither conllu nor spaCy is
needed unless such objects are passed (they are recognised by shape).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from .._errors import DataFormatError
from ._textin import check_no_surrogates, has_surrogate

__all__ = ["sentence_words", "sentence_tags", "sentence_columns", "as_sentences", "tags_of", "EXPECTED"]

#: What a sentence may be (for error messages).
EXPECTED = "a list of tokens (strings), (word, tag) pairs, a conllu TokenList, a spaCy Doc or Span"


def _is_spacy(sentence) -> bool:
    return hasattr(sentence, "vocab") and hasattr(sentence, "__iter__") and not isinstance(sentence, (list, tuple, str))


def _is_conllu_token(token) -> bool:
    return isinstance(token, dict) and "form" in token and "id" in token


def _syntactic(tokens) -> list:
    """CoNLL-U tokens that are syntactic words (integer ids)."""
    return [t for t in tokens if isinstance(t["id"], int)]


def _kind(sentence, k: int, source: str) -> str:
    if isinstance(sentence, (str, bytes)):
        raise DataFormatError(f"sentence {k + 1}: expected {EXPECTED}; got a string ({sentence[:40]!r}): "
                              "split it into tokens first", source)
    if _is_spacy(sentence):
        return "spacy"
    if not hasattr(sentence, "__len__") or not hasattr(sentence, "__getitem__"):
        raise DataFormatError(f"sentence {k + 1}: expected {EXPECTED}; got {type(sentence).__name__}", source)
    if len(sentence) == 0:
        return "words"
    first = sentence[0]
    if isinstance(first, str):
        return "words"
    if _is_conllu_token(first):
        return "conllu"
    if isinstance(first, tuple) and first and isinstance(first[0], str):
        return "pairs" if len(first) == 2 else "columns"
    if isinstance(first, list):
        return "features"
    raise DataFormatError(f"sentence {k + 1}: expected {EXPECTED}; got a {type(sentence).__name__} whose first "
                          f"token is {type(first).__name__} {first!r:.60}", source)


def sentence_words(sentence, k: int = 0, source: str = "<input>") -> list:
    """The tokens of one sentence as the taggers read them: word strings, or
    (feature-list input) the per-token feature lists unchanged."""
    kind = _kind(sentence, k, source)
    if kind == "columns":
        raise DataFormatError(f"sentence {k + 1}: expected {EXPECTED}; got a {type(sentence).__name__} whose first "
                              f"token is tuple {sentence[0]!r:.60} ({len(sentence[0])} columns, not a (word, tag) pair)",
                              source)
    if kind == "spacy":
        return [t.text for t in sentence]
    if kind == "conllu":
        return [t["form"] for t in _syntactic(sentence)]
    if kind == "pairs":
        words = []
        for i, tok in enumerate(sentence):
            if not (isinstance(tok, tuple) and len(tok) == 2):
                raise DataFormatError(f"sentence {k + 1}, token {i + 1}: expected a (word, tag) pair like the "
                                      f"first token, got {tok!r:.60}", source)
            words.append(tok[0])
        return words
    return list(sentence)


def sentence_tags(sentence, field: str = "upos", k: int = 0, source: str = "<input>") -> Optional[List[str]]:
    """The gold tags a sentence carries: the tag of (word, tag) pairs, a
    CoNLL-U ``field`` (``upos``, ``xpos``, ...), a spaCy token attribute
    (``tag_``, ``pos_``; ``upos`` means ``pos_``, ``xpos`` ``tag_``), or None for
    plain tokens."""
    kind = _kind(sentence, k, source)
    if kind == "pairs":
        return [t[1] for t in sentence]
    if kind == "conllu":
        tags = [t.get(field) for t in _syntactic(sentence)]
    elif kind == "spacy":
        attr = {"upos": "pos_", "xpos": "tag_"}.get(field, field)
        tags = [getattr(t, attr, None) for t in sentence]
    else:
        return None
    for i, tag in enumerate(tags):
        if not isinstance(tag, str) or not tag or tag == "_":
            raise DataFormatError(f"sentence {k + 1}, token {i + 1}: no {field} tag ({tag!r})", source)
    return tags


def sentence_columns(sentence, columns: Sequence[str] = ("form", "xpos"), k: int = 0,
                     source: str = "<input>") -> List[Tuple[str, ...]]:
    """One sentence as the pipelines' column tuples (word, tag, ...): pairs and
    tuples pass through; a TokenList / spaCy Doc gives its ``columns``."""
    kind = _kind(sentence, k, source)
    if kind == "conllu":
        return [tuple(str(t[c]) for c in columns) for t in _syntactic(sentence)]
    if kind == "spacy":
        attrs = [{"form": "text", "upos": "pos_", "xpos": "tag_", "lemma": "lemma_"}.get(c, c) for c in columns]
        return [tuple(str(getattr(t, a)) for a in attrs) for t in sentence]
    if kind in ("words", "features"):
        raise DataFormatError(f"sentence {k + 1}: this pipeline needs tokens with columns {tuple(columns)} "
                              "(tuples, a conllu TokenList or a spaCy Doc), got plain tokens", source)
    return list(sentence)


def as_sentences(sentences: Any, source: str = "<input>") -> list:
    """Every sentence's tokens (:func:`sentence_words`); a single sentence
    passed where a list of sentences is expected is refused."""
    if isinstance(sentences, (str, bytes)):
        raise DataFormatError(f"expected a list of sentences, got a string ({sentences[:40]!r})", source)
    if _is_spacy(sentences):
        raise DataFormatError("expected a list of sentences, got one spaCy Doc: pass [doc] (or list(doc.sents))", source)
    sentences = list(sentences)
    if sentences and _is_conllu_token(sentences[0]):
        raise DataFormatError("expected a list of sentences, got one conllu TokenList: pass [token_list]", source)
    out = [sentence_words(s, k, source) for k, s in enumerate(sentences)]
    for k, words in enumerate(out):
        if words and isinstance(words[0], str):
            try:
                text = "".join(words)
            except TypeError:
                continue  # a non-string token: the taggers' own checks name it
            if has_surrogate(text):
                i = next(i for i, w in enumerate(words) if has_surrogate(w))
                check_no_surrogates(words[i], f"sentence {k + 1}, token {i + 1}", source)
    return out


def tags_of(sentences: Sequence, tags=None, source: str = "<input>") -> List[List[str]]:
    """Gold tags for training or scoring: ``tags`` itself when it is a list;
    otherwise the tags the sentences carry, ``tags`` naming the CoNLL-U field
    (default ``"upos"``; (word, tag) pairs use their tag)."""
    if tags is not None and not isinstance(tags, str):
        return list(tags)
    field = tags or "upos"
    out = []
    for k, s in enumerate(sentences):
        t = sentence_tags(s, field, k, source)
        if t is None:
            raise DataFormatError(f"sentence {k + 1}: plain tokens carry no tags; pass the tags "
                                  "(or (word, tag) pairs, conllu TokenLists)", source)
        out.append(t)
    return out
