"""The features of a bunsetsu pair: their template spec (:data:`SPEC`, the one
declaration both sides read) and the Python reference path, which names each
feature as a string through that spec. The C++ parser
(``cpp/src/tasks/bunsetsu_features.cpp``) compiles the same spec to integer keys;
tests check that both give the same feature ids on real sentences.

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

from itertools import product
from typing import Iterable, List, Optional, Sequence, Tuple

from ...features.spec import FeatureSpec, Part, Template
from .sentence import Bunsetsu, BunsetsuSentence, Token

__all__ = ["SentenceFeatures", "pair_features", "FEATURE_GROUPS", "DEFAULT_GROUPS", "check_groups", "SYMBOL_POS",
           "PARTICLE_POS", "CASE_POS2", "SPEC", "spec_for"]

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


def _t(name: str, group: str, attribute: Optional[str], position: str, fallback: Optional[str] = None) -> Template:
    return Template(name, (Part(attribute, position, fallback),), group)


def _word_templates(side: str) -> List[Template]:
    """Yoshinaga & Kitsuregawa 2009 Table 1's word features of a side's head word (h) and function word (f)."""
    out = []
    for short, role in (("h", "head"), ("f", "func")):
        position = f"{side}.{role}"
        out += [_t(f"{side}.{short}.w", "core", "form", position), _t(f"{side}.{short}.p", "core", "pos", position),
                _t(f"{side}.{short}.s", "core", "subpos", position), _t(f"{side}.{short}.x", "core", "fullpos", position),
                _t(f"{side}.{short}.i", "core", "infl", position), _t(f"{side}.{short}=NONE", "core", None, f"{position}.none")]
    return out


#: The templates of every group. Positions: "m" is bunsetsu i (the modifier),
#: "h" bunsetsu j (the head candidate), "m-1" / "h+1" their neighbours, "b"
#: each bunsetsu between them, "sib" one of those that already depends on j;
#: ".head" / ".func" / ".first" / ".last" a bunsetsu's head word, function
#: word, first and last token; ".symbols" / ".particles" its symbols and
#: particles; "between" the span between, "pair" the pair itself; the rest
#: are predicates (flags). Attributes: the token's form, POS level 1 (pos),
#: levels 1-2 where finer (subpos), the full XPOS where finer (fullpos), the
#: full XPOS, the inflection stand-in; a bunsetsu's ending (none / f / h) and
#: bracket balance; the pair's distance bucket.
SPEC = FeatureSpec(
    _word_templates("m") + _word_templates("h") + [
        _t("m.sym", "core", "form", "m.symbols"), _t("h.sym", "core", "form", "h.symbols"),
        _t("m.pos=begin", "core", None, "m.begin"), _t("h.pos=end", "core", None, "h.end"),
        _t("dist", "core", "distance", "pair"),
        _t("b.case", "core", "form", "b.case"), _t("b.sym", "core", "form", "b.symbols"),
        _t("m.t", "edge", "ending", "m"), _t("m.l.w", "edge", "form", "m.last"),
        _t("h.0.w", "edge", "form", "h.first"), _t("h.0.x", "edge", "xpos", "h.first"),
        _t("h.t", "edge", "ending", "h"), _t("h.l.x", "edge", "xpos", "h.last"),
        _t("m-1.l.w", "context", "form", "m-1.last"), _t("m-1=NONE", "context", None, "m-1.none"),
        _t("h+1.0.w", "context", "form", "h+1.first"), _t("h+1.h.w", "context", "form", "h+1.head", fallback="-"),
        _t("h+1.l.w", "context", "form", "h+1.last"), _t("h+1=NONE", "context", None, "h+1.none"),
        _t("m.pt", "particles", "form", "m.particles"), _t("h.pt", "particles", "form", "h.particles"),
        _t("sib.pt", "siblings", "form", "sib.particles"),
        _t("coord.m-1", "coord", None, "coord.m-1"), _t("coord.m", "coord", None, "coord.m"),
        _t("coord.h+1", "coord", None, "coord.h+1"),
        _t("m.br", "brackets", "balance", "m"), _t("h.br", "brackets", "balance", "h"),
        _t("b.br", "brackets", "balance", "between"),
    ])


def check_groups(groups: Iterable[str]) -> Tuple[str, ...]:
    """``groups`` in canonical order, checked: "core" and known names only."""
    groups = tuple(groups)
    unknown = sorted(set(groups) - set(FEATURE_GROUPS))
    if unknown:
        raise ValueError(f"unknown bunsetsu feature groups {unknown}; known: {list(FEATURE_GROUPS)}")
    if "core" not in groups:
        raise ValueError("the bunsetsu feature groups must include 'core'")
    return tuple(g for g in FEATURE_GROUPS if g in groups)


def spec_for(groups: Iterable[str] = DEFAULT_GROUPS) -> FeatureSpec:
    """The templates of feature ``groups``."""
    groups = check_groups(groups)
    return SPEC.select(lambda t: t.group in groups)


def _pos(t: Token) -> str:
    return t.xpos.split("-", 1)[0]


def _pos2(t: Token) -> str:
    return "-".join(t.xpos.split("-")[:2])


def _infl(t: Token) -> str:
    # GSD has no conjugation forms: the last character of an inflected form stands in.
    return t.form[-1] if t.form != t.lemma and t.form else "-"


def _token_value(attribute: str, t: Token) -> Optional[str]:
    """A token attribute's value; a finer POS level equal to the coarser one is
    no value (it would only repeat it)."""
    if attribute == "form":
        return t.form
    if attribute == "pos":
        return _pos(t)
    if attribute == "subpos":
        return _pos2(t) if _pos2(t) != _pos(t) else None
    if attribute == "fullpos":
        return t.xpos if t.xpos != _pos2(t) else None
    if attribute == "xpos":
        return t.xpos
    if attribute == "infl":
        return _infl(t)
    raise ValueError(f"unknown token attribute {attribute!r}")


def _balance(opens: int, closes: int) -> str:
    return "open" if opens > closes else ("close" if opens < closes else ("none" if opens == 0 else "even"))


def _distance(d: int) -> str:
    return "1" if d == 1 else ("2-5" if d <= 5 else "6+")


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
        self.symbols = [t for t in toks if _pos(t) in SYMBOL_POS]
        self.particles = [t for t in toks if _pos(t) == PARTICLE_POS]
        self.case = self.func if self.func is not None and _pos2(self.func) in CASE_POS2 else None
        self.opens = sum(_pos2(t) == OPEN_BRACKET_POS2 for t in toks)
        self.closes = sum(_pos2(t) == CLOSE_BRACKET_POS2 for t in toks)

    def ending(self) -> str:
        # The tail word is the head word or the function word: say which.
        return "none" if self.tail is None else ("f" if self.tail is self.func else "h")


_FALLBACK = object()
# Where each position's features go (the C++ BunsetsuFeaturizer::Slot).
_SLOTS = {"mod": ("m.", "m-1.", "m"), "head": ("h.", "h+1.", "h"), "between": ("b.",), "siblings": ("sib.",)}


def _slot(position: str) -> str:
    if position in ("between", "pair") or position.startswith("coord."):
        return "pair"
    for slot, starts in _SLOTS.items():
        if position in starts or position.startswith(tuple(s for s in starts if s.endswith("."))):
            return slot
    raise ValueError(f"unknown bunsetsu position {position!r}")


def _same_head(a, b) -> bool:
    return a is not None and b is not None and a.form == b.form


# Flags and token positions of the spec, as functions of (parts, bunsetsu k's parts, n, k[, i, j]): built
# once here, not per feature (the reference path names every feature of every training decision).
_FLAGS = {
    "m.head.none": lambda parts, p, n, k, i, j: p.head is None, "h.head.none": lambda parts, p, n, k, i, j: p.head is None,
    "m.func.none": lambda parts, p, n, k, i, j: p.func is None, "h.func.none": lambda parts, p, n, k, i, j: p.func is None,
    "m.begin": lambda parts, p, n, k, i, j: k == 0, "h.end": lambda parts, p, n, k, i, j: k == n - 1,
    "m-1.none": lambda parts, p, n, k, i, j: k == 0, "h+1.none": lambda parts, p, n, k, i, j: k == n - 1,
    "coord.m-1": lambda parts, p, n, k, i, j: i > 0 and _same_head(parts[i - 1].head, parts[j].head),
    "coord.m": lambda parts, p, n, k, i, j: _same_head(parts[i].head, parts[j].head),
    "coord.h+1": lambda parts, p, n, k, i, j: j + 1 < n and _same_head(parts[j + 1].head, parts[i].head),
}
_TOKENS = {
    "m.head": lambda parts, p, n, k: [p.head], "h.head": lambda parts, p, n, k: [p.head],
    "m.func": lambda parts, p, n, k: [p.func], "h.func": lambda parts, p, n, k: [p.func],
    "m.last": lambda parts, p, n, k: [p.last], "h.last": lambda parts, p, n, k: [p.last],
    "h.first": lambda parts, p, n, k: [p.first],
    "m-1.last": lambda parts, p, n, k: [parts[k - 1].last] if k > 0 else [],
    "h+1.first": lambda parts, p, n, k: [parts[k + 1].first] if k + 1 < n else [],
    "h+1.last": lambda parts, p, n, k: [parts[k + 1].last] if k + 1 < n else [],
    "h+1.head": lambda parts, p, n, k: ([parts[k + 1].head if parts[k + 1].head is not None else _FALLBACK]
                                        if k + 1 < n else []),
    "m.symbols": lambda parts, p, n, k: p.symbols, "h.symbols": lambda parts, p, n, k: p.symbols,
    "b.symbols": lambda parts, p, n, k: p.symbols,
    "m.particles": lambda parts, p, n, k: p.particles, "h.particles": lambda parts, p, n, k: p.particles,
    "sib.particles": lambda parts, p, n, k: p.particles, "b.case": lambda parts, p, n, k: [p.case],
}


class SentenceFeatures:
    """Features of the bunsetsu pairs of one sentence, as names from :data:`SPEC`.

    ``pair(i, j, heads)`` is the feature list of "does bunsetsu i depend on
    bunsetsu j" (i < j) given the heads found so far (``heads[k]`` for every k
    between i and j; the "siblings" group reads them).
    """

    def __init__(self, sentence: BunsetsuSentence, groups: Iterable[str] = DEFAULT_GROUPS):
        self.groups = check_groups(groups)
        self.spec = spec_for(self.groups)
        parts = [_Parts(b) for b in sentence.bunsetsu]
        self.n = len(parts)
        self.parts = parts
        by_slot = {s: [] for s in ("mod", "head", "between", "siblings", "pair")}
        for t, tp in enumerate(self.spec.templates):
            by_slot[_slot(tp.parts[0].position)].append(t)
        self._pair_templates = by_slot["pair"]
        unit = {s: [self._features(ts, k, k, k) for k in range(self.n)] for s, ts in by_slot.items() if s != "pair"}
        self.modifier, self.head = unit["mod"], unit["head"]
        self.between, self.siblings = unit["between"], unit["siblings"]

    def _values(self, part: Part, k: int, i: int, j: int) -> list:
        """The values of one part for bunsetsu k (or the pair i, j); [None] for a flag that holds."""
        parts, n, pos = self.parts, self.n, part.position
        p = parts[k]
        if part.attribute is None:
            return [None] if _FLAGS[pos](parts, p, n, k, i, j) else []
        if part.attribute == "ending":
            return [p.ending()]
        if part.attribute == "balance":
            if pos == "between":
                return [_balance(sum(parts[m].opens for m in range(i + 1, j)), sum(parts[m].closes for m in range(i + 1, j)))]
            return [_balance(p.opens, p.closes)]
        if part.attribute == "distance":
            return [_distance(j - i)]
        out = []
        for t in _TOKENS[pos](parts, p, n, k):
            v = part.fallback if t is _FALLBACK else (None if t is None else _token_value(part.attribute, t))
            if v is not None:
                out.append(v)
        return out

    def _features(self, templates: Sequence[int], k: int, i: int, j: int) -> List[str]:
        feats: List[str] = []
        spec_templates = self.spec.templates
        for t in templates:
            tp = spec_templates[t]
            if len(tp.parts) == 1:  # most templates: the name as spec.name writes it, without the product
                part = tp.parts[0]
                values = self._values(part, k, i, j)
                if part.attribute is None:
                    feats.extend(tp.name for _ in values)
                else:
                    feats.extend(f"{tp.name}={v}" for v in values)
                continue
            for combo in product(*(self._values(part, k, i, j) for part in tp.parts)):
                feats.append(self.spec.name(t, [v for v, part in zip(combo, tp.parts) if part.attribute is not None]))
        return list(dict.fromkeys(feats))

    def pair(self, i: int, j: int, heads: Optional[Sequence[int]] = None) -> List[str]:
        feats = self.modifier[i] + self.head[j]
        for k in range(i + 1, j):
            feats += self.between[k]
            if heads is not None and heads[k] == j:
                feats += self.siblings[k]
        feats += self._features(self._pair_templates, i, i, j)
        return list(dict.fromkeys(feats))


def pair_features(sentence: BunsetsuSentence, i: int, j: int, heads: Optional[Sequence[int]] = None,
                  groups: Iterable[str] = DEFAULT_GROUPS) -> List[str]:
    """Features of the pair (modifier i, head candidate j); see :class:`SentenceFeatures`."""
    return SentenceFeatures(sentence, groups).pair(i, j, heads)
