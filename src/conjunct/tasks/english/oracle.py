"""The static arc-eager oracle (Nivre 2008) and the training examples of its
decisions for the two components (transition, label)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..._errors import DataFormatError
from ..base import oracle_sentences
from .features import ConfigurationFeatures, spec_for
from .reader import DepSentence
from .transitions import LA, RA, RE, ROOT_LABEL, SH, TRANSITIONS, State, is_projective

__all__ = ["arc_eager_oracle", "training_examples", "training_rows", "transition_costs", "exploration_examples", "projectivize",
           "NONPROJECTIVE"]

#: What training does with a non-projective gold tree: leave the sentence out,
#: or lift its crossing arcs until the tree is projective.
NONPROJECTIVE = ("skip", "lift")


def projectivize(heads: Sequence[int]) -> List[int]:
    """The projective tree of Nivre & Nilsson's (2005) lifting, without their
    label encoding: while an arc is non-projective (a word between its head and
    its dependent is not dominated by the head), the shortest such arc (the
    leftmost of equals) is moved up to its head's head. Heads of words 1..n, 0 =
    root; a projective tree is returned unchanged."""
    heads = list(heads)
    n = len(heads)

    def dominated(k: int, h: int) -> bool:  # whether h dominates k (h == 0 dominates every word)
        while k != h and k != 0:
            k = heads[k - 1]
        return k == h

    while True:
        worst = None
        for d in range(1, n + 1):
            h = heads[d - 1]
            if h == 0:
                continue
            lo, hi = min(h, d), max(h, d)
            if any(not dominated(k, h) for k in range(lo + 1, hi)):
                if worst is None or hi - lo < worst[0]:
                    worst = (hi - lo, d)
        if worst is None:
            return heads
        d = worst[1]
        heads[d - 1] = heads[heads[d - 1] - 1]


def _trainable(s: DepSentence, nonprojective: str) -> Optional[DepSentence]:
    """The sentence the oracle trains on: itself if projective, else its lifted
    tree (``"lift"``) or None (``"skip"``)."""
    if is_projective(s.heads):
        return s
    if nonprojective == "skip":
        return None
    if nonprojective != "lift":
        raise ValueError(f"nonprojective is one of {NONPROJECTIVE}, not {nonprojective!r}")
    return DepSentence(s.forms, s.upos, s.xpos, projectivize(s.heads), s.labels)


def arc_eager_oracle(heads: Sequence[int], labels: Sequence[str]) -> List[Tuple[int, Optional[str]]]:
    """The static oracle's (transition, label) sequence for a projective gold
    tree (Nivre 2008): LA if b0 heads s0, RA if s0 heads b0, RE if b0 is linked
    to a token below s0, else SH. Raises ValueError for trees it cannot build."""
    n = len(heads)
    gold = [-1] + list(heads)
    state = State(n)
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


def training_examples(sentences: Sequence[DepSentence], features: str = "malt",
                      nonprojective: str = "skip") -> Tuple[dict, int]:
    """({component: (feature lists, labels)}, skipped non-projective sentences)
    of the static oracle's decisions on the gold trees, with the feature set
    ``features`` ("malt" or "rich"); non-projective trees are left out or
    lifted (``nonprojective``, :data:`NONPROJECTIVE`)."""
    out: dict = {"transition": ([], []), "label": ([], [])}
    skipped = [0]
    for part in _example_batches(sentences, features, nonprojective, skipped):
        for name, (f, y) in part.items():
            out[name][0].extend(f)
            out[name][1].extend(y)
    return out, skipped[0]


def training_rows(sentences: Sequence[DepSentence], features: str = "malt",
                  nonprojective: str = "skip") -> Tuple[dict, int]:
    """:func:`training_examples` as rows over feature indexes ({component:
    (:class:`~conjunct.training.inputs.IndexedRows`, labels)}, skipped), built
    a batch of sentences at a time: the same model, without the feature
    strings of every decision alive at once."""
    from ..rows import RowBuilder

    builders = {"transition": RowBuilder(), "label": RowBuilder()}
    skipped = [0]
    for part in _example_batches(sentences, features, nonprojective, skipped):
        for name, (f, y) in part.items():
            builders[name].add(f, y)
    return {name: b.rows() for name, b in builders.items()}, skipped[0]


# Sentences whose examples are turned into rows at once.
ROWS_BATCH = 500


def _example_batches(sentences: Sequence[DepSentence], features: str, nonprojective: str, skipped: List[int]):
    """{component: (feature lists, labels)} of every ``ROWS_BATCH`` sentences
    in turn; ``skipped[0]`` counts the non-projective ones left out."""
    t_spec, l_spec = spec_for(features, "transition"), spec_for(features, "label")
    for batch in oracle_sentences(sentences, ROWS_BATCH):
        tf: List[List[str]] = []
        tl: List[str] = []
        lf: List[List[str]] = []
        ll: List[str] = []
        for s in batch:
            if s.heads is None:
                raise DataFormatError("training needs gold HEAD and DEPREL columns")
            s = _trainable(s, nonprojective)
            if s is None:
                skipped[0] += 1
                continue
            feats, lfeats = ConfigurationFeatures(s, spec=t_spec), ConfigurationFeatures(s, spec=l_spec)
            state = State(len(s))
            for t, label in arc_eager_oracle(s.heads, s.labels):
                tf.append(feats.features(state))
                tl.append(TRANSITIONS[t])
                if t == LA or (t == RA and state.stack[-1] != 0):
                    lf.append(lfeats.features(state) + lfeats.arc_features(state, 0 if t == LA else 1))
                    ll.append(label)
                state.apply(t, label)
        yield {"transition": (tf, tl), "label": (lf, ll)}


def transition_costs(state: State, gold: Sequence[int]) -> List[int]:
    """The dynamic oracle's cost of each transition (Goldberg & Nivre 2012): how
    many gold arcs still reachable from ``state`` it makes unreachable; -1 for a
    transition not allowed. ``gold`` is the gold head of tokens 0..n (0: -1).
    Arcs already lost are not counted (a stacked token with a head gets none
    other), so a zero-cost transition exists in every configuration."""
    s0, b, n = state.stack[-1], state.b, state.n
    heads = state.heads
    allowed = state.allowed()
    costs = [-1, -1, -1, -1]

    def reachable_head(k: int) -> bool:  # a stacked token k can still head b (ROOT heads one word)
        return k > 0 or not state.root_done

    head_on_stack = gold[b] in state.stack and reachable_head(gold[b])
    deps_on_stack = sum(1 for k in state.stack if k > 0 and heads[k] < 0 and gold[k] == b)
    deps_in_buffer = sum(1 for k in range(b, n + 1) if gold[k] == s0)
    if allowed[SH]:
        costs[SH] = int(head_on_stack) + deps_on_stack
    if allowed[RE]:
        costs[RE] = deps_in_buffer
    if allowed[LA]:
        costs[LA] = int(gold[s0] > b) + deps_in_buffer
    if allowed[RA]:
        lost = int(gold[b] != s0 and (gold[b] > b or head_on_stack)) + deps_on_stack
        if s0 == 0 and gold[b] != 0:  # ROOT's one word is taken: the gold root word, if still reachable, loses it
            lost += int(any(gold[k] == 0 for k in range(b + 1, n + 1)))
        costs[RA] = lost
    return costs


def exploration_examples(sentences: Sequence[DepSentence], transitions, labels, features: str = "malt",
                         nonprojective: str = "skip") -> dict:
    """Training examples from the configurations a trained model reaches
    (Goldberg & Nivre 2012's training with exploration, in batch form): each
    projective gold sentence is parsed by ``transitions`` / ``labels``
    (compiled classifiers; non-projective trees as in :func:`training_examples`),
    and every configuration on the way is an example
    of the zero-cost transition the model scores highest; every gold arc it
    builds is an example of its gold label. {component: (feature lists, labels)}."""
    from .runner import _best_allowed  # the same choice of transition and label as the parser's

    t_classes = [str(c) for c in transitions.classes]
    t_codes = [TRANSITIONS.index(c) if c in TRANSITIONS else -1 for c in t_classes]
    l_classes = [str(c) for c in labels.classes]
    tf: List[List[str]] = []
    tl: List[str] = []
    lf: List[List[str]] = []
    ll: List[str] = []
    t_spec, l_spec = spec_for(features, "transition"), spec_for(features, "label")
    for s in oracle_sentences(sentences):
        if s.heads is None:
            raise DataFormatError("training needs gold HEAD and DEPREL columns")
        s = _trainable(s, nonprojective)
        if s is None:
            continue
        gold = [-1] + list(s.heads)
        feats, lfeats = ConfigurationFeatures(s, spec=t_spec), ConfigurationFeatures(s, spec=l_spec)
        state = State(len(s))
        while not state.done():
            f = feats.features(state)
            allow = state.allowed()
            margins = transitions.decision_function_one(f)
            costs = transition_costs(state, gold)
            best_zero = _best_allowed(margins, len(t_classes), lambda k: t_codes[k] >= 0 and costs[t_codes[k]] == 0)
            tf.append(f)
            tl.append(t_classes[best_zero])
            c = _best_allowed(margins, len(t_classes), lambda k: t_codes[k] >= 0 and allow[t_codes[k]])
            t = t_codes[c] if c >= 0 else SH
            label = None
            s0, b = state.stack[-1], state.b
            if t == LA or (t == RA and s0 != 0):
                fl = lfeats.features(state) + lfeats.arc_features(state, 0 if t == LA else 1)
                dep = s0 if t == LA else b
                if gold[dep] == (b if t == LA else s0):
                    lf.append(fl)
                    ll.append(s.labels[dep - 1])
                lc = _best_allowed(labels.decision_function_one(fl), len(l_classes), lambda k: l_classes[k] != ROOT_LABEL)
                label = l_classes[lc] if lc >= 0 else ROOT_LABEL
            state.apply(t, label)
    return {"transition": (tf, tl), "label": (lf, ll)}
