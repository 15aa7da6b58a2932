"""The features of a bunsetsu pair, as strings: the Python reference of the
templates the C++ parser extracts (``cpp/src/bunsetsu_features.cpp``).

A decision asks "does bunsetsu i depend on bunsetsu j" (i < j) while Sassano's
algorithm parses: every bunsetsu between them already has its head. The
features come in groups (:data:`FEATURE_GROUPS`); a parser's model names the
groups it was trained with.

``core``
    Yoshinaga & Kitsuregawa 2009 Table 1: for i and j, the head word (rightmost content word) and
    the function word (rightmost particle or auxiliary), each with surface,
    POS, POS subcategory, full POS and inflection stand-in; their symbols
    (punctuation, brackets); whether i begins or j ends the sentence; the
    distance bucket (1 / 2-5 / 6+); the case particles and symbols between.
``edge``
    Whether i and j end in their head word or their function word (symbols
    aside), the last token of i, the first and last token of j.
``context``
    The bunsetsu around the pair: the last token of i - 1; the first, head and
    last token of j + 1.
``particles``
    Every particle inside i and inside j.
``siblings``
    The particles of the bunsetsu between i and j that already depend on j
    (the competitors of i for j), known from the parse so far.
``coord``
    Whether the head word of j has the surface of the head word of i - 1, i,
    or j + 1 the surface of i's (coordination).
``brackets``
    Whether i, j and the span between them open more brackets than they
    close, close more, or hold none.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

from .sentence import Bunsetsu, BunsetsuSentence, Token

__all__ = ["SentenceFeatures", "pair_features", "FEATURE_GROUPS", "DEFAULT_GROUPS", "check_groups", "SYMBOL_POS",
           "PARTICLE_POS", "CASE_POS2"]

#: Every feature group, in the order the C++ extractor numbers them (bit k = group k).
FEATURE_GROUPS: Tuple[str, ...] = ("core", "edge", "context", "particles", "siblings", "coord", "brackets")
#: The groups a parser uses unless told otherwise, chosen on dev (docs/bunsetsu.md):
#: every group but "siblings", which did not help at d = 2 or 3.
DEFAULT_GROUPS: Tuple[str, ...] = tuple(g for g in FEATURE_GROUPS if g != "siblings")

# UniDic POS (level 1) of symbols and of particles; case-marking particle subcategories.
SYMBOL_POS = frozenset({"補助記号", "記号", "絵文字・記号等"})
PARTICLE_POS = "助詞"
FUNCTION_POS = frozenset({"助詞", "助動詞"})
CASE_POS2 = frozenset({"助詞-格助詞", "助詞-係助詞"})
OPEN_BRACKET_POS2 = "補助記号-括弧開"
CLOSE_BRACKET_POS2 = "補助記号-括弧閉"


def check_groups(groups: Iterable[str]) -> Tuple[str, ...]:
    """``groups`` in canonical order, checked: "core" and known names only."""
    groups = tuple(groups)
    unknown = sorted(set(groups) - set(FEATURE_GROUPS))
    if unknown:
        raise ValueError(f"unknown bunsetsu feature groups {unknown}; known: {list(FEATURE_GROUPS)}")
    if "core" not in groups:
        raise ValueError("the bunsetsu feature groups must include 'core'")
    return tuple(g for g in FEATURE_GROUPS if g in groups)


def _pos(t: Token) -> str:
    return t.xpos.split("-", 1)[0]


def _pos2(t: Token) -> str:
    return "-".join(t.xpos.split("-")[:2])


def _infl(t: Token) -> str:
    # GSD has no conjugation forms: the last character of an inflected form stands in.
    return t.form[-1] if t.form != t.lemma and t.form else "-"


def _word(prefix: str, t: Optional[Token]) -> List[str]:
    """Surface, POS levels and inflection of a word; a finer POS level that
    equals the coarser one is left out (it would only repeat it)."""
    if t is None:
        return [f"{prefix}=NONE"]
    pos, pos2 = _pos(t), _pos2(t)
    feats = [f"{prefix}.w={t.form}", f"{prefix}.p={pos}"]
    if pos2 != pos:
        feats.append(f"{prefix}.s={pos2}")
    if t.xpos != pos2:
        feats.append(f"{prefix}.x={t.xpos}")
    feats.append(f"{prefix}.i={_infl(t)}")
    return feats


def _ending(prefix: str, p: "_Parts") -> str:
    # The tail word is the head word or the function word: say which.
    return f"{prefix}.t=" + ("none" if p.tail is None else ("f" if p.tail is p.func else "h"))


class _Parts:
    """The words of one bunsetsu the templates read."""

    def __init__(self, b: Bunsetsu):
        toks = b.tokens
        content = [t for t in toks if _pos(t) not in SYMBOL_POS]
        self.first = toks[0] if toks else None
        self.last = toks[-1] if toks else None
        self.tail = content[-1] if content else None
        self.head = next((t for t in reversed(content) if _pos(t) not in FUNCTION_POS), None)
        self.func = next((t for t in reversed(content) if _pos(t) in FUNCTION_POS), None)
        self.symbols = sorted({t.form for t in toks if _pos(t) in SYMBOL_POS})
        self.particles = sorted({t.form for t in toks if _pos(t) == PARTICLE_POS})
        self.case = self.func.form if self.func is not None and _pos2(self.func) in CASE_POS2 else None
        self.opens = sum(_pos2(t) == OPEN_BRACKET_POS2 for t in toks)
        self.closes = sum(_pos2(t) == CLOSE_BRACKET_POS2 for t in toks)


def _balance(opens: int, closes: int) -> str:
    return "open" if opens > closes else ("close" if opens < closes else ("none" if opens == 0 else "even"))


def _distance(d: int) -> str:
    return "1" if d == 1 else ("2-5" if d <= 5 else "6+")


def _side(prefix: str, parts: Sequence[_Parts], k: int, groups: Tuple[str, ...]) -> List[str]:
    """The features of bunsetsu k as modifier ("m") or head candidate ("h")."""
    p = parts[k]
    n = len(parts)
    feats = _word(f"{prefix}.h", p.head) + _word(f"{prefix}.f", p.func) + [f"{prefix}.sym={s}" for s in p.symbols]
    if prefix == "m" and k == 0:
        feats.append("m.pos=begin")
    if prefix == "h" and k == n - 1:
        feats.append("h.pos=end")
    if "edge" in groups:
        if prefix == "m":
            feats += [_ending("m", p), f"m.l.w={p.last.form}"]
        else:
            feats += [f"h.0.w={p.first.form}", f"h.0.x={p.first.xpos}", _ending("h", p), f"h.l.x={p.last.xpos}"]
    if "context" in groups:
        if prefix == "m":
            feats.append(f"m-1.l.w={parts[k - 1].last.form}" if k > 0 else "m-1=NONE")
        elif k + 1 < n:
            nxt = parts[k + 1]
            feats += [f"h+1.0.w={nxt.first.form}", f"h+1.h.w={nxt.head.form if nxt.head else '-'}", f"h+1.l.w={nxt.last.form}"]
        else:
            feats.append("h+1=NONE")
    if "particles" in groups:
        feats += [f"{prefix}.pt={s}" for s in p.particles]
    if "brackets" in groups:
        feats.append(f"{prefix}.br={_balance(p.opens, p.closes)}")
    return feats


class SentenceFeatures:
    """Features of the bunsetsu pairs of one sentence.

    ``pair(i, j, heads)`` is the feature list of "does bunsetsu i depend on
    bunsetsu j" (i < j) given the heads found so far (``heads[k]`` for every k
    between i and j; the "siblings" group reads them).
    """

    def __init__(self, sentence: BunsetsuSentence, groups: Iterable[str] = DEFAULT_GROUPS):
        self.groups = check_groups(groups)
        parts = [_Parts(b) for b in sentence.bunsetsu]
        self.n = len(parts)
        self.parts = parts
        self.modifier = [_side("m", parts, k, self.groups) for k in range(self.n)]
        self.head = [_side("h", parts, k, self.groups) for k in range(self.n)]

    def pair(self, i: int, j: int, heads: Optional[Sequence[int]] = None) -> List[str]:
        parts, groups = self.parts, self.groups
        between = set()
        opens = closes = 0
        for k in range(i + 1, j):
            p = parts[k]
            if p.case is not None:
                between.add(f"b.case={p.case}")
            between.update(f"b.sym={s}" for s in p.symbols)
            opens += p.opens
            closes += p.closes
            if "siblings" in groups and heads is not None and heads[k] == j:
                between.update(f"sib.pt={s}" for s in p.particles)
        feats = self.modifier[i] + self.head[j] + [f"dist={_distance(j - i)}"] + sorted(between)
        if "brackets" in groups:
            feats.append(f"b.br={_balance(opens, closes)}")
        if "coord" in groups:
            hj = parts[j].head
            for name, k, other in (("m-1", i - 1, hj), ("m", i, hj), ("h+1", j + 1, parts[i].head)):
                hk = parts[k].head if 0 <= k < self.n else None
                if hk is not None and other is not None and hk.form == other.form:
                    feats.append(f"coord.{name}")
        return feats


def pair_features(sentence: BunsetsuSentence, i: int, j: int, heads: Optional[Sequence[int]] = None,
                  groups: Iterable[str] = DEFAULT_GROUPS) -> List[str]:
    """Features of the pair (modifier i, head candidate j); see :class:`SentenceFeatures`."""
    return SentenceFeatures(sentence, groups).pair(i, j, heads)
