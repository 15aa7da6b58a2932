"""Reading the bunsetsu corpora: UD Japanese CoNLL-U files (through
:func:`conjunct.io.corpora.iter_conllu`), the GSD r2.8 splits made bunsetsu-level,
and CaboCha files (to check the derivation against)."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional, Tuple

from ..._errors import ConjunctError, DataFormatError
from ...io.corpora import ConlluSentence, iter_conllu
from ...io.data import _open_text
from ...progress import each
from .segmenter import BunsetsuSegmenter
from .sentence import BunsetsuSentence, Token, group_bunsetsu

__all__ = ["read_ud_tokens", "iter_bunsetsu_conllu", "load_gsd_bunsetsu", "segmentation_agreement", "read_cabocha_heads"]


def _tokens(s: ConlluSentence, name: str) -> List[Token]:
    """The :class:`Token` s of one CoNLL-U sentence block."""
    tokens: List[Token] = []
    for lineno, cols in zip(s.line_numbers, s.words):
        try:
            head = int(cols[6])
        except ValueError:
            raise DataFormatError(f"HEAD {cols[6]!r} is not an integer", name, lineno) from None
        if not 0 <= head <= len(s.words):
            raise DataFormatError(f"word {cols[0]} has head {head} outside the sentence", name, lineno)
        misc = dict(kv.split("=", 1) for kv in cols[9].split("|") if "=" in kv)
        tokens.append(Token(int(cols[0]), cols[1], cols[2], cols[3], cols[4], head, cols[7], misc.get("BunsetuBILabel")))
    return tokens


def _ud_sentences(source, *, shown: bool = False) -> Iterator[Tuple[List[Token], ConlluSentence, str]]:
    """(tokens, block, source name) of every sentence of a CoNLL-U source, one
    at a time; "no sentences" at the end of an input that had none. ``shown``:
    a bar counts them."""
    with _open_text(source) as (f, name):
        blocks = iter_conllu(f)
        if shown:
            blocks = each(blocks, desc=f"reading {os.path.basename(name)}", delay=0.5)
        seen = False
        for s in blocks:
            if s.words:
                seen = True
                yield _tokens(s, name), s, name
        if not seen:
            raise DataFormatError("no sentences", name)


def read_ud_tokens(path) -> List[List[Token]]:
    """Sentences of a UD Japanese CoNLL-U file as :class:`Token` lists."""
    return [tokens for tokens, _, _ in _ud_sentences(os.fspath(path), shown=True)]


def iter_bunsetsu_conllu(source) -> Iterator[BunsetsuSentence]:
    """Bunsetsu sentences of a CoNLL-U file whose MISC column marks every word
    with ``BunsetuBILabel`` (B or I), read one at a time (memory stays bounded).

    Parameters
    ----------
    source : path, ``'-'`` or text stream
        The CoNLL-U input (``'-'``: standard input).

    Yields
    ------
    BunsetsuSentence
        Its bunsetsu as the labels mark them; heads from the words' dependencies.

    Raises
    ------
    DataFormatError
        At a word without the label (naming its file and line), and for input without a sentence.
    """
    for k, (tokens, block, name) in enumerate(_ud_sentences(source)):
        for t, lineno in zip(tokens, block.line_numbers):
            if t.bi not in ("B", "I"):
                raise DataFormatError(f"sentence {k + 1}: word {t.id} has no BunsetuBILabel (B or I) in MISC; "
                                      "bunsetsu input marks every word", name, lineno)
        yield BunsetsuSentence(group_bunsetsu(tokens, [t.bi for t in tokens]), sent_index=k)


#: The splits of UD Japanese GSD r2.8.
SPLITS = ("train", "dev", "test")


def _split_path(data_dir, split: str) -> str:
    return os.path.join(os.fspath(data_dir), "r2.8", f"ja_gsd-ud-{split}.conllu")


def load_gsd_bunsetsu(data_dir, split: str, segmenter: Optional[BunsetsuSegmenter] = None) -> List[BunsetsuSentence]:
    """Bunsetsu sentences of UD Japanese GSD r2.8 ``split`` (train/dev/test).

    ``data_dir`` is the ``ud_japanese_gsd`` folder of the shared data. Gold
    boundaries are used where annotated; otherwise ``segmenter`` (by default
    one learned from the gold boundaries of dev) derives them. The test split
    is read only when ``split`` is ``"test"``: nothing trained from train or
    dev has seen it.

    Parameters
    ----------
    data_dir : str or os.PathLike
        The ``ud_japanese_gsd`` folder.
    split : {"train", "dev", "test"}
        Which split.
    segmenter : BunsetsuSegmenter, optional
        Derives bunsetsu boundaries where they are not annotated.

    Returns
    -------
    list of BunsetsuSentence
    """
    if split not in SPLITS:
        raise ConjunctError(f"unknown GSD split {split!r} (choose from {', '.join(SPLITS)})")
    tokens = read_ud_tokens(_split_path(data_dir, split))
    gold = all(t.bi in ("B", "I") for s in tokens for t in s)
    if not gold and segmenter is None:
        # Dev only: test labels must not shape the training data.
        segmenter = BunsetsuSegmenter().fit(read_ud_tokens(_split_path(data_dir, "dev")))
    out = []
    for k, s in enumerate(each(tokens, desc=f"grouping the bunsetsu of {split}", delay=0.5)):
        labels = [t.bi for t in s] if gold else segmenter.labels(s)
        out.append(BunsetsuSentence(group_bunsetsu(s, labels), derived_segmentation=not gold, sent_index=k))
    return out


def segmentation_agreement(data_dir, folds: int = 5) -> dict:
    """Agreement with gold of the back-off table that segments GSD train.

    ``"dev->test"``: the table :func:`load_gsd_bunsetsu` uses (fit on all of
    dev) scored on test, a final figure; ``"dev k-fold"``: fit on k - 1 parts
    of dev and scored on the part left out, summed over the parts (no test
    data read). Token and whole-sentence accuracy each.
    """
    dev = read_ud_tokens(_split_path(data_dir, "dev"))
    if not 2 <= folds <= len(dev):
        raise ConjunctError(f"folds must be between 2 and {len(dev)}, got {folds}")
    counts = [0, 0, 0, 0]
    for f in range(folds):
        seg = BunsetsuSegmenter().fit(s for k, s in enumerate(dev) if k % folds != f)
        _score(seg, [s for k, s in enumerate(dev) if k % folds == f], counts)
    out = {f"dev {folds}-fold": _agreement(counts)}
    counts = [0, 0, 0, 0]
    _score(BunsetsuSegmenter().fit(dev), read_ud_tokens(_split_path(data_dir, "test")), counts)
    out["dev->test"] = _agreement(counts)
    return out


def _score(seg: BunsetsuSegmenter, sentences, counts: List[int]) -> None:
    """Adds (tokens, tokens right, sentences, sentences entirely right) to ``counts``."""
    for s in sentences:
        good = [p == t.bi for p, t in zip(seg.labels(s), s)]
        counts[0] += len(s)
        counts[1] += sum(good)
        counts[2] += 1
        counts[3] += all(good)


def _agreement(counts: List[int]) -> dict:
    return {"token_accuracy": counts[1] / counts[0], "sentence_accuracy": counts[3] / counts[2]}


def read_cabocha_heads(path) -> List[Tuple[List[str], List[int]]]:
    """(bunsetsu surfaces, heads) of each sentence of a CaboCha file (-1 = root)."""
    name = os.fspath(path)
    out: List[Tuple[List[str], List[int]]] = []
    surfaces: List[str] = []
    heads: List[int] = []
    with open(name, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if line.startswith("#!") or not line:
                continue
            if line == "EOS":
                out.append((surfaces, heads))
                surfaces, heads = [], []
            elif line.startswith("* "):
                parts = line.split()
                digits = "".join(ch for ch in parts[2] if ch == "-" or ch.isdigit())
                try:
                    heads.append(int(digits))
                except ValueError:
                    raise DataFormatError(f"bad bunsetsu line {line!r}", name, lineno) from None
                surfaces.append("")
            else:
                if not surfaces:
                    raise DataFormatError("morpheme before the first bunsetsu line", name, lineno)
                surfaces[-1] += line.split("\t", 1)[0]
    return out
