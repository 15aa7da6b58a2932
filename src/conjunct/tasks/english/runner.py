"""The parser's decision loop: arc-eager parsing in C++ over two compiled
classifiers, one call per batch of sentences (:class:`ArcEagerParser`), and
the same loop in Python, one call per decision (:func:`reference_parse`, the
specification it is tested against).

C++ reads the tokens' strings (form, UPOS, XPOS) straight from the sentence
objects (or from flat buffers), looks each token's attributes up once in each
component's vocabularies, builds the keys of the templates of
:mod:`.features` per configuration and turns them into feature ids through
the component's key tables.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ... import _core
from ..._errors import ModelFormatError
from ...features.spec import FeatureKeys, FeatureSpec
from ..runner import Runner, check_classifier, events_matrix
from .features import ConfigurationFeatures, spec_for
from .reader import DepSentence
from .transitions import LA, RA, ROOT_LABEL, SH, TRANSITIONS, State, finish_tree

__all__ = ["ArcEagerParser", "reference_parse", "feature_keys", "token_buffers"]

#: Labels of the tokens the parser leaves headless (transitions.finish_tree).
EXTRA_LABELS = ("dep", "punct")


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


def feature_keys(index, features: str, component: str, name: str = "<model>") -> FeatureKeys:
    """The feature keys of a component's feature index: the ones its file
    stores, or (a file written before feature keys) read from its feature
    names through the templates of ``features``, and kept on the index so
    that the file saved next stores them. A name the templates do not read
    means the model was trained on other templates: it has to be retrained."""
    spec = spec_for(features, None)  # both components' templates: files from before either split convert
    groups = {t.group for t in spec.templates}
    keys = getattr(index, "keys", None)
    if keys is not None:
        stored = {t.group for t in keys.spec.templates}
        if not stored <= groups:
            raise ModelFormatError(f"the {component} classifier's features are those of the groups {sorted(stored)}, "
                                   f"not of the feature set {features!r}: the file's feature keys and its "
                                   "configuration disagree", name)
        return keys
    try:
        keys = FeatureKeys.from_names(spec, index.names)
    except ValueError as e:
        raise ModelFormatError(f"{e}: the {component} classifier was trained on other arc-eager templates (or "
                               f"another feature set than {features!r}); retrain it", name) from None
    used = set(keys.template_of.tolist())  # the engine evaluates only the templates the model has features of
    if len(used) < len(spec):
        keys = FeatureKeys.from_names(spec.select(lambda t: spec.index(t.name) in used), index.names)
    index.keys = keys
    return keys


_FIELDS = attrgetter("forms", "upos", "xpos")


def token_buffers(sentences: Sequence[DepSentence]) -> Tuple[bytes, np.ndarray, np.ndarray]:
    """The flat form of ``sentences`` that :meth:`ArcEagerParser.parse_buffers`
    reads: UTF-8 text, three field offsets per token (form, UPOS, XPOS) plus
    one, and the token offsets of every sentence."""
    values = [v.encode("utf-8", "surrogatepass") for s in sentences
              for v in chain.from_iterable(zip(*_FIELDS(s)))]
    field_ptr = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, values), dtype=np.int64, count=len(values)), out=field_ptr[1:])
    sentence_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences)), out=sentence_ptr[1:])
    return b"".join(values), field_ptr, sentence_ptr


def reference_parse(sentence: DepSentence, transitions, labels, features: str = "malt",
                    specs: Optional[Tuple[FeatureSpec, FeatureSpec]] = None,
                    trace: Optional[list] = None) -> Tuple[List[int], List[str], int]:
    """The parser in Python, one ``decision_function_one`` call per decision
    (the specification the C++ loop is tested against): (heads, labels,
    decisions). ``specs``: the two components' template specs (by default
    those of ``features``); ``trace`` gets (component, feature names) of
    every decision."""
    t_spec, l_spec = specs if specs is not None else (spec_for(features, "transition"), spec_for(features, "label"))
    t_classes = [str(c) for c in transitions.classes]
    t_codes = [TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes]
    l_classes = [str(c) for c in labels.classes]
    t_feats = ConfigurationFeatures(sentence, spec=t_spec)
    l_feats = ConfigurationFeatures(sentence, spec=l_spec)
    state = State(len(sentence))
    decisions = 0
    while not state.done():
        allow = state.allowed()
        decisions += 1
        f = t_feats.features(state)
        if trace is not None:
            trace.append(("transition", f))
        c = _best_allowed(transitions.decision_function_one(f), len(t_classes),
                          lambda k: t_codes[k] >= 0 and allow[t_codes[k]])
        t = t_codes[c] if c >= 0 else SH
        label = None
        if t == LA or (t == RA and state.stack[-1] != 0):
            decisions += 1
            move = 0 if t == LA else 1
            f = l_feats.features(state) + l_feats.arc_features(state, move)
            if trace is not None:
                trace.append(("label", f))
            lc = _best_allowed(labels.decision_function_one(f), len(l_classes), lambda k: l_classes[k] != ROOT_LABEL)
            label = l_classes[lc] if lc >= 0 else ROOT_LABEL
        state.apply(t, label)
    heads, labs = finish_tree(sentence, state.heads[1:], state.labels[1:])
    return heads, labs, decisions


class ArcEagerParser(Runner):
    """The C++ arc-eager loop over two compiled classifiers (``transitions`` over
    the configuration features, ``labels`` over those plus the arc's direction).
    With ``early_exit`` a classifier that can bound what is left of its margins
    (split) stops once the bounds settle the choice among the allowed moves or
    labels: the same choices, fewer additions."""

    COUNTERS = ("transition_decisions", "label_decisions", "classifier_seconds", "label_classifier_seconds",
                "loop_seconds")

    def __init__(self, transitions, labels, features: str = "malt", early_exit: bool = True):
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
        self.output_labels = self.label_values + [v for v in EXTRA_LABELS if v not in self.label_values]
        self._label_objects = np.asarray(self.output_labels, dtype=object)
        self.features = features
        self.early_exit = bool(early_exit)
        # Each component has a feature index of its own: its own vocabularies and keys.
        self.keys = (feature_keys(transitions.features, features, "transition"),
                     feature_keys(labels.features, features, "label"))
        try:
            self._features = tuple(_core.ArcEagerFeatures(k.tables(), self.label_values) for k in self.keys)
        except ValueError as e:  # a spec naming positions or attributes the parser does not have
            raise ModelFormatError(f"section features.keys: {e}") from None

    @property
    def specs(self) -> Tuple[FeatureSpec, FeatureSpec]:
        """The template specs of the two components (transition, label)."""
        return self.keys[0].spec, self.keys[1].spec

    def _args(self) -> dict:
        return dict(transitions=self.transitions.compiled, transition_of_class=self.transition_of_class,
                    labels=self.labels.compiled, root_label=self.root_label, dep_label=self.output_labels.index("dep"),
                    punct_label=self.output_labels.index("punct"), n_output_labels=len(self.output_labels),
                    transition_features=self._features[0], label_features=self._features[1],
                    early_exit=self.early_exit)

    def _count(self, out) -> None:
        _, _, _, n_t, n_l, clf_s, label_s, total, _ = out
        self.count(transition_decisions=int(n_t), label_decisions=int(n_l), classifier_seconds=clf_s,
                   label_classifier_seconds=label_s, loop_seconds=total)

    def _finish(self, out, collect: bool):
        heads, labels, sentence_ptr, *_, events = out
        self._count(out)
        cuts = sentence_ptr.tolist()
        heads = heads.tolist()
        labels = self._label_objects[labels].tolist()  # one C loop, not one Python step per token
        result = [(heads[a:b], labels[a:b]) for a, b in zip(cuts, cuts[1:])]
        if not collect:
            return result
        return (result, events_matrix(events[0], events[1], len(self.transitions.features)),
                events_matrix(events[2], events[3], len(self.labels.features)))

    def parse_many(self, sentences: Sequence[DepSentence], *, collect: bool = False, timing: bool = False):
        """(heads, labels) of every sentence; with ``collect`` also the classified
        vectors per component as CSR matrices (events for an fstrie)."""
        out = _core.parse_arc_eager(**self._args(), sentences=sentences, timing=timing, collect=collect)
        return self._finish(out, collect)

    def parse_buffers(self, text: bytes, field_ptr, sentence_ptr, *, collect: bool = False, timing: bool = False):
        """:meth:`parse_many` over the flat buffers of :func:`token_buffers`."""
        out = _core.parse_arc_eager_buffers(**self._args(), text=text, field_ptr=np.asarray(field_ptr, dtype=np.int64),
                                            sentence_ptr=np.asarray(sentence_ptr, dtype=np.int64), timing=timing,
                                            collect=collect)
        return self._finish(out, collect)

    def parse_tagged(self, text: bytes, form_ptr, sentence_ptr, upos, upos_names: Sequence[str], xpos,
                     xpos_names: Sequence[str], *, collect: bool = False, timing: bool = False):
        """:meth:`parse_many` over forms as UTF-8 ``text`` cut at ``form_ptr``
        (one offset per token, plus one) and tags as ids (a tagger's output):
        token k's UPOS is ``upos_names[upos[k]]``, its XPOS ``xpos_names[xpos[k]]``."""
        out = _core.parse_arc_eager_tagged(
            **self._args(), text=text, form_ptr=np.asarray(form_ptr, dtype=np.int64),
            sentence_ptr=np.asarray(sentence_ptr, dtype=np.int64), upos=np.asarray(upos, dtype=np.int32),
            upos_names=list(upos_names), xpos=np.asarray(xpos, dtype=np.int32), xpos_names=list(xpos_names),
            timing=timing, collect=collect)
        return self._finish(out, collect)

    def parse_tagged_arrays(self, text: bytes, form_ptr, sentence_ptr, upos, upos_names: Sequence[str], xpos,
                            xpos_names: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """:meth:`parse_tagged` as flat arrays over every token of the batch:
        heads (1-based within the sentence, 0 = root) and label ids (indices
        into :attr:`output_labels`)."""
        out = _core.parse_arc_eager_tagged(
            **self._args(), text=text, form_ptr=np.asarray(form_ptr, dtype=np.int64),
            sentence_ptr=np.asarray(sentence_ptr, dtype=np.int64), upos=np.asarray(upos, dtype=np.int32),
            upos_names=list(upos_names), xpos=np.asarray(xpos, dtype=np.int32), xpos_names=list(xpos_names))
        self._count(out)
        return out[0], out[1]

    def tag_and_parse(self, tagger, text, offsets, sentence_ptr, upos_of, upos_names: Sequence[str], xpos_of,
                      xpos_names: Sequence[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A fitted :class:`~conjunct.tagging.PerceptronTagger` (its compiled
        token features, weights and decoder) and this parser on its tags, over
        tokens as UTF-8 ``text`` (uint8) cut at ``offsets`` into sentences at
        ``sentence_ptr`` (:func:`conjunct.tagging.features.token_buffers`), in one
        C++ call: (joint tag ids, heads, label ids) over every token of the batch,
        as :meth:`parse_tagged_arrays` gives them on the tagger's tags. Tagger
        label ``t`` is UPOS ``upos_names[upos_of[t]]``, XPOS ``xpos_names[xpos_of[t]]``."""
        tags, out = _core.tag_parse_english(
            tag_features=tagger.compiled_features, chain=tagger.model_.compiled, method=tagger.decoder,
            beam_width=int(tagger.beam_width), upos_of=np.asarray(upos_of, dtype=np.int32), upos_names=list(upos_names),
            xpos_of=np.asarray(xpos_of, dtype=np.int32), xpos_names=list(xpos_names), **self._args(), text=text,
            offsets=np.asarray(offsets, dtype=np.int64), sentence_ptr=np.asarray(sentence_ptr, dtype=np.int64))
        self._count(out)
        return tags, out[0], out[1]

    def replay(self, sentences: Sequence[DepSentence], moves: Sequence[Sequence[Tuple[int, str]]]):
        """The feature ids C++ builds for every configuration of ``moves`` (per
        sentence, (transition, label) pairs; labels among the label values),
        per component as CSR matrices: what the parser classifies on that path."""
        index = {v: k for k, v in enumerate(self.label_values)}
        flat = [m for ms in moves for m in ms]
        codes = np.asarray([t for t, _ in flat], dtype=np.int32)
        labels = np.asarray([-1 if lab is None else index[lab] for _, lab in flat], dtype=np.int32)
        ptr = np.zeros(len(moves) + 1, dtype=np.int64)
        np.cumsum([len(ms) for ms in moves], out=ptr[1:])
        ev = _core.replay_arc_eager(self._features[0], self._features[1], self.root_label, sentences, codes, labels, ptr)
        return (events_matrix(ev[0], ev[1], len(self.transitions.features)),
                events_matrix(ev[2], ev[3], len(self.labels.features)))

    run = parse_many
