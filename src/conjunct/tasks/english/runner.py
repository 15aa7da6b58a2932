"""The parser's decision loop: arc-eager parsing in C++ over two compiled
classifiers (:class:`ArcEagerParser`), and the same loop in Python, one call per
decision (:func:`reference_parse`, the specification it is tested against)."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ... import _core
from ..runner import Runner, check_classifier, events_matrix
from .features import ARC_FEATURES, ConfigurationFeatures, EnglishEncoder
from .reader import DepSentence
from .transitions import LA, RA, ROOT_LABEL, SH, TRANSITIONS, State, finish_tree

__all__ = ["ArcEagerParser", "reference_parse"]


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


def reference_parse(sentence: DepSentence, transitions, labels, features: str = "malt") -> Tuple[List[int], List[str], int]:
    """The parser in Python, one ``decision_function_one`` call per decision
    (the specification the C++ loop is tested against): (heads, labels, decisions)."""
    t_classes = [str(c) for c in transitions.classes]
    t_codes = [TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes]
    l_classes = [str(c) for c in labels.classes]
    feats = ConfigurationFeatures(sentence, features)
    state = State(len(sentence))
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
    heads, labs = finish_tree(sentence, state.heads[1:], state.labels[1:])
    return heads, labs, decisions


class ArcEagerParser(Runner):
    """The C++ arc-eager loop over two compiled classifiers (``transitions`` over
    the configuration features, ``labels`` over those plus ``t=LA``/``t=RA``)."""

    COUNTERS = ("transition_decisions", "label_decisions", "classifier_seconds", "loop_seconds")

    def __init__(self, transitions, labels, features: str = "malt"):
        check_classifier(transitions, "transition", rules=("sign", "argmax"))
        check_classifier(labels, "label", rules=("sign", "argmax"))
        super().__init__([transitions, labels])
        self.transitions = transitions
        self.labels = labels
        t_classes = [str(c) for c in transitions.classes]
        self.transition_of_class = np.asarray([TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes], dtype=np.int64)
        self.label_classes = [str(c) for c in labels.classes]
        self.label_values = self.label_classes + ([] if ROOT_LABEL in self.label_classes else [ROOT_LABEL])
        self.root_label = self.label_values.index(ROOT_LABEL)
        self.features = features
        self.t_encoder = EnglishEncoder(transitions.features, self.label_values, features)
        # The label classifier has a feature index of its own: its token ids differ.
        self.l_encoder = EnglishEncoder(labels.features, self.label_values, features)

    def parse_many(self, sentences: Sequence[DepSentence], *, collect: bool = False, timing: bool = False):
        """(heads, labels) of every sentence; with ``collect`` also the classified
        vectors per component as CSR matrices (events for an fstrie)."""
        sentences = list(sentences)
        t_tables = self.t_encoder.encode(sentences)
        l_tables = self.l_encoder.encode(sentences)
        heads, labels, n_t, n_l, clf_s, total, events = _core.parse_arc_eager(
            self.transitions._core, self.transitions.rule.kind, self.transition_of_class, self.labels._core,
            self.labels.rule.kind, len(self.label_classes), self.root_label, len(self.label_values),
            t_tables["sentence_ptr"], t_tables, l_tables, timing, collect)
        self.count(transition_decisions=int(n_t), label_decisions=int(n_l), classifier_seconds=clf_s, loop_seconds=total)
        ptr = t_tables["sentence_ptr"].tolist()
        values = self.label_values + [None]  # -1: unattached
        heads, labels = heads.tolist(), [values[v] for v in labels.tolist()]
        out = [finish_tree(s, heads[ptr[k] + 1:ptr[k + 1]], labels[ptr[k] + 1:ptr[k + 1]]) for k, s in enumerate(sentences)]
        if not collect:
            return out
        return (out, events_matrix(events[0], events[1], len(self.transitions.features)),
                events_matrix(events[2], events[3], len(self.labels.features)))

    run = parse_many
