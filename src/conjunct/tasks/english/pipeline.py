"""The English arc-eager parser as a task pipeline."""

from __future__ import annotations

from typing import List, Sequence, Tuple

from ..base import TaskPipeline
from .metrics import attachment_scores
from .oracle import training_examples
from .reader import DepSentence
from .runner import ArcEagerParser, reference_parse

__all__ = ["EnglishDependencyParser"]


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

    def _make_runner(self) -> ArcEagerParser:
        return ArcEagerParser(self.classifiers_["transition"], self.classifiers_["label"])

    def _config(self) -> dict:
        return {"skipped_sentences": getattr(self, "skipped_sentences_", None)}

    def _restore(self, config: dict) -> None:
        super()._restore(config)
        if config.get("skipped_sentences") is not None:
            self.skipped_sentences_ = config["skipped_sentences"]

    def parse(self, sentences: Sequence[DepSentence], *, timing: bool = False) -> List[Tuple[List[int], List[str]]]:
        """(heads, labels) of each sentence; heads are 1-based word indices, 0 = root."""
        return self.runner().parse_many(sentences, timing=timing)

    run = parse

    def reference_parse(self, sentence: DepSentence) -> Tuple[List[int], List[str]]:
        """The same parse by the Python reference loop (slow; for tests)."""
        heads, labels, _ = reference_parse(sentence, self.classifiers_["transition"], self.classifiers_["label"])
        return heads, labels

    def _gold(self, data) -> list:
        return list(data)

    def _scores(self, data, output) -> dict:
        """UAS/LAS (every word, punctuation included)."""
        return attachment_scores(data, output)
