"""The English arc-eager parser as a task pipeline."""

from __future__ import annotations

from typing import List, Sequence, Tuple

from ..._errors import ConjunctError, DataFormatError
from ...io.tokens import sentence_columns
from ...progress import status
from ..base import TaskPipeline
from .features import FEATURE_SETS, feature_set
from .metrics import attachment_scores
from .oracle import NONPROJECTIVE, exploration_examples, training_examples, training_rows
from .reader import DepSentence, _sentence
from .runner import ArcEagerParser, reference_parse

__all__ = ["EnglishDependencyParser"]


class EnglishDependencyParser(TaskPipeline):
    """Labeled arc-eager dependency parser for UD English (gold POS input), two
    polynomial-kernel components (``transition``, ``label``) trained with PA-I.

    The label component's features are the configuration's without the
    lookahead (s1, b2, b3), plus ``t=LA`` or ``t=RA``; each component has its
    own feature index and vocabularies, so each token's strings are looked up
    once per component, in C++.

    >>> parser = EnglishDependencyParser(degree=2, n_iter=5).fit(read_ud_english(train))   # doctest: +SKIP
    >>> parser.evaluate(read_ud_english(dev))["las"]                                      # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    features : {"malt", "rich", "zn", "richu", "richu-order2", ...}
        Configuration features: MaltParser's default model ("malt", the
        default) or that plus Zhang & Nivre's (2011) non-local features
        ("rich": on EWT dev with predicted tags 1.56 LAS higher, for twice the
        features per decision, four times the conjunctions at d = 2, about
        four times the parse time and twice the training time;
        docs/english_parser.md); "zn": "rich" plus Zhang & Nivre's
        conjunctions of three; "richu": "rich" plus the UPOS of seven more
        tokens (:mod:`.features`; on all of EWT train with predicted tags
        80.21 dev LAS against "rich"'s 80.13 and "malt"'s 78.59, for ~3.5x
        "malt"'s parse time and ~4x its training); "richu-<families>": "richu"
        without those template families (:data:`.features.SUBSETS`, for
        finding which of them buy the LAS).
    explore : bool
        Train with exploration (Goldberg & Nivre 2012's dynamic oracle on the
        configurations a first-round model reaches): on EWT dev with
        predicted tags +0.36 LAS with "rich" (2,000 training sentences) and
        +0.31 with "malt" (all of train), the same parse cost, about three times
        the training (the first round, a pass over the training text, a final
        round on twice the examples; ``fit(first_round=...)`` skips the first).
    nonprojective : {"skip", "lift"}
        What training does with a non-projective gold tree (2.3% of EWT
        train's sentences, 4.1% of its words), which the arc-eager system
        cannot build: leave it out ("skip", the default) or train on it with
        its crossing arcs lifted (Nivre & Nilsson 2005, without their label
        encoding). Parsing is the same either way.
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "ud-english"
    SCORE_KEY = "las"  # what score() returns (cross_val_score, GridSearchCV)
    COMPONENTS = ("transition", "label")
    RULES = ("sign", "argmax")
    MAX_CLASSES = {"transition": 8}  # the arc-eager loop's table of transitions
    nonprojective = "skip"  # what parsers pickled before the parameter existed were trained with

    @classmethod
    def check_config(cls, config) -> None:
        config.str("features", tuple(FEATURE_SETS), optional=True)
        config.str("nonprojective", NONPROJECTIVE, optional=True)

    def __init__(self, *, degree: int = 2, features: str = "malt", explore: bool = False, nonprojective: str = "skip",
                 **params):
        # d = 2 by default: d = 3 adds 0.3 UAS on EWT and parses 8x slower.
        super().__init__(degree=degree, **params)
        self.features = features
        self.explore = explore
        self.nonprojective = nonprojective

    def fit(self, data, *, models=None, events=None, first_round=None) -> "EnglishDependencyParser":
        """Train on gold sentences (any iterable: it is read twice, for the
        examples and for the fstrie's events). With ``explore=True``,
        ``first_round`` may be a parser trained on the same sentences with the
        same parameters and ``explore=False``: it takes the first round's place
        (its parses are what that round's model would give), saving that
        training."""
        if first_round is not None and not self.explore:
            raise ConjunctError("first_round is the first round of training with exploration: set explore=True")
        self._first_round = first_round
        try:
            return super().fit(list(data), models=models, events=events)
        finally:
            del self._first_round

    def training_examples(self, data):
        feature_set(self.features)  # an unknown name fails before any work
        if self.nonprojective not in NONPROJECTIVE:
            raise ConjunctError(f"nonprojective is one of {NONPROJECTIVE}, not {self.nonprojective!r}")
        if not self.explore:
            # Rows built a batch of sentences at a time: the model of the strings, without holding them all.
            examples, self.skipped_sentences_ = training_rows(data, self.features, self.nonprojective)
            return examples
        examples, skipped = training_examples(data, self.features, self.nonprojective)
        self.skipped_sentences_ = skipped
        # Training with exploration (Goldberg & Nivre 2012), in two batch rounds:
        # a model trained on the static oracle's examples parses the training
        # text, and the configurations it reaches, labelled by the dynamic
        # oracle, join the static examples for the final training.
        from ...training import PAClassifier

        first = self._first_round_classifiers(examples)
        for name, (feats, labels) in examples.items():
            if name in first:
                continue
            status(f"{name}: first round (static oracle) on {len(labels):,} examples")
            est = PAClassifier(degree=self.degree, C=self.C, n_iter=self.n_iter, margin=self.margin,
                               common_features=self.common_features, random_state=self.random_state, verbose=self.verbose)
            first[name] = est.fit(feats, labels).model_.compile("pke")
        status("parsing the training text with the first-round model (dynamic oracle)")
        explored = exploration_examples(data, first["transition"], first["label"], self.features, self.nonprojective)
        return {name: (examples[name][0] + explored[name][0], examples[name][1] + explored[name][1])
                for name in examples}

    def _first_round_classifiers(self, examples) -> dict:
        """The classifiers of ``fit``'s ``first_round`` parser (checked to be
        this training's first round), or {} without one."""
        other = getattr(self, "_first_round", None)
        if other is None:
            return {}
        if not isinstance(other, EnglishDependencyParser) or not getattr(other, "classifiers_", None):
            raise ConjunctError("first_round must be a fitted EnglishDependencyParser")
        mine, theirs = self.get_params(), other.get_params()
        differ = sorted(k for k in ("features", "degree", "C", "n_iter", "margin", "common_features", "random_state",
                                    "nonprojective")
                        if mine[k] != theirs[k])
        if other.explore or differ:
            raise ConjunctError("first_round was trained " + ("with exploration" if other.explore else
                                                              f"with other {', '.join(differ)}") +
                                "; it has to be the static round of this training")
        stats = getattr(other, "training_stats_", {}) or {}
        for name, (_, labels) in examples.items():
            seen = stats.get(name, {}).get("examples")
            if seen is not None and seen != len(labels):
                raise ConjunctError(f"first_round's {name} component was trained on {seen:,} examples, this "
                                    f"training has {len(labels):,}: it was trained on other sentences")
        status("first round: the static parser given as first_round")
        return {name: other.classifiers_[name] for name in self.COMPONENTS}

    def compile(self, method: str, *, events=None, **params):
        """As :meth:`TaskPipeline.compile`; an fstrie of degree >= 3 is built on
        kernel splitting (``base="split"``) unless ``base`` is given: PKE's table
        of every conjunction with one weight per relation (50 outputs) takes
        gigabytes at d = 3 (2.4 GB after 2,000 training sentences), splitting
        a tenth of that at the same speed."""
        if method == "fstrie" and "base" not in params and self.degree >= 3:
            params["base"] = "split"
        return super().compile(method, events=events, **params)

    def _make_runner(self) -> ArcEagerParser:
        return ArcEagerParser(self.classifiers_["transition"], self.classifiers_["label"], self.features)

    def _config(self) -> dict:
        return {"skipped_sentences": getattr(self, "skipped_sentences_", None)}

    def _restore(self, config: dict) -> None:
        # Models saved before feature sets were named were trained on "malt".
        config = {"features": "malt", **config}
        super()._restore(config)
        if config.get("skipped_sentences") is not None:
            self.skipped_sentences_ = config["skipped_sentences"]

    def parse(self, sentences: Sequence[DepSentence], *, timing: bool = False) -> List[Tuple[List[int], List[str]]]:
        """(heads, labels) of each sentence; heads are 1-based word indices, 0 = root.

        Sentences are :class:`DepSentence` s (``read_ud_english``), conllu
        TokenLists or spaCy Docs (form, upos, xpos), or (form, upos, xpos) tuples.
        """
        return self.runner().parse_many([_as_dep(s, k, gold=False) for k, s in enumerate(sentences)], timing=timing)

    def reference_parse(self, sentence: DepSentence) -> Tuple[List[int], List[str]]:
        """The same parse by the Python reference loop (slow; for tests), over
        the components' template specs."""
        heads, labels, _ = reference_parse(sentence, self.classifiers_["transition"], self.classifiers_["label"],
                                           self.features, specs=self.runner().specs)
        return heads, labels

    def to_container(self):
        # The runner derives the feature keys from the trained features (once): the file stores them.
        self.runner()
        return super().to_container()

    def _gold(self, data) -> list:
        return [_as_dep(s, k, gold=True) for k, s in enumerate(data)]

    def _scores(self, data, output) -> dict:
        """UAS/LAS (every word, punctuation included)."""
        return attachment_scores(data, output)


def _as_dep(sentence, k: int, *, gold: bool) -> DepSentence:
    """A DepSentence of any token stream (:mod:`conjunct.io.tokens`); ``gold``
    reads HEAD and DEPREL too (CoNLL-U)."""
    if isinstance(sentence, DepSentence):
        return sentence
    columns = ("form", "upos", "xpos", "head", "deprel") if gold else ("form", "upos", "xpos")
    rows = sentence_columns(sentence, columns, k)
    if any(len(r) < len(columns) for r in rows):
        raise DataFormatError(f"sentence {k + 1}: tokens need the columns {columns}, got {rows[0]!r:.80}")
    if gold:
        return _sentence(rows, k=k)
    return DepSentence([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
