"""Labeled transition-based dependency parsing of UD English EWT: MaltParser's
arc-eager algorithm (Nivre 2003, 2008) with a static oracle, MaltParser-style
feature templates over gold POS tags, and two polynomial-kernel classifiers
trained with PA-I (kernel slicing).

The transition system
---------------------
A configuration is a stack (ROOT, token 0, at the bottom), a buffer of the
tokens 1..n still to read, and the arcs built so far. With ``s0`` the top of
the stack and ``b0`` the first token of the buffer:

- ``SH`` (shift) pushes ``b0``; always allowed.
- ``RE`` (reduce) pops ``s0``; allowed when ``s0`` has a head.
- ``LA`` (left-arc) makes ``b0`` the head of ``s0`` and pops it; allowed when
  ``s0`` is not ROOT and has no head.
- ``RA`` (right-arc) makes ``s0`` the head of ``b0`` and pushes ``b0``; from ROOT
  only once (one root word per sentence), and then its label is ``root``.

Parsing stops when the buffer is empty. Tokens left without a head then attach
to the root word (label ``punct`` for PUNCT tokens, else ``dep``); if no token
was attached to ROOT, the first headless token becomes the root word.

Classifiers (two components)
----------------------------
``transition`` (4 classes) is asked at every configuration; the highest-scoring
*allowed* transition is taken (margins, not argmax). ``label`` (the dependency
relations, ``root`` excluded) is asked after each LA/RA that does not start from
ROOT, with the configuration's features plus ``t=LA``/``t=RA``. One joint
"transition+label" classifier would have ~100 classes (LA:x and RA:x for the
50 relations of EWT, SH, RE): every support vector and every conjunction weight
of PKE/fstrie holds one weight per class, so training and classification cost
and model size would grow ~25x on every decision, also on the SH/RE ones (about
half); two components cost 4 outputs per decision plus 50 per arc.

Features (per configuration)
----------------------------
FORM, XPOS and UPOS of s0 and b0; FORM and XPOS of b1 and of s0's head; XPOS of
s1, b2, b3 (``<role>=NONE`` when absent, ``<role>=ROOT`` for token 0); the
dependency labels of s0, of its leftmost and rightmost dependents and of b0's
leftmost dependent; the distance b0 - s0 (1, 2, 3, 4, 5-9, 10+). Token features
are looked up once per token and role as ids of the model's FeatureIndex
(:class:`EnglishEncoder`); the parse loop (``cpp/src/arc_eager.cpp``) assembles
each configuration's vector from them in C++ with the GIL released.

Evaluation counts every word, punctuation included (CoNLL 2018 style); LAS
compares the full relation including subtypes (``nmod:poss``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import DataFormatError
from .base import TaskPipeline, register_task

__all__ = [
    "DepSentence",
    "read_ud_english",
    "is_projective",
    "arc_eager_oracle",
    "apply_transitions",
    "ConfigurationFeatures",
    "training_examples",
    "EnglishEncoder",
    "reference_parse",
    "attachment_scores",
    "EnglishDependencyParser",
]

TRANSITIONS = ("SH", "RE", "LA", "RA")
SH, RE, LA, RA = range(4)
ROLES = ("s0", "s1", "b0", "b1", "b2", "b3", "hs0")
# Token attributes each role contributes: w = FORM, p = XPOS, u = UPOS.
ROLE_ATTRS = {"s0": "wpu", "s1": "p", "b0": "wpu", "b1": "wp", "b2": "p", "b3": "p", "hs0": "wp"}
LABEL_ROLES = ("s0.l", "lds0.l", "rds0.l", "ldb0.l")
DISTANCES = ("1", "2", "3", "4", "5-9", "10+")
ARC_FEATURES = ("t=LA", "t=RA")
ROOT_LABEL = "root"


@dataclass
class DepSentence:
    """One sentence: per word its FORM, UPOS, XPOS and (gold, or None) HEAD and DEPREL."""

    forms: List[str]
    upos: List[str]
    xpos: List[str]
    heads: Optional[List[int]] = None  # 0 = root, words are 1..n
    labels: Optional[List[str]] = None

    def __len__(self) -> int:
        return len(self.forms)


def _sentence(rows, name="<input>", k=0) -> DepSentence:
    forms = [r[0] for r in rows]
    upos = [r[1] for r in rows]
    xpos = [r[2] for r in rows]
    if all(r[3].isdigit() for r in rows):
        heads = [int(r[3]) for r in rows]
        n = len(rows)
        bad = [h for h in heads if h > n]
        if bad:
            raise DataFormatError(f"sentence {k + 1}: head {bad[0]} outside the sentence", name)
        return DepSentence(forms, upos, xpos, heads, [r[4] for r in rows])
    return DepSentence(forms, upos, xpos)


def read_ud_english(path) -> List[DepSentence]:
    """Sentences of a CoNLL-U file (words only: no multiword ranges or empty nodes).

    Parameters
    ----------
    path : str or os.PathLike
        The CoNLL-U file.

    Returns
    -------
    list of DepSentence
    """
    from ..corpora import read_conllu

    rows = read_conllu(path, fields=("form", "upos", "xpos", "head", "deprel"))
    return [_sentence(r, str(path), k) for k, r in enumerate(rows)]


def is_projective(heads: Sequence[int]) -> bool:
    """Whether the tree (heads of words 1..n, 0 = root) has no crossing arcs
    (with the arc from ROOT included)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    for a, b in arcs:
        for c, d in arcs:
            if a < c < b < d:
                return False
    return True


# -- the transition system ---------------------------------------------------------------------------
class _State:
    __slots__ = ("n", "stack", "b", "heads", "labels", "ldep", "rdep", "root_done")

    def __init__(self, n: int):
        self.n = n
        self.stack = [0]
        self.b = 1
        self.heads = [-1] * (n + 1)
        self.labels: List[Optional[str]] = [None] * (n + 1)
        self.ldep = [-1] * (n + 1)
        self.rdep = [-1] * (n + 1)
        self.root_done = False

    def done(self) -> bool:
        return self.b > self.n

    def allowed(self) -> Tuple[bool, bool, bool, bool]:
        s0 = self.stack[-1]
        has_head = s0 > 0 and self.heads[s0] >= 0
        return (True, has_head, s0 > 0 and not has_head, s0 > 0 or not self.root_done)

    def apply(self, t: int, label: Optional[str] = None) -> None:
        s0, b = self.stack[-1], self.b
        if not self.allowed()[t]:
            raise ValueError(f"transition {TRANSITIONS[t]} is not allowed here")
        if t == LA:
            self.heads[s0], self.labels[s0] = b, label
            self.ldep[b] = s0
            self.stack.pop()
        elif t == RA:
            self.heads[b], self.labels[b] = s0, (ROOT_LABEL if s0 == 0 else label)
            self.rdep[s0] = b
            self.root_done |= s0 == 0
            self.stack.append(b)
            self.b += 1
        elif t == RE:
            self.stack.pop()
        else:
            self.stack.append(b)
            self.b += 1


def arc_eager_oracle(heads: Sequence[int], labels: Sequence[str]) -> List[Tuple[int, Optional[str]]]:
    """The static oracle's (transition, label) sequence for a projective gold
    tree (Nivre 2008): LA if b0 heads s0, RA if s0 heads b0, RE if b0 is linked
    to a token below s0, else SH. Raises ValueError for trees it cannot build."""
    n = len(heads)
    gold = [-1] + list(heads)
    state = _State(n)
    out: List[Tuple[int, Optional[str]]] = []
    while not state.done():
        s0, b = state.stack[-1], state.b
        if s0 > 0 and gold[s0] == b:
            move = (LA, labels[s0 - 1])
        elif gold[b] == s0:
            move = (RA, labels[b - 1] if s0 else ROOT_LABEL)
        elif any(gold[k] == b or gold[b] == k for k in state.stack[:-1]):
            move = (RE, None)
        else:
            move = (SH, None)
        try:
            state.apply(*move)
        except ValueError:
            raise ValueError("the tree is not projective; the arc-eager oracle cannot build it") from None
        out.append(move)
    if state.heads[1:] != list(heads):
        raise ValueError("the tree is not projective; the arc-eager oracle cannot build it")
    return out


def apply_transitions(n: int, moves: Sequence[Tuple[int, Optional[str]]]) -> Tuple[List[int], List[Optional[str]]]:
    """Heads and labels (words 1..n; -1 / None when unattached) after ``moves``."""
    state = _State(n)
    for t, label in moves:
        state.apply(t, label)
    return state.heads[1:], state.labels[1:]


def _finish(sentence: DepSentence, heads: List[int], labels: List[Optional[str]]) -> Tuple[List[int], List[str]]:
    """Attach the tokens the parser left headless (see the module docstring)."""
    heads, labels = list(heads), list(labels)
    root = next((k for k, h in enumerate(heads) if h == 0), None)
    for k, h in enumerate(heads):
        if h >= 0:
            continue
        if root is None:
            root = k
            heads[k], labels[k] = 0, ROOT_LABEL
        else:
            heads[k], labels[k] = root + 1, ("punct" if sentence.upos[k] == "PUNCT" else "dep")
    return heads, [lab if lab is not None else "dep" for lab in labels]


# -- features --------------------------------------------------------------------------------------------
def _role_strings(role: str, form: str, upos: str, xpos: str) -> Tuple[str, ...]:
    attrs = ROLE_ATTRS[role]
    values = {"w": form, "p": xpos, "u": upos}
    return tuple(f"{role}.{a}={values[a]}" for a in attrs)


def _distance(d: int) -> int:
    return d - 1 if d <= 4 else (4 if d < 10 else 5)


class ConfigurationFeatures:
    """Feature strings of configurations of one sentence (training and the
    Python reference parser); token strings are built once per token and role."""

    def __init__(self, sentence: DepSentence):
        self.n = len(sentence)
        self.roles = {
            r: [(f"{r}=ROOT",)] + [_role_strings(r, w, u, x) for w, u, x in zip(sentence.forms, sentence.upos, sentence.xpos)]
            for r in ROLES
        }

    def _role(self, role: str, token: int) -> Tuple[str, ...]:
        return (f"{role}=NONE",) if token < 0 else self.roles[role][token]

    def features(self, state: _State) -> List[str]:
        s0, b = state.stack[-1], state.b
        s1 = state.stack[-2] if len(state.stack) >= 2 else -1
        n = self.n
        f: List[str] = []
        for role, tok in (("s0", s0), ("s1", s1), ("b0", b), ("b1", b + 1 if b + 1 <= n else -1),
                          ("b2", b + 2 if b + 2 <= n else -1), ("b3", b + 3 if b + 3 <= n else -1),
                          ("hs0", state.heads[s0] if s0 > 0 else -1)):
            f.extend(self._role(role, tok))
        for role, tok in zip(LABEL_ROLES, (s0, state.ldep[s0], state.rdep[s0], state.ldep[b])):
            label = state.labels[tok] if tok > 0 else None
            f.append(f"{role}={label if label is not None else 'NONE'}")
        f.append(f"d={DISTANCES[_distance(b - s0)]}")
        return f


def training_examples(sentences: Sequence[DepSentence]) -> Tuple[dict, int]:
    """({component: (feature lists, labels)}, skipped non-projective sentences)
    of the static oracle's decisions on the gold trees."""
    tf: List[List[str]] = []
    tl: List[str] = []
    lf: List[List[str]] = []
    ll: List[str] = []
    skipped = 0
    for s in sentences:
        if s.heads is None:
            raise DataFormatError("training needs gold HEAD and DEPREL columns")
        if not is_projective(s.heads):
            skipped += 1
            continue
        feats = ConfigurationFeatures(s)
        state = _State(len(s))
        for t, label in arc_eager_oracle(s.heads, s.labels):
            f = feats.features(state)
            tf.append(f)
            tl.append(TRANSITIONS[t])
            if t == LA or (t == RA and state.stack[-1] != 0):
                lf.append(f + [ARC_FEATURES[0 if t == LA else 1]])
                ll.append(label)
            state.apply(t, label)
    return {"transition": (tf, tl), "label": (lf, ll)}, skipped


def _best_allowed(margins: np.ndarray, n_classes: int, allowed) -> int:
    m = np.asarray(margins, dtype=np.float64).reshape(-1)
    best, best_score = -1, 0.0
    for c in range(n_classes):
        if not allowed(c):
            continue
        score = (-m[0] if c == 0 else m[0]) if len(m) == 1 else m[c]
        if best < 0 or score > best_score:
            best, best_score = c, score
    return best


def reference_parse(sentence: DepSentence, transitions, labels) -> Tuple[List[int], List[str], int]:
    """The parser in Python, one ``decision_function_one`` call per decision
    (the specification the C++ loop is tested against): (heads, labels, decisions)."""
    t_classes = [str(c) for c in transitions.classes]
    t_codes = [TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes]
    l_classes = [str(c) for c in labels.classes]
    feats = ConfigurationFeatures(sentence)
    state = _State(len(sentence))
    decisions = 0
    while not state.done():
        f = feats.features(state)
        allow = state.allowed()
        decisions += 1
        c = _best_allowed(transitions.decision_function_one(f), len(t_classes), lambda k: t_codes[k] >= 0 and allow[t_codes[k]])
        t = t_codes[c] if c >= 0 else SH
        label = None
        if t == LA or (t == RA and state.stack[-1] != 0):
            decisions += 1
            lc = _best_allowed(labels.decision_function_one(f + [ARC_FEATURES[0 if t == LA else 1]]), len(l_classes),
                               lambda k: l_classes[k] != ROOT_LABEL)
            label = l_classes[lc] if lc >= 0 else ROOT_LABEL
        state.apply(t, label)
    heads, labs = _finish(sentence, state.heads[1:], state.labels[1:])
    return heads, labs, decisions


class EnglishEncoder:
    """Feature ids of tokens per role (looked up once per distinct word and
    role, cached), and the id tables of NONE, labels, distances and arcs."""

    def __init__(self, index, label_values: Sequence[str]):
        self.index = index
        get = index.get
        self._ids: Dict[tuple, np.ndarray] = {}
        self.none_ids = np.asarray([get(f"{r}=NONE") for r in ROLES], dtype=np.int32)
        self.root_ids = [self._lookup(("ROOT", r), (f"{r}=ROOT",)) for r in ROLES]
        values = list(label_values) + ["NONE"]
        self.label_feature = np.asarray([get(f"{lr}={v}") for lr in LABEL_ROLES for v in values], dtype=np.int32)
        self.distance = np.asarray([get(f"d={d}") for d in DISTANCES], dtype=np.int32)
        self.arc_feature = np.asarray([get(a) for a in ARC_FEATURES], dtype=np.int32)

    def _lookup(self, key: tuple, strings) -> np.ndarray:
        ids = self._ids.get(key)
        if ids is None:
            get = self.index.get
            ids = np.fromiter((i for i in map(get, strings) if i >= 0), dtype=np.int32)
            self._ids[key] = ids
        return ids

    def _word(self, w: str, u: str, x: str):
        key = (w, u, x)
        got = self._words.get(key)
        if got is None:
            parts = [self._lookup((r, w, u, x), _role_strings(r, w, u, x)) for r in ROLES]
            got = (np.concatenate(parts), [len(a) for a in parts])
            self._words[key] = got
        return got

    def encode(self, sentences: Sequence[DepSentence]) -> dict:
        """sentence_ptr (token offsets, ROOT included), token_ptr/token_ids (CSR,
        one row per token and role), and the id tables."""
        sentence_ptr = [0]
        if not hasattr(self, "_words"):
            self._words = {}
            self._root = (np.concatenate(self.root_ids), [len(a) for a in self.root_ids])
        arrays: List[np.ndarray] = []
        lengths: List[int] = []
        word = self._word
        for s in sentences:
            for ids, lens in [self._root] + [word(w, u, x) for w, u, x in zip(s.forms, s.upos, s.xpos)]:
                arrays.append(ids)
                lengths.extend(lens)
            sentence_ptr.append(sentence_ptr[-1] + len(s) + 1)
        ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        ids = np.concatenate(arrays).astype(np.int32, copy=False) if arrays else np.zeros(0, dtype=np.int32)
        return {"sentence_ptr": np.asarray(sentence_ptr, dtype=np.int64), "token_ptr": ptr, "token_ids": ids,
                "none_ids": self.none_ids, "label_feature": self.label_feature, "distance": self.distance,
                "arc_feature": self.arc_feature}


class ArcEagerParser:
    """The C++ arc-eager loop over two compiled classifiers (``transitions`` over
    the configuration features, ``labels`` over those plus ``t=LA``/``t=RA``)."""

    def __init__(self, transitions, labels):
        for clf, what in ((transitions, "transition"), (labels, "label")):
            if clf.rule.kind not in ("sign", "argmax"):
                raise ValueError(f"the {what} classifier needs a sign or argmax decision rule")
            if clf.features is None or clf.features.is_numeric:
                raise ValueError(f"the {what} classifier needs a named feature index")
        self.transitions = transitions
        self.labels = labels
        t_classes = [str(c) for c in transitions.classes]
        self.transition_of_class = np.asarray([TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes], dtype=np.int64)
        self.label_classes = [str(c) for c in labels.classes]
        self.label_values = self.label_classes + ([] if ROOT_LABEL in self.label_classes else [ROOT_LABEL])
        self.root_label = self.label_values.index(ROOT_LABEL)
        self.t_encoder = EnglishEncoder(transitions.features, self.label_values)
        # The label classifier has a feature index of its own: its token ids differ.
        self.l_encoder = EnglishEncoder(labels.features, self.label_values)
        self.transition_decisions = 0
        self.label_decisions = 0
        self.classifier_seconds = 0.0
        self.loop_seconds = 0.0

    def parse_many(self, sentences: Sequence[DepSentence], *, collect: bool = False, timing: bool = False):
        """(heads, labels) of every sentence; with ``collect`` also the classified
        vectors per component as CSR matrices (events for an fstrie)."""
        from .. import _core

        t_tables = self.t_encoder.encode(sentences)
        l_tables = self.l_encoder.encode(sentences)
        heads, labels, n_t, n_l, clf_s, total, events = _core.parse_arc_eager(
            self.transitions._core, self.transitions.rule.kind, self.transition_of_class, self.labels._core,
            self.labels.rule.kind, len(self.label_classes), self.root_label, len(self.label_values),
            t_tables["sentence_ptr"], t_tables, l_tables, timing, collect)
        enc = t_tables
        self.transition_decisions += int(n_t)
        self.label_decisions += int(n_l)
        self.classifier_seconds += clf_s
        self.loop_seconds += total
        ptr = enc["sentence_ptr"].tolist()
        values = self.label_values + [None]  # -1: unattached
        heads, labels = heads.tolist(), [values[v] for v in labels.tolist()]
        out = [_finish(s, heads[ptr[k] + 1:ptr[k + 1]], labels[ptr[k] + 1:ptr[k + 1]]) for k, s in enumerate(sentences)]
        if not collect:
            return out
        import scipy.sparse as sp

        mats = []
        for p, ids, width in ((events[0], events[1], len(self.transitions.features)),
                              (events[2], events[3], len(self.labels.features))):
            m = sp.csr_matrix((np.ones(len(ids)), ids, p), shape=(len(p) - 1, width))
            m.sum_duplicates()
            m.data[:] = 1.0
            mats.append(m)
        return out, mats[0], mats[1]


def attachment_scores(gold: Sequence[DepSentence], predicted) -> dict:
    """UAS and LAS over every word (punctuation included), and UAS without PUNCT words."""
    total = uas = las = np_total = np_uas = 0
    for k, s in enumerate(gold):
        if s.heads is None:
            raise DataFormatError(f"sentence {k + 1} has no gold HEAD/DEPREL to evaluate against")
    for s, (heads, labels) in zip(gold, predicted):
        for k in range(len(s)):
            ok = heads[k] == s.heads[k]
            total += 1
            uas += ok
            las += ok and labels[k] == s.labels[k]
            if s.upos[k] != "PUNCT":
                np_total += 1
                np_uas += ok
    return {"uas": uas / total if total else 0.0, "las": las / total if total else 0.0,
            "uas_no_punct": np_uas / np_total if np_total else 0.0, "words": total}


@register_task
class EnglishDependencyParser(TaskPipeline):
    """Labeled arc-eager dependency parser for UD English (gold POS input), two
    polynomial-kernel components (``transition``, ``label``) trained with PA-I.

    The label component's features are the configuration's plus ``t=LA`` or
    ``t=RA``; each component has its own feature index, so each token's ids are
    looked up once per component.

    >>> parser = EnglishDependencyParser(degree=2, n_iter=5).fit(read_ud_english(train))   # doctest: +SKIP
    >>> parser.evaluate(read_ud_english(dev))["las"]                                      # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "ud-english"
    COMPONENTS = ("transition", "label")

    def __init__(self, *, degree: int = 2, **params):
        # d = 2 by default: d = 3 adds 0.3 UAS on EWT and parses 8x slower.
        super().__init__(degree=degree, **params)

    def fit(self, data, *, models=None, events=None) -> "EnglishDependencyParser":
        """Train on gold sentences (any iterable: it is read twice, for the
        examples and for the fstrie's events)."""
        return super().fit(list(data), models=models, events=events)

    def training_examples(self, data):
        examples, skipped = training_examples(data)
        self.skipped_sentences_ = skipped
        return examples

    def compile(self, method: str, *, events=None, **params):
        """As :meth:`TaskPipeline.compile`; an fstrie of degree >= 3 is built on
        kernel splitting (``base="split"``) unless ``base`` is given: PKE's table
        of every conjunction with one weight per relation (50 outputs) takes
        gigabytes at d = 3 (2.4 GB after 2,000 training sentences), splitting
        a tenth of that at the same speed."""
        if method == "fstrie" and "base" not in params and self.degree >= 3:
            params["base"] = "split"
        return super().compile(method, events=events, **params)

    def _on_compiled(self) -> None:
        self._runner = ArcEagerParser(self.classifiers_["transition"], self.classifiers_["label"])

    def _parser(self) -> ArcEagerParser:
        self._check_fitted()
        r = getattr(self, "_runner", None)
        if r is None or r.transitions is not self.classifiers_["transition"] or r.labels is not self.classifiers_["label"]:
            self._on_compiled()
        return self._runner

    def _config(self) -> dict:
        return {"skipped_sentences": getattr(self, "skipped_sentences_", None)}

    def _restore(self, config: dict) -> None:
        if config.get("skipped_sentences") is not None:
            self.skipped_sentences_ = config["skipped_sentences"]

    def collect_events(self, data):
        _, t_events, l_events = self._parser().parse_many(list(data), collect=True)
        return {"transition": t_events, "label": l_events}

    def parse(self, sentences: Sequence[DepSentence], *, timing: bool = False) -> List[Tuple[List[int], List[str]]]:
        """(heads, labels) of each sentence; heads are 1-based word indices, 0 = root."""
        return self._parser().parse_many(list(sentences), timing=timing)

    def reference_parse(self, sentence: DepSentence) -> Tuple[List[int], List[str]]:
        """The same parse by the Python reference loop (slow; for tests)."""
        heads, labels, _ = reference_parse(sentence, self.classifiers_["transition"], self.classifiers_["label"])
        return heads, labels

    def evaluate(self, sentences: Sequence[DepSentence]) -> dict:
        """UAS/LAS (every word, punctuation included), and where the time goes."""
        sentences = list(sentences)
        runner = self._parser()
        before = (runner.transition_decisions, runner.label_decisions, runner.classifier_seconds, runner.loop_seconds)
        start = time.perf_counter()
        predicted = runner.parse_many(sentences, timing=True)
        seconds = time.perf_counter() - start
        scores = attachment_scores(sentences, predicted)
        t_dec = runner.transition_decisions - before[0]
        l_dec = runner.label_decisions - before[1]
        clf_seconds = runner.classifier_seconds - before[2]
        decisions = t_dec + l_dec
        return {
            **scores, "sentences": len(sentences), "transition_decisions": t_dec, "label_decisions": l_dec,
            "seconds": seconds, "sentences_per_second": len(sentences) / seconds if seconds else float("inf"),
            "classifier_seconds": clf_seconds, "loop_seconds": runner.loop_seconds - before[3],
            "classifications_per_second": decisions / clf_seconds if clf_seconds else float("inf"),
            "other_seconds": seconds - clf_seconds, "method": self.classifiers_["transition"].method,
        }
