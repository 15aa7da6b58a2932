"""The CoNLL-2000 chunker as a task pipeline."""

from __future__ import annotations

from typing import List

from ..._errors import DataFormatError
from ...io.tokens import sentence_columns
from ..base import TaskPipeline
from ..runner import keys_at_load
from .features import spec
from .metrics import chunk_scores
from .oracle import training_examples
from .runner import YamchaChunker

__all__ = ["Chunker"]


class Chunker(TaskPipeline):
    """CoNLL-2000 text chunker in the YamCha style: a multi-class polynomial-kernel
    classifier (IOB2 chunk tags as classes) over +-2 word/POS window features and
    the two previous decisions, trained with PA-I (kernel slicing).

    Sentences are lists of ``(word, POS)`` or ``(word, POS, chunk)`` tuples, as
    :func:`conjunct.io.corpora.read_conll2000` returns them.

    >>> chunker = Chunker(degree=2).fit(read_conll2000("train.txt"))   # doctest: +SKIP
    >>> chunker.evaluate(read_conll2000("test.txt"))["f1"]             # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    window : int
        Word / POS positions on each side of the token.
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "conll2000-chunk"
    SCORE_KEY = "f1"  # what score() returns (cross_val_score, GridSearchCV)
    COMPONENT = "chunk"
    COMPONENTS = (COMPONENT,)
    CONFIG_RANGES = {"window": (0, 32)}

    def __init__(self, *, degree: int = 2, window: int = 2, **params):
        super().__init__(degree=degree, **params)
        self.window = window

    def training_examples(self, data):
        from ...training.checks import check_int

        check_int("window", self.window, 0)  # a negative window has no features: F1 0.00, silently
        _check_gold(data)
        return {self.COMPONENT: training_examples(data, self.window)}

    def _compiled(self) -> None:
        self.runner()  # its feature keys go on the feature index, so the file saved next stores them

    def _loaded(self, name: str) -> None:
        keys_at_load(self, self.COMPONENT, spec(self.window), "chunking", name)

    def _make_runner(self) -> YamchaChunker:
        return YamchaChunker(self.classifiers_[self.COMPONENT], window=self.window)

    def chunk(self, sentences, *, timing: bool = False) -> List[List[str]]:
        """The IOB2 chunk tag of every token of every sentence: (word, POS)
        tuples, conllu TokenLists (form, xpos) or spaCy Docs (text, tag_)."""
        sentences = [sentence_columns(s, ("form", "xpos"), k) for k, s in enumerate(sentences)]
        return self.runner().chunk_many(sentences, timing=timing)

    def _gold(self, data):
        _check_gold(data)
        return data

    def _scores(self, data, output) -> dict:
        """conlleval chunk precision / recall / F1 and token accuracy."""
        return chunk_scores([[t[2] for t in s] for s in data], output)


def _check_gold(sentences) -> None:
    for k, s in enumerate(sentences):
        for t in s:
            if len(t) < 3:
                raise DataFormatError(f"sentence {k + 1}: tokens need a gold chunk tag (word POS chunk)")
