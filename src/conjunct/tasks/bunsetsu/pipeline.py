"""The Japanese bunsetsu dependency parser as a task pipeline."""

from __future__ import annotations

from typing import Iterable, List, Sequence

from ...io.validation import MISSING as _MISSING
from ...io.validation import Meta as _Meta
from ...io.validation import describe as _describe
from ..base import TaskPipeline
from .features import DEFAULT_GROUPS, FEATURE_GROUPS, check_groups
from .metrics import dependency_accuracy
from .oracle import training_rows
from .runner import BunsetsuParser
from .sentence import BunsetsuSentence

__all__ = ["BunsetsuDependencyParser"]


class BunsetsuDependencyParser(TaskPipeline):
    """Japanese bunsetsu dependency parser: Sassano's (2004) shift-reduce
    algorithm with a binary polynomial-kernel classifier over the pair features
    of :mod:`conjunct.tasks.bunsetsu.features` (Yoshinaga & Kitsuregawa 2009 Table 1 and more),
    trained with PA-I (kernel slicing).

    >>> parser = BunsetsuDependencyParser(degree=3).fit(train_sentences)   # doctest: +SKIP
    >>> parser.parse(sentences)                                            # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    groups : sequence of str
        The feature groups (:data:`~conjunct.tasks.bunsetsu.features.FEATURE_GROUPS`;
        "core" is required). By default
        :data:`~conjunct.tasks.bunsetsu.features.DEFAULT_GROUPS`: all but "siblings".
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "bunsetsu"
    SCORE_KEY = "dependency_accuracy"  # what score() returns (cross_val_score, GridSearchCV)
    COMPONENT = "depends"
    COMPONENTS = (COMPONENT,)
    RULES = ("sign",)
    CONFIG_REQUIRED = "its feature groups"

    @classmethod
    def check_config(cls, config) -> None:
        _bunsetsu_groups(config)

    def __init__(self, *, degree: int = 3, groups: Iterable[str] = DEFAULT_GROUPS, **params):
        super().__init__(degree=degree, **params)
        self.groups = groups

    def training_examples(self, data):
        # Built by the C++ feature engine; training_examples (strings) is the reference it equals.
        rows, labels, skipped = training_rows(data, check_groups(self.groups))
        self.skipped_sentences_ = skipped
        return {self.COMPONENT: (rows, labels)}

    def to_container(self):
        # The runner derives the feature keys from the trained features (once): the file stores them.
        self.runner()
        return super().to_container()

    def _make_runner(self) -> BunsetsuParser:
        return BunsetsuParser(self.classifiers_[self.COMPONENT], groups=self.groups)

    def parse(self, sentences: Sequence[BunsetsuSentence], *, timing: bool = False) -> List[List[int]]:
        """Heads of each sentence (bunsetsu indices, -1 for the root)."""
        return self.runner().parse_many(sentences, timing=timing)

    def _scores(self, data, output) -> dict:
        """Dependency and sentence accuracy."""
        dep, sent = dependency_accuracy(data, output)
        return {"dependency_accuracy": dep, "sentence_accuracy": sent}


def _bunsetsu_groups(config: _Meta) -> None:
    """The bunsetsu parser's feature groups: the templates its C++ extractor
    builds (files from before the groups existed used other templates)."""
    groups = config.raw("groups", optional=True)
    if groups is _MISSING:
        config.where.meta_fail(config._p("groups"), "missing: the model was saved with the bunsetsu feature templates of an "
                               "older conjunct, which this version does not build; retrain it")
    if (not isinstance(groups, list) or not all(isinstance(g, str) for g in groups) or "core" not in groups
            or len(set(groups)) != len(groups)
            or any(g not in FEATURE_GROUPS for g in groups)):
        config.where.meta_fail(config._p("groups"), f"expected distinct names of {list(FEATURE_GROUPS)} including 'core', "
                               f"got {_describe(groups)}")
