"""The arc-eager parser's features: their template spec (:data:`SPEC`, the one
declaration the C++ loop and the Python reference both read) and the Python
reference path, which names each feature of a configuration as a string
through that spec (:class:`ConfigurationFeatures`). The C++ loop
(``cpp/src/tasks/arc_eager_features.cpp``) compiles the same spec to integer keys;
tests check that both give the same feature ids over whole oracle runs.

Positions
---------
A *role* is a token of the configuration: ``s<k>`` the k-th token of the stack
from the top, ``b<k>`` the k-th of the buffer, and a prefix of operators
applied right to left: ``h`` its head, ``ld`` / ``rd`` its leftmost /
rightmost dependent, ``ld2`` / ``rd2`` the second leftmost / rightmost
(``hhs0`` is the head of s0's head, ``ld2b0`` b0's second leftmost
dependent). Positions are a role (a token: its form, XPOS, UPOS, or the label
of its arc, ``NONE`` while it has none), ``<role>.root`` / ``<role>.none``
(flags: the role is ROOT, token 0 / holds no token), ``<role>.ldeps`` /
``<role>.rdeps`` (its left / right dependents: their labels, their number as a
valency), ``<role>-<role>`` (the distance between two tokens) and ``arc``
(the transition, LA or RA, whose label the label component picks).

Feature sets
------------
``"malt"``: FORM, XPOS and UPOS of s0 and b0; FORM and XPOS of b1 and of
s0's head; XPOS of s1, b2, b3; the labels of s0, of its leftmost and
rightmost dependents and of b0's leftmost dependent; the distance b0 - s0.
``"rich"`` adds Zhang & Nivre's (2011) non-local features: FORM and XPOS of
s0's leftmost and rightmost and b0's leftmost dependents; XPOS of the head of
s0's head and of the second leftmost / rightmost dependents, and their
labels; the label of s0's head's arc; the valencies of s0 (left, right) and b0
(left); the label sets of those dependents. ``"zn"`` adds what remains of
Zhang & Nivre's templates that the kernel's pairs do not give: FORM of b2,
of s0's head's head and of the second dependents, and their conjunctions of
three (the POS trigrams of s0, b0 and their heads / dependents, b0 b1 b2,
s0 b0 b1; s0 and b0's words or tags with the distance). The label component
reads the arc's direction (``t=LA`` / ``t=RA``) and not the lookahead (s1,
b1 and b2 in conjunctions, b2, b3). ``"richu"`` is ``"rich"`` plus the UPOS
of the tokens it reads only the XPOS of (b1, s0's head, s0's and b0's
outermost dependents; s1 and b2 for the transition component): the coarse
tag is less often wrong than the fine one when the tags are predicted.
The subsets in :data:`SUBSETS` (``"richu-order2"``, ...) are ``"richu"``
without some of the template families of :data:`FAMILIES`: a d = 2 kernel
pairs every two features, so a family's cost grows with the square of the
feature count, and these sets measure what each family buys.
"""

from __future__ import annotations

import re
from itertools import product
from typing import Callable, List, Optional, Sequence, Tuple

from ...features.spec import FeatureSpec, Part, Template
from .reader import DepSentence

__all__ = ["ConfigurationFeatures", "FEATURE_SETS", "DISTANCES", "VALENCIES", "MOVES", "SPEC", "spec_for",
           "feature_set", "parse_role", "distance_bucket"]

DISTANCES = ("1", "2", "3", "4", "5-9", "10+")
VALENCIES = ("0", "1", "2", "3", "4+")
MOVES = ("LA", "RA")
#: Feature set name -> its template groups.
FEATURE_SETS = {"malt": ("malt",), "rich": ("malt", "rich"), "zn": ("malt", "rich", "zn", "zn_lookahead"),
                "richu": ("malt", "rich", "upos", "upos_lookahead")}
#: Families of templates (by name) within the groups, for sets that leave some
#: out: the non-local features of Zhang & Nivre (2011) fall in four families.
FAMILIES = {
    "deps": tuple(f"{r}{x}" for r in ("lds0", "rds0", "ldb0") for x in (".w", ".p", "=ROOT", "=NONE")),
    "order2": tuple(f"{r}{x}" for r in ("hhs0", "ld2s0", "rd2s0", "ld2b0") for x in (".p", "=ROOT", "=NONE"))
    + ("ld2s0.l", "rd2s0.l", "ld2b0.l", "hs0.l"),
    "valency": ("s0.vl", "s0.vr", "b0.vl"),
    "labelsets": ("s0.sl", "s0.sr", "b0.sl"),
}
#: Sets that leave template families out of another set: name -> (set, families left out).
SUBSETS = {"-".join(("richu",) + out): ("richu", out) for out in
           [(f,) for f in FAMILIES] + [("deps", "order2"), ("order2", "valency"), ("order2", "valency", "labelsets")]}
FEATURE_SETS.update({name: FEATURE_SETS[base] for name, (base, _) in SUBSETS.items()})
#: Groups of a set that one component only reads (the lookahead: the transition's).
COMPONENT_ONLY = {"zn_lookahead": "transition", "upos_lookahead": "transition"}
#: Groups per component: the transition component reads the lookahead (s1,
#: b2, b3); the label component does without it (on EWT dev it halved the
#: label classifier's time, the larger part of the decisions' cost, at equal
#: LAS: docs/english_parser.md) and reads the arc's direction instead.
COMPONENT_GROUPS = {"transition": ("lookahead",), "label": ("arc",)}

TOKEN_ATTRIBUTES = ("form", "xpos", "upos")
_SHORT = {"w": "form", "p": "xpos", "u": "upos"}


def _role(role: str, attrs: str, group: str) -> List[Template]:
    """A token role's templates: its attributes, and the flags ROOT / NONE."""
    return [Template(f"{role}.{a}", (Part(_SHORT[a], role),), group) for a in attrs] + [
        Template(f"{role}=ROOT", (Part(None, f"{role}.root"),), group),
        Template(f"{role}=NONE", (Part(None, f"{role}.none"),), group)]


def _one(name: str, group: str, attribute: Optional[str], position: str, fallback: Optional[str] = None) -> Template:
    return Template(name, (Part(attribute, position, fallback),), group)


def _conjoined(parts: Tuple[str, ...], group: str) -> Template:
    """The conjunction of ``role.w`` / ``role.p`` (form / XPOS) and ``a-b`` (distance) parts."""
    def part(p: str) -> Part:
        if "-" in p:
            return Part("distance", p)
        role, attr = p.split(".")
        return Part(_SHORT[attr], role)
    return Template("+".join(parts), tuple(part(p) for p in parts), group)


def _label(role: str, group: str) -> Template:
    return _one(f"{role}.l", group, "deprel", role, "NONE")


#: Every template; a feature set selects groups of them (:func:`spec_for`).
SPEC = FeatureSpec(
    [t for role, attrs in (("s0", "wpu"), ("s1", "p"), ("b0", "wpu"), ("b1", "wp"), ("b2", "p"), ("b3", "p"),
                           ("hs0", "wp"))
     for t in _role(role, attrs, "lookahead" if role in ("s1", "b2", "b3") else "malt")]
    + [_label(r, "malt") for r in ("s0", "lds0", "rds0", "ldb0")]
    + [_one("d", "malt", "distance", "s0-b0")]
    + [t for role, attrs in (("lds0", "wp"), ("rds0", "wp"), ("ldb0", "wp"), ("hhs0", "p"), ("ld2s0", "p"),
                             ("rd2s0", "p"), ("ld2b0", "p")) for t in _role(role, attrs, "rich")]
    + [_label(r, "rich") for r in ("ld2s0", "rd2s0", "ld2b0", "hs0")]
    + [_one("s0.vl", "rich", "valency", "s0.ldeps"), _one("s0.vr", "rich", "valency", "s0.rdeps"),
       _one("b0.vl", "rich", "valency", "b0.ldeps")]
    + [_one("s0.sl", "rich", "deprel", "s0.ldeps"), _one("s0.sr", "rich", "deprel", "s0.rdeps"),
       _one("b0.sl", "rich", "deprel", "b0.ldeps")]
    + [_one("t", "arc", "move", "arc")]
    # Zhang & Nivre's (2011) templates the kernel's pairs do not give: words
    # of b2, of s0's head's head and of the second dependents, and their
    # conjunctions of three (POS trigrams; the distance with the two words or
    # tags), which a d = 2 kernel then pairs with the rest.
    + [_one(f"{r}.w", "zn", "form", r) for r in ("hhs0", "ld2s0", "rd2s0", "ld2b0")]
    + [_one("b2.w", "zn_lookahead", "form", "b2")]
    + [_conjoined(parts, "zn") for parts in (("s0.p", "b0.p", "s0-b0"), ("s0.w", "b0.w", "s0-b0"),
                                             ("hs0.p", "s0.p", "b0.p"), ("s0.p", "lds0.p", "b0.p"),
                                             ("s0.p", "rds0.p", "b0.p"), ("s0.p", "b0.p", "ldb0.p"),
                                             ("s0.p", "lds0.p", "ld2s0.p"), ("s0.p", "rds0.p", "rd2s0.p"),
                                             ("s0.p", "hs0.p", "hhs0.p"), ("b0.p", "ldb0.p", "ld2b0.p"))]
    + [_conjoined(parts, "zn_lookahead") for parts in (("b0.p", "b1.p", "b2.p"), ("s0.p", "b0.p", "b1.p"))]
    # The coarse tag (UPOS) where "rich" reads only the fine one: less hurt by the tagger's fine-grained errors.
    + [_one(f"{r}.u", "upos", "upos", r) for r in ("b1", "hs0", "lds0", "rds0", "ldb0")]
    + [_one(f"{r}.u", "upos_lookahead", "upos", r) for r in ("s1", "b2")])


def feature_set(name: str) -> Tuple[str, ...]:
    """The template groups of a feature set name."""
    try:
        return FEATURE_SETS[name]
    except KeyError:
        raise ValueError(f"unknown feature set {name!r}; expected one of {sorted(FEATURE_SETS)}") from None


def spec_for(features: str = "malt", component: Optional[str] = "transition") -> FeatureSpec:
    """The templates of feature set ``features`` for a component ("transition"
    or "label"; None: every template of the set, both components')."""
    groups = set(feature_set(features))
    for c, more in COMPONENT_GROUPS.items():
        if component is None or c == component:
            groups |= set(more)
    if component is not None:
        groups -= {g for g, c in COMPONENT_ONLY.items() if c != component}
    out = {n for f in SUBSETS.get(features, ("", ()))[1] for n in FAMILIES[f]}
    return SPEC.select(lambda t: t.group in groups and t.name not in out)


_ROLE = re.compile(r"((?:ld2|rd2|ld|rd|h)*)([sb])(\d)")
_OP = re.compile(r"ld2|rd2|ld|rd|h")


def parse_role(name: str) -> Optional[Tuple[str, int, Tuple[str, ...]]]:
    """(base "s" or "b", its index, operators innermost first) of a role name (at most four
    operators), or None."""
    m = _ROLE.fullmatch(name)
    if m is None:
        return None
    ops = tuple(reversed(_OP.findall(m.group(1))))
    return (m.group(2), int(m.group(3)), ops) if len(ops) <= 4 else None


def distance_bucket(d: int) -> int:
    """The index in :data:`DISTANCES` of a distance (at most 1 counts as 1)."""
    return max(d, 1) - 1 if d <= 4 else (4 if d < 10 else 5)


def _parse_position(position: str):
    """(kind, roles) of a position name; ValueError if the parser has no such position."""
    if position == "arc":
        return "arc", ()
    head, dot, tail = position.partition(".")
    if dot and tail in ("root", "none", "ldeps", "rdeps") and parse_role(head):
        return tail, (head,)
    a, dash, b = position.partition("-")
    if dash and parse_role(a) and parse_role(b):
        return "pair", (a, b)
    if parse_role(position):
        return "role", (position,)
    raise ValueError(f"unknown arc-eager position {position!r}")


_FITS = {"form": ("role",), "xpos": ("role",), "upos": ("role",), "deprel": ("role", "ldeps", "rdeps"),
         "valency": ("ldeps", "rdeps"), "distance": ("pair",), "move": ("arc",), None: ("root", "none")}


def _role_fn(base: str, k: int, ops: Tuple[str, ...], n: int) -> Callable:
    def fn(state) -> int:
        if base == "s":
            stack = state.stack
            tok = stack[-1 - k] if k < len(stack) else -1
        else:
            tok = state.b + k
            if tok > n:
                tok = -1
        for op in ops:
            if tok < 0:
                return -1
            if op == "h":
                tok = state.heads[tok] if tok > 0 else -1
            else:
                tok = getattr(state, {"ld": "ldep", "rd": "rdep", "ld2": "ldep2", "rd2": "rdep2"}[op])[tok]
        return tok
    return fn


class ConfigurationFeatures:
    """Feature names of the configurations of one sentence under a spec
    (training, and the Python reference parser); token features are named
    once per token and template.

    ``features(state)`` names the templates without an ``arc`` part,
    ``arc_features(state, move)`` those with one (move 0 = LA, 1 = RA).
    """

    def __init__(self, sentence: DepSentence, features: str = "malt", spec: Optional[FeatureSpec] = None):
        self.spec = spec if spec is not None else spec_for(features, None)
        self.n = n = len(sentence)
        columns = {"form": sentence.forms, "xpos": sentence.xpos, "upos": sentence.upos}
        roles: List[str] = []
        self._plain, self._arc = [], []
        for t, tp in enumerate(self.spec.templates):
            parts = []
            for p in tp.parts:
                kind, names = _parse_position(p.position)
                if kind not in _FITS.get(p.attribute, ()):
                    raise ValueError(f"feature template {tp.name!r}: attribute {p.attribute!r} at {p.position!r} is "
                                     "not a feature")
                if p.fallback is not None and not (p.attribute == "deprel" and kind == "role"):
                    raise ValueError(f"feature template {tp.name!r}: only a token's label has a fallback value")
                slots = []
                for r in names:
                    if r not in roles:
                        roles.append(r)
                    slots.append(roles.index(r))
                names_of = values_of = None
                if p.attribute in columns:  # the feature name of every token, once
                    prefix = tp.name + "="
                    values_of = [None] + list(columns[p.attribute])
                    names_of = [None] + [prefix + v for v in columns[p.attribute]]
                parts.append((kind, p.attribute, slots, p.fallback, names_of, values_of))
            (self._arc if any(k == "arc" for k, *_ in parts) else self._plain).append((t, tp, parts))
        self._roles = [_role_fn(*parse_role(r), n) for r in roles]

    def _values(self, part, toks, state, move) -> list:
        """A part's values (strings; None for a flag that holds)."""
        kind, attribute, slots, fallback, _, values_of = part
        if kind == "arc":
            return [MOVES[move]] if move is not None else []
        if kind == "pair":
            a, b = toks[slots[0]], toks[slots[1]]
            return [DISTANCES[distance_bucket(b - a)]] if a >= 0 and b >= 0 else []
        tok = toks[slots[0]]
        if kind == "root":
            return [None] if tok == 0 else []
        if kind == "none":
            return [None] if tok < 0 else []
        if kind in ("ldeps", "rdeps"):
            if tok < 0:
                return []
            deps = (state.lsets if kind == "ldeps" else state.rsets)[tok]
            return [VALENCIES[min(len(deps), 4)]] if attribute == "valency" else list(dict.fromkeys(deps))
        if attribute == "deprel":
            label = state.labels[tok] if tok > 0 else None
            return [label] if label is not None else ([fallback] if fallback is not None else [])
        return [values_of[tok]] if tok > 0 else []

    def _names(self, templates, state, move) -> List[str]:
        toks = [fn(state) for fn in self._roles]
        out: List[str] = []
        name = self.spec.name
        for t, tp, parts in templates:
            if len(parts) == 1:
                part = parts[0]
                names_of = part[4]
                if names_of is not None:  # a token attribute: named once per token
                    tok = toks[part[2][0]]
                    if tok > 0:
                        out.append(names_of[tok])
                    continue
                values = self._values(part, toks, state, move)
                out.extend(tp.name if v is None else f"{tp.name}={v}" for v in values)
                continue
            lists = [self._values(p, toks, state, move) for p in parts]
            for combo in product(*lists):
                out.append(name(t, [v for v, p in zip(combo, tp.parts) if p.attribute is not None]))
        return out

    def features(self, state) -> List[str]:
        """The names of the configuration's features (templates without an ``arc`` part)."""
        return self._names(self._plain, state, None)

    def arc_features(self, state, move: int) -> List[str]:
        """The names of the templates with an ``arc`` part, for the arc ``move`` (0 = LA, 1 = RA)."""
        return self._names(self._arc, state, move)
