"""Japanese bunsetsu dependency parsing data: a bunsetsu-level corpus derived
from UD Japanese GSD r2.8, the features of Yoshinaga & Kitsuregawa (2009)
Table 1, and Sassano's (2004) linear-time shift-reduce algorithm.

Corpus derivation
-----------------
UD Japanese GSD r2.8 is annotated with short-unit words. Its dev and test files
mark bunsetsu boundaries (``BunsetuBILabel`` in MISC); the train file does not.
:class:`BunsetsuSegmenter` learns a back-off table from the gold boundaries of
dev and test -- keys are the previous and current token's UniDic POS, the
current token's dependency relation and attachment direction -- and segments
train with it (99% of tokens agree on a held-out split; see
:func:`segmentation_agreement`). A bunsetsu's head is the bunsetsu that holds
the head of its external dependency; on dev/test this reproduces the CaboCha
bunsetsu dependencies of the same sentences (``ja_gsd_cabocha``) for 99.8-100%
of bunsetsu. Sentences whose derived tree is not head-final and projective
cannot be produced by the shift-reduce parser; they are kept for evaluation
and skipped for training (counted in the corpus statistics).
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import DataFormatError

__all__ = [
    "Token",
    "Bunsetsu",
    "BunsetsuSentence",
    "read_ud_tokens",
    "BunsetsuSegmenter",
    "load_gsd_bunsetsu",
    "segmentation_agreement",
    "read_cabocha_heads",
    "pair_features",
    "SentenceFeatures",
    "sassano_parse",
    "sassano_oracle",
    "is_head_final_projective",
    "BunsetsuParser",
    "BunsetsuDependencyParser",
    "encode_sentences",
    "BunsetsuEncoder",
    "dependency_accuracy",
    "training_examples",
]

# UniDic top-level POS of function words and punctuation.
FUNCTION_POS = {"助詞", "助動詞"}
PUNCT_POS = {"補助記号"}
OPEN_BRACKETS = set("「『（(［[【〈《〔｛{")
CLOSE_BRACKETS = set("」』）)］]】〉》〕｝}")
QUOTES = set("\"'“”‘’")
PUNCTUATION = set("、。，．,.！？!?・…")


@dataclass
class Token:
    """A short-unit word of a UD Japanese sentence."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    bi: Optional[str] = None  # gold bunsetsu boundary label (B/I) when annotated
    pos: str = field(init=False, repr=False)   # UniDic POS, level 1 (computed once)
    pos2: str = field(init=False, repr=False)  # levels 1-2

    def __post_init__(self):
        parts = self.xpos.split("-")
        self.pos = parts[0]
        self.pos2 = "-".join(parts[:2])


def read_ud_tokens(path) -> List[List[Token]]:
    """Sentences of a UD Japanese CoNLL-U file as :class:`Token` lists."""
    from ..corpora import conllu_word_lines
    from ..data import _open_text, _sentence_blocks

    sentences: List[List[Token]] = []
    with _open_text(os.fspath(path)) as (f, name):
        for block in _sentence_blocks(f, name):
            current: List[Token] = []
            for lineno, cols in conllu_word_lines(block, name):
                try:
                    tid, head = int(cols[0]), int(cols[6])
                except ValueError:
                    raise DataFormatError(f"ID {cols[0]!r} or HEAD {cols[6]!r} is not an integer", name, lineno) from None
                misc = dict(kv.split("=", 1) for kv in cols[9].split("|") if "=" in kv)
                current.append(Token(tid, cols[1], cols[2], cols[3], cols[4], head, cols[7], misc.get("BunsetuBILabel")))
            if current:
                sentences.append(_checked(current, name, block[0][0]))
    if not sentences:
        raise DataFormatError("no sentences", name)
    return sentences


def _checked(tokens: List[Token], name: str, lineno: Optional[int]) -> List[Token]:
    n = len(tokens)
    for k, t in enumerate(tokens):
        if t.id != k + 1:
            raise DataFormatError(f"word ids are not 1..{n} in order", name, lineno)
        if not 0 <= t.head <= n:
            raise DataFormatError(f"word {t.id} has head {t.head} outside the sentence", name, lineno)
    return tokens


# -- segmentation ------------------------------------------------------------------------
class BunsetsuSegmenter:
    """Bunsetsu boundaries (B/I per token) by a back-off table learned from gold labels."""

    LEVELS = 5

    def __init__(self, min_count: int = 2):
        self.min_count = min_count
        self.tables_: List[Dict[tuple, Counter]] = []

    @staticmethod
    def _keys(tokens: Sequence[Token], k: int) -> List[tuple]:
        t = tokens[k]
        p = tokens[k - 1] if k else None
        px = p.xpos if p else "BOS"
        direction = "L" if 0 < t.head < t.id else ("R" if t.head > t.id else "0")
        reach = "prev" if t.head == t.id - 1 else ("next" if t.head == t.id + 1 else "far")
        prev_att = ("p>cur" if p.head == t.id else ("p>L" if p.head < p.id else "p>R")) if p else "BOS"
        rel = f"{t.deprel}:{direction}:{reach}:{prev_att}"
        return [(px, t.xpos, rel), (px.split("-")[0], t.pos, rel), (t.deprel, rel.split(":", 1)[1]), (px, t.xpos),
                (px.split("-")[0], t.pos)]

    def fit(self, sentences: Iterable[Sequence[Token]]) -> "BunsetsuSegmenter":
        tables: List[Dict[tuple, Counter]] = [defaultdict(Counter) for _ in range(self.LEVELS)]
        n = 0
        for tokens in sentences:
            for k, t in enumerate(tokens):
                if t.bi not in ("B", "I"):
                    raise DataFormatError(f"token {t.id} ({t.form}) has no gold bunsetsu label")
                for level, key in enumerate(self._keys(tokens, k)):
                    tables[level][key][t.bi] += 1
                n += 1
        if not n:
            raise DataFormatError("no gold bunsetsu labels to learn from")
        self.tables_ = [dict(t) for t in tables]
        return self

    def labels(self, tokens: Sequence[Token]) -> List[str]:
        if not self.tables_:
            raise RuntimeError("the segmenter is not fitted")
        out = []
        for k in range(len(tokens)):
            label = "B" if k == 0 else "I"
            if k:
                for level, key in enumerate(self._keys(tokens, k)):
                    c = self.tables_[level].get(key)
                    if c is not None and sum(c.values()) >= self.min_count:
                        label = c.most_common(1)[0][0]
                        break
            out.append(label)
        return out


# -- bunsetsu sentences ---------------------------------------------------------------------
@dataclass
class Bunsetsu:
    tokens: List[Token]
    head: int = -1  # index of the head bunsetsu, -1 for the root
    _head_word: Optional[Token] = field(default=None, init=False, repr=False)
    _function_word: Optional[Token] = field(default=None, init=False, repr=False)
    _symbols: Optional[str] = field(default=None, init=False, repr=False)
    _done: bool = field(default=False, init=False, repr=False)

    @property
    def surface(self) -> str:
        return "".join(t.form for t in self.tokens)

    def _analyse(self) -> None:
        # The tokens are fixed once a bunsetsu is built: find its words once.
        self._head_word = next((t for t in reversed(self.tokens) if t.pos not in FUNCTION_POS and t.pos not in PUNCT_POS), None)
        self._function_word = next((t for t in reversed(self.tokens) if t.pos in FUNCTION_POS), None)
        self._symbols = "".join(t.form for t in self.tokens if t.pos in PUNCT_POS or t.upos in ("PUNCT", "SYM"))
        self._done = True

    def head_word(self) -> Optional[Token]:
        """The rightmost content word (not a particle, auxiliary or punctuation)."""
        if not self._done:
            self._analyse()
        return self._head_word

    def function_word(self) -> Optional[Token]:
        """The rightmost particle or auxiliary."""
        if not self._done:
            self._analyse()
        return self._function_word

    def symbol_chars(self) -> str:
        """Its punctuation and symbol characters."""
        if not self._done:
            self._analyse()
        return self._symbols


@dataclass
class BunsetsuSentence:
    bunsetsu: List[Bunsetsu]
    derived_segmentation: bool = False
    sent_index: int = 0

    def __len__(self) -> int:
        return len(self.bunsetsu)

    @property
    def heads(self) -> List[int]:
        return [b.head for b in self.bunsetsu]


def _group(tokens: List[Token], labels: Sequence[str]) -> List[Bunsetsu]:
    groups: List[Bunsetsu] = []
    for t, lab in zip(tokens, labels):
        if lab == "B" or not groups:
            groups.append(Bunsetsu([]))
        groups[-1].tokens.append(t)
    owner = {t.id: k for k, b in enumerate(groups) for t in b.tokens}
    for k, b in enumerate(groups):
        external = [t for t in b.tokens if t.head == 0 or owner[t.head] != k]
        # The last non-punctuation word whose head lies outside names the head bunsetsu.
        pick = [t for t in external if t.pos not in PUNCT_POS] or external
        if pick:
            t = pick[-1]
            b.head = -1 if t.head == 0 else owner[t.head]
        else:  # only possible for malformed trees: attach to the next bunsetsu
            b.head = k + 1 if k + 1 < len(groups) else -1
    return groups


def is_head_final_projective(heads: Sequence[int]) -> bool:
    """Whether every non-final bunsetsu depends on a later one, without crossing arcs,
    and only the last is the root."""
    n = len(heads)
    if n == 0 or heads[-1] != -1:
        return False
    for i in range(n - 1):
        h = heads[i]
        if not i < h < n:
            return False
        for k in range(i + 1, h):
            if not heads[k] <= h:
                return False
    return True


def load_gsd_bunsetsu(data_dir, split: str, segmenter: Optional[BunsetsuSegmenter] = None) -> List[BunsetsuSentence]:
    """Bunsetsu sentences of UD Japanese GSD r2.8 ``split`` (train/dev/test).

    ``data_dir`` is the ``ud_japanese_gsd`` folder of the shared data. Gold
    boundaries are used where annotated; otherwise ``segmenter`` (by default
    one learned from dev + test) derives them.

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
    base = os.path.join(os.fspath(data_dir), "r2.8")
    tokens = read_ud_tokens(os.path.join(base, f"ja_gsd-ud-{split}.conllu"))
    gold = all(t.bi in ("B", "I") for s in tokens for t in s)
    if not gold and segmenter is None:
        segmenter = BunsetsuSegmenter().fit(
            read_ud_tokens(os.path.join(base, "ja_gsd-ud-dev.conllu")) + read_ud_tokens(os.path.join(base, "ja_gsd-ud-test.conllu"))
        )
    out = []
    for k, s in enumerate(tokens):
        labels = [t.bi for t in s] if gold else segmenter.labels(s)
        out.append(BunsetsuSentence(_group(s, labels), derived_segmentation=not gold, sent_index=k))
    return out


def segmentation_agreement(data_dir) -> dict:
    """Held-out agreement of the learned segmenter (fit on one of dev/test, scored on the other)."""
    base = os.path.join(os.fspath(data_dir), "r2.8")
    dev = read_ud_tokens(os.path.join(base, "ja_gsd-ud-dev.conllu"))
    test = read_ud_tokens(os.path.join(base, "ja_gsd-ud-test.conllu"))
    out = {}
    for name, fit, score in (("dev->test", dev, test), ("test->dev", test, dev)):
        seg = BunsetsuSegmenter().fit(fit)
        tok = ok = sent_ok = 0
        for s in score:
            pred = seg.labels(s)
            good = [p == t.bi for p, t in zip(pred, s)]
            tok += len(s)
            ok += sum(good)
            sent_ok += all(good)
        out[name] = {"token_accuracy": ok / tok, "sentence_accuracy": sent_ok / len(score)}
    return out


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


# -- features (Yoshinaga & Kitsuregawa 2009, Table 1) ------------------------------------------------
@lru_cache(maxsize=1 << 16)
def _word_strings(prefix: str, form: str, lemma: str, xpos: str) -> Tuple[str, ...]:
    pos = xpos.split("-", 1)[0]
    pos2 = "-".join(xpos.split("-")[:2])
    infl = form[-1] if form != lemma and form else "-"
    return (f"{prefix}.w={form}", f"{prefix}.p={pos}", f"{prefix}.s={pos2}", f"{prefix}.x={xpos}", f"{prefix}.i={infl}")


def _word_features(prefix: str, t: Optional[Token]) -> Tuple[str, ...]:
    if t is None:
        return (f"{prefix}=NONE",)
    return _word_strings(prefix, t.form, t.lemma, t.xpos)


@lru_cache(maxsize=1 << 12)
def _symbol_strings(prefix: str, chars: str) -> Tuple[str, ...]:
    """Bracket, quote and punctuation features of a bunsetsu's symbol characters."""
    c = set(chars)
    return (tuple(f"{prefix}.ob={ch}" for ch in sorted(c & OPEN_BRACKETS)) + tuple(f"{prefix}.cb={ch}" for ch in sorted(c & CLOSE_BRACKETS))
            + tuple(f"{prefix}.q={ch}" for ch in sorted(c & QUOTES)) + tuple(f"{prefix}.pu={ch}" for ch in sorted(c & PUNCTUATION)))


def _symbol_chars(b: Bunsetsu) -> str:
    return b.symbol_chars()


def _bunsetsu_features(prefix: str, b: Bunsetsu, index: int, n: int) -> List[str]:
    feats = list(_word_features(f"{prefix}.h", b.head_word()) + _word_features(f"{prefix}.f", b.function_word()))
    feats += _symbol_strings(prefix, _symbol_chars(b))
    if index == 0:
        feats.append(f"{prefix}.pos=begin")
    if index == n - 1:
        feats.append(f"{prefix}.pos=end")
    return feats


def _between_strings(b: Bunsetsu) -> Tuple[str, ...]:
    """What a bunsetsu contributes to the pairs spanning it: its case particle,
    brackets, quotes and punctuation."""
    f = b.function_word()
    case = (f"b.case={f.form}",) if f is not None and f.pos2 in ("助詞-格助詞", "助詞-係助詞") else ()
    return case + _between_symbols(_symbol_chars(b))


@lru_cache(maxsize=1 << 12)
def _between_symbols(chars: str) -> Tuple[str, ...]:
    c = set(chars)
    return (tuple(f"b.br={ch}" for ch in sorted(c & (OPEN_BRACKETS | CLOSE_BRACKETS))) + tuple(f"b.q={ch}" for ch in sorted(c & QUOTES))
            + tuple(f"b.pu={ch}" for ch in sorted(c & PUNCTUATION)))


def _distance(d: int) -> str:
    return "1" if d == 1 else ("2-5" if d <= 5 else "6+")


class SentenceFeatures:
    """Features of every bunsetsu pair of one sentence, computed once per bunsetsu.

    ``pair(i, j)`` is the feature list of "does bunsetsu i depend on bunsetsu j"
    (i < j): modifier and head-candidate features, the distance bucket, and the
    case particles, brackets, quotes and punctuation between them.
    """

    def __init__(self, sentence: BunsetsuSentence):
        bs = sentence.bunsetsu
        n = len(bs)
        self.n = n
        self.modifier = [_bunsetsu_features("m", b, k, n) for k, b in enumerate(bs)]
        self.head = [_bunsetsu_features("h", b, k, n) for k, b in enumerate(bs)]
        self._between = [set(_between_strings(b)) for b in bs]

    @property
    def between(self) -> List[set]:
        """Per bunsetsu, the features it contributes to pairs that span it."""
        return self._between

    def pair(self, i: int, j: int) -> List[str]:
        inside = set()
        for k in range(i + 1, j):
            inside |= self._between[k]
        return self.modifier[i] + self.head[j] + [f"dist={_distance(j - i)}"] + sorted(inside)


def pair_features(sentence: BunsetsuSentence, i: int, j: int) -> List[str]:
    """Features of the pair (modifier i, head candidate j); see :class:`SentenceFeatures`."""
    return SentenceFeatures(sentence).pair(i, j)


# -- Sassano (2004) ---------------------------------------------------------------------------------------
def sassano_parse(n: int, depends: Callable[[int, int], bool]) -> List[int]:
    """Heads of n bunsetsu by Sassano's (2004) linear-time shift-reduce algorithm.

    ``depends(i, j)`` answers whether bunsetsu i modifies bunsetsu j (i < j).
    Every bunsetsu left when the last one is reached depends on it, unasked.
    The result is head-final and projective; the last bunsetsu is the root (-1).
    """
    heads = [-1] * n
    stack: List[int] = []
    for j in range(1, n):
        i = j - 1
        while i != -1:
            if j == n - 1 or depends(i, j):
                heads[i] = j
                i = stack.pop() if stack else -1
            else:
                break
        if i != -1:
            stack.append(i)
    return heads


def sassano_oracle(heads: Sequence[int]) -> List[Tuple[int, int, bool]]:
    """The (i, j, depends) decisions Sassano's algorithm asks when parsing the
    gold tree ``heads`` (head-final and projective): the training examples."""
    asked: List[Tuple[int, int, bool]] = []

    def depends(i: int, j: int) -> bool:
        answer = heads[i] == j
        asked.append((i, j, answer))
        return answer

    got = sassano_parse(len(heads), depends)
    if list(got) != list(heads):
        raise ValueError("the tree is not head-final and projective; Sassano's algorithm cannot produce it")
    return asked


# -- parsing with a compiled classifier ------------------------------------------------------------------
DISTANCE_FEATURES = ("dist=1", "dist=2-5", "dist=6+")


class BunsetsuEncoder:
    """Feature ids of bunsetsu. A bunsetsu's ids depend only on its head and
    function words, its symbol characters and whether it starts or ends the
    sentence, so they are computed once per such key and cached (a corpus
    repeats them); the cache is cleared when it reaches ``max_cache`` keys."""

    def __init__(self, index, max_cache: int = 1 << 20):
        self.index = index
        self.max_cache = max_cache
        self._cache: Dict[tuple, Tuple[List[int], List[int], List[int]]] = {}
        self.distance = np.asarray([index.get(d) for d in DISTANCE_FEATURES], dtype=np.int32)

    def _ids(self, strings) -> List[int]:
        get = self.index.get
        return [i for i in map(get, strings) if i >= 0]

    def _entry(self, b: Bunsetsu, k: int, n: int) -> Tuple[List[int], List[int], List[int]]:
        return (self._ids(_bunsetsu_features("m", b, k, n)), self._ids(_bunsetsu_features("h", b, k, n)),
                self._ids(_between_strings(b)))

    def encode(self, sentences: Sequence[BunsetsuSentence]) -> dict:
        """The arrays the C++ parser reads: per bunsetsu its modifier-side,
        head-side and between feature ids (CSR), sentence offsets, distance ids."""
        cache = self._cache
        sentence_ptr = [0]
        mod, head, btw = [], [], []
        mod_ptr, head_ptr, btw_ptr = [0], [0], [0]
        for s in sentences:
            bs = s.bunsetsu
            n = len(bs)
            last = n - 1
            for k, b in enumerate(bs):
                h, f = b.head_word(), b.function_word()
                key = (h.form if h else None, h.lemma if h else None, h.xpos if h else None,
                       f.form if f else None, f.lemma if f else None, f.xpos if f else None,
                       b.symbol_chars(), k == 0, k == last)
                entry = cache.get(key)
                if entry is None:
                    if len(cache) >= self.max_cache:
                        cache.clear()
                    entry = cache[key] = self._entry(b, k, n)
                mod += entry[0]
                mod_ptr.append(len(mod))
                head += entry[1]
                head_ptr.append(len(head))
                btw += entry[2]
                btw_ptr.append(len(btw))
            sentence_ptr.append(sentence_ptr[-1] + n)
        i64, i32 = np.int64, np.int32
        return {"sentence_ptr": np.asarray(sentence_ptr, dtype=i64), "distance": self.distance,
                "mod_ptr": np.asarray(mod_ptr, dtype=i64), "mod_ids": np.asarray(mod, dtype=i32),
                "head_ptr": np.asarray(head_ptr, dtype=i64), "head_ids": np.asarray(head, dtype=i32),
                "btw_ptr": np.asarray(btw_ptr, dtype=i64), "btw_ids": np.asarray(btw, dtype=i32)}


def encode_sentences(sentences: Sequence[BunsetsuSentence], index) -> dict:
    """Per-bunsetsu feature ids of many sentences (see :class:`BunsetsuEncoder`)."""
    return BunsetsuEncoder(index).encode(sentences)


class BunsetsuParser:
    """Sassano's shift-reduce parser calling a binary classifier once per decision.

    The decision loop runs in C++ and calls the compiled classifier directly;
    Python only looks each bunsetsu's features up once. ``classifier`` is a
    compiled :class:`~conjunct.classifiers.Classifier` over the pair features
    with a named feature index; its positive class means "depends".
    """

    def __init__(self, classifier, *, early_exit: bool = True):
        if classifier.rule.kind != "sign":
            raise ValueError("the bunsetsu parser needs a binary (sign) classifier")
        index = classifier.features
        if index is None or index.is_numeric:
            raise ValueError("the classifier needs a named feature index (pair feature strings)")
        self.classifier = classifier
        self.early_exit = early_exit
        self.encoder = BunsetsuEncoder(index)
        self.decisions = 0
        self.classifier_seconds = 0.0
        self.loop_seconds = 0.0

    def parse_many(self, sentences: Sequence[BunsetsuSentence], *, collect: bool = False, timing: bool = False):
        """Heads of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix of column ids (events for an fstrie)."""
        import scipy.sparse as sp

        from .. import _core

        enc = self.encoder.encode(sentences)
        clf = self.classifier
        heads, decisions, clf_seconds, total, events = _core.parse_bunsetsu(
            clf._core, clf.rule.kind, len(clf.rule.classes), 1, self.early_exit, enc["sentence_ptr"], enc["mod_ptr"],
            enc["mod_ids"], enc["head_ptr"], enc["head_ids"], enc["btw_ptr"], enc["btw_ids"], enc["distance"], timing, collect)
        self.decisions += int(decisions)
        self.classifier_seconds += clf_seconds
        self.loop_seconds += total
        ptr = enc["sentence_ptr"]
        result = [heads[ptr[k]:ptr[k + 1]].tolist() for k in range(len(sentences))]
        if not collect:
            return result
        ev_ptr, ev_ids = events
        width = len(clf.features)
        matrix = sp.csr_matrix((np.ones(len(ev_ids)), ev_ids, ev_ptr), shape=(len(ev_ptr) - 1, width))
        matrix.sum_duplicates()  # a pair can span two bunsetsu with the same between-feature
        matrix.data[:] = 1.0
        return result, matrix

    def parse(self, sentence: BunsetsuSentence) -> List[int]:
        """Heads of one sentence (bunsetsu indices, -1 for the root)."""
        return self.parse_many([sentence])[0]


def dependency_accuracy(gold: Sequence[BunsetsuSentence], predicted: Sequence[Sequence[int]]) -> Tuple[float, float]:
    """(dependency accuracy over non-final bunsetsu, sentence accuracy), as in Kudo & Matsumoto."""
    correct = total = sentences_ok = 0
    for s, heads in zip(gold, predicted):
        ok = True
        for k in range(len(s) - 1):
            total += 1
            if heads[k] == s.bunsetsu[k].head:
                correct += 1
            else:
                ok = False
        sentences_ok += ok
    return (correct / total if total else 0.0, sentences_ok / len(gold) if gold else 0.0)


def training_examples(sentences: Iterable[BunsetsuSentence]) -> Tuple[List[List[str]], List[int], int]:
    """(pair features, labels +1/-1, skipped sentences) of the decisions Sassano's
    algorithm asks on the gold trees; sentences that are not head-final and
    projective are skipped."""
    feats: List[List[str]] = []
    labels: List[int] = []
    skipped = 0
    for s in sentences:
        if not is_head_final_projective(s.heads):
            skipped += 1
            continue
        f = SentenceFeatures(s)
        for i, j, dep in sassano_oracle(s.heads):
            feats.append(f.pair(i, j))
            labels.append(1 if dep else -1)
    return feats, labels, skipped


# -- the pipeline ------------------------------------------------------------------------------------------
from .base import TaskPipeline, register_task  # noqa: E402


@register_task
class BunsetsuDependencyParser(TaskPipeline):
    """Japanese bunsetsu dependency parser: Sassano's (2004) shift-reduce
    algorithm with a binary polynomial-kernel classifier over the features of
    seed 000 Table 1, trained with PA-I (kernel slicing).

    >>> parser = BunsetsuDependencyParser(degree=3).fit(train_sentences)   # doctest: +SKIP
    >>> parser.parse(sentences)                                            # doctest: +SKIP
    """

    task = "bunsetsu"
    COMPONENT = "depends"

    def training_examples(self, data):
        feats, labels, skipped = training_examples(data)
        self.skipped_sentences_ = skipped
        return {self.COMPONENT: (feats, labels)}

    def _on_compiled(self) -> None:
        self._runner = BunsetsuParser(self.classifiers_[self.COMPONENT])

    def _parser(self) -> BunsetsuParser:
        self._check_fitted()
        if getattr(self, "_runner", None) is None or self._runner.classifier is not self.classifiers_[self.COMPONENT]:
            self._on_compiled()
        return self._runner

    def collect_events(self, data):
        _, events = self._parser().parse_many(data, collect=True)
        return {self.COMPONENT: events}

    def parse(self, sentences: Sequence[BunsetsuSentence], *, timing: bool = False) -> List[List[int]]:
        """Heads of each sentence (bunsetsu indices, -1 for the root)."""
        return self._parser().parse_many(sentences, timing=timing)

    def evaluate(self, sentences: Sequence[BunsetsuSentence]) -> dict:
        """Dependency and sentence accuracy, and where the time goes."""
        runner = self._parser()
        before = (runner.decisions, runner.classifier_seconds, runner.loop_seconds)
        start = time.perf_counter()
        heads = runner.parse_many(sentences, timing=True)
        seconds = time.perf_counter() - start
        dep, sent = dependency_accuracy(sentences, heads)
        decisions = runner.decisions - before[0]
        clf_seconds = runner.classifier_seconds - before[1]
        return {
            "dependency_accuracy": dep, "sentence_accuracy": sent, "sentences": len(sentences), "decisions": decisions,
            "seconds": seconds, "sentences_per_second": len(sentences) / seconds if seconds else float("inf"),
            "classifier_seconds": clf_seconds, "classifications_per_second": decisions / clf_seconds if clf_seconds else float("inf"),
            "other_seconds": seconds - clf_seconds, "method": self.classifier_.method,
        }
