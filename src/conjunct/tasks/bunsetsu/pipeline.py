"""The Japanese bunsetsu dependency parser as a task pipeline."""

from __future__ import annotations

from typing import List, Sequence

from ..base import TaskPipeline
from .metrics import dependency_accuracy
from .oracle import training_examples
from .runner import BunsetsuParser
from .sentence import BunsetsuSentence

__all__ = ["BunsetsuDependencyParser"]


class BunsetsuDependencyParser(TaskPipeline):
    """Japanese bunsetsu dependency parser: Sassano's (2004) shift-reduce
    algorithm with a binary polynomial-kernel classifier over the features of
    seed 000 Table 1, trained with PA-I (kernel slicing).

    >>> parser = BunsetsuDependencyParser(degree=3).fit(train_sentences)   # doctest: +SKIP
    >>> parser.parse(sentences)                                            # doctest: +SKIP
    """

    task = "bunsetsu"
    SCORE_KEY = "dependency_accuracy"  # what score() returns (cross_val_score, GridSearchCV)
    COMPONENT = "depends"
    COMPONENTS = (COMPONENT,)

    def training_examples(self, data):
        feats, labels, skipped = training_examples(data)
        self.skipped_sentences_ = skipped
        return {self.COMPONENT: (feats, labels)}

    def _make_runner(self) -> BunsetsuParser:
        return BunsetsuParser(self.classifiers_[self.COMPONENT])

    def parse(self, sentences: Sequence[BunsetsuSentence], *, timing: bool = False) -> List[List[int]]:
        """Heads of each sentence (bunsetsu indices, -1 for the root)."""
        return self.runner().parse_many(sentences, timing=timing)

    def _scores(self, data, output) -> dict:
        """Dependency and sentence accuracy."""
        dep, sent = dependency_accuracy(data, output)
        return {"dependency_accuracy": dep, "sentence_accuracy": sent}
