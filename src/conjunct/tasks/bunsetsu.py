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
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

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

    @property
    def pos(self) -> str:
        return self.xpos.split("-", 1)[0]

    @property
    def pos2(self) -> str:
        return "-".join(self.xpos.split("-")[:2])


def read_ud_tokens(path) -> List[List[Token]]:
    """Sentences of a UD Japanese CoNLL-U file as :class:`Token` lists."""
    name = os.fspath(path)
    sentences: List[List[Token]] = []
    current: List[Token] = []
    try:
        f = open(name, encoding="utf-8")
    except FileNotFoundError:
        raise DataFormatError("no such file", name) from None
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                if current:
                    sentences.append(_checked(current, name, lineno))
                    current = []
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise DataFormatError(f"expected 10 tab-separated CoNLL-U columns, found {len(cols)}", name, lineno)
            if "-" in cols[0] or "." in cols[0]:
                continue
            try:
                tid, head = int(cols[0]), int(cols[6])
            except ValueError:
                raise DataFormatError(f"ID {cols[0]!r} or HEAD {cols[6]!r} is not an integer", name, lineno) from None
            misc = dict(kv.split("=", 1) for kv in cols[9].split("|") if "=" in kv)
            current.append(Token(tid, cols[1], cols[2], cols[3], cols[4], head, cols[7], misc.get("BunsetuBILabel")))
    if current:
        sentences.append(_checked(current, name, None))
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

    @property
    def surface(self) -> str:
        return "".join(t.form for t in self.tokens)

    def head_word(self) -> Optional[Token]:
        """The rightmost content word (not a particle, auxiliary or punctuation)."""
        for t in reversed(self.tokens):
            if t.pos not in FUNCTION_POS and t.pos not in PUNCT_POS:
                return t
        return None

    def function_word(self) -> Optional[Token]:
        """The rightmost particle or auxiliary."""
        for t in reversed(self.tokens):
            if t.pos in FUNCTION_POS:
                return t
        return None


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
def _word_features(prefix: str, t: Optional[Token]) -> List[str]:
    if t is None:
        return [f"{prefix}=NONE"]
    infl = t.form[-1] if t.form != t.lemma and t.form else "-"
    return [f"{prefix}.w={t.form}", f"{prefix}.p={t.pos}", f"{prefix}.s={t.pos2}", f"{prefix}.x={t.xpos}", f"{prefix}.i={infl}"]


def _symbols(b: Bunsetsu) -> Tuple[set, set, set, set]:
    chars = "".join(t.form for t in b.tokens if t.pos in PUNCT_POS or t.upos in ("PUNCT", "SYM"))
    return (set(chars) & OPEN_BRACKETS, set(chars) & CLOSE_BRACKETS, set(chars) & QUOTES, set(chars) & PUNCTUATION)


def _bunsetsu_features(prefix: str, b: Bunsetsu, index: int, n: int) -> List[str]:
    feats = _word_features(f"{prefix}.h", b.head_word()) + _word_features(f"{prefix}.f", b.function_word())
    op, cl, qu, pu = _symbols(b)
    feats += [f"{prefix}.ob={c}" for c in sorted(op)] + [f"{prefix}.cb={c}" for c in sorted(cl)]
    feats += [f"{prefix}.q={c}" for c in sorted(qu)] + [f"{prefix}.pu={c}" for c in sorted(pu)]
    if index == 0:
        feats.append(f"{prefix}.pos=begin")
    if index == n - 1:
        feats.append(f"{prefix}.pos=end")
    return feats


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
        between = []
        for b in bs:
            items = set()
            f = b.function_word()
            if f is not None and f.pos2 in ("助詞-格助詞", "助詞-係助詞"):
                items.add(f"b.case={f.form}")
            op, cl, qu, pu = _symbols(b)
            items.update(f"b.br={c}" for c in op | cl)
            items.update(f"b.q={c}" for c in qu)
            items.update(f"b.pu={c}" for c in pu)
            between.append(items)
        self._between = between

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
class BunsetsuParser:
    """Sassano's shift-reduce parser calling a binary classifier once per decision.

    ``classifier`` is a compiled :class:`~conjunct.classifiers.Classifier` (or a
    model) over the pair features; its positive class means "depends". With
    ``collect=True`` the feature vectors of every decision are kept in
    ``events`` (as feature-string lists), e.g. to build an fstrie from parsing
    raw text.
    """

    def __init__(self, classifier, *, early_exit: bool = True):
        self.classifier = classifier
        self.early_exit = early_exit
        self.positive = classifier.classes[1] if classifier.rule.kind == "sign" else None
        if self.positive is None:
            raise ValueError("the bunsetsu parser needs a binary (sign) classifier")
        index = classifier.features
        if index is None or index.is_numeric:
            raise ValueError("the classifier needs a named feature index (pair feature strings)")
        self._get = index.get
        self.decisions = 0

    def _ids(self, feats: List[str]):
        import numpy as np

        get = self._get
        return np.fromiter((i for i in map(get, feats) if i >= 0), dtype=np.int32)

    def parse(self, sentence: BunsetsuSentence, events: Optional[list] = None) -> List[int]:
        """Heads of ``sentence`` (bunsetsu indices, -1 for the root)."""
        n = len(sentence)
        if n == 0:
            return []
        features = SentenceFeatures(sentence)
        clf, positive, early = self.classifier, self.positive, self.early_exit

        def depends(i: int, j: int) -> bool:
            feats = features.pair(i, j)
            if events is not None:
                events.append(feats)
            self.decisions += 1
            return clf.predict_one(self._ids(feats), early_exit=early) == positive

        return sassano_parse(n, depends)


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
