"""The Japanese word segmenter as a task pipeline."""

from __future__ import annotations

from typing import List, Optional, Sequence

from ..base import TaskPipeline
from ..runner import keys_at_load
from .dictionary import check_dictionary_config, dictionary_config, restore_dictionary, training_dictionaries
from .features import spec
from .metrics import word_scores
from .oracle import engine_training_rows
from .runner import BoundaryClassifier

__all__ = ["WordSegmenter"]


class WordSegmenter(TaskPipeline):
    """Japanese word segmenter: a binary polynomial-kernel classifier per
    character boundary over character and character-type n-grams (Kudo & Matsumoto 2003
    §5.2), trained with PA-I (kernel slicing). Gold data are sentences as word
    lists (:func:`read_segmented_conllu`); input to :meth:`segment` is text.

    >>> seg = WordSegmenter(degree=2).fit(read_segmented_conllu("ja_gsd-ud-train.conllu"))   # doctest: +SKIP
    >>> seg.segment(["日本語の文です。"])                                                      # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    ngram : {1, 2, 3, 4}
        Longest character n-gram inside the boundary's window.
    type_ngram : int, optional
        Longest character-type n-gram inside the window (1 to 6; None: ``ngram``).
    dictionary : bool
        Add the word-dictionary flags (Neubig et al. 2011): a known word of
        length 1, 2, 3 or 4+ ends left of the boundary, starts right of it or
        spans it. The known words are the training words (saved with the
        model) and those of ``user_dictionary``.
    dictionary_folds : int
        In training, a sentence sees the dictionary of the words of the other
        folds (1: every training word), as text at run time holds words the
        dictionary does not know.
    longest_match : bool
        With ``dictionary``, also flag where the greedy longest-match
        segmentation with the known words cuts, matching from the left and
        from the right (a file written before the setting has none).
    user_dictionary : str, optional
        A file of known words, one per line (UTF-8; blank lines and ``#``
        lines skipped), read when training.
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "ja-segment"
    SCORE_KEY = "f1"  # what score() returns (cross_val_score, GridSearchCV)
    COMPONENT = "boundary"
    COMPONENTS = (COMPONENT,)
    RULES = ("sign",)
    NEEDED_CLASS = {None: "1"}  # "a word ends here"
    CONFIG_RANGES = {"ngram": (1, 4)}
    batch_size = 4096  # sentences per classifier call

    def __init__(self, *, degree: int = 2, ngram: int = 3, type_ngram: Optional[int] = None, dictionary: bool = True,
                 dictionary_folds: int = 10, user_dictionary: Optional[str] = None, longest_match: bool = False,
                 **params):
        # d = 2 by default: on GSD it is as accurate as d = 3 (96.8 vs 96.5 word
        # F1) with a seventeenth of the memory (0.2 vs 3.4 GB of conjunctions).
        super().__init__(degree=degree, **params)
        self.ngram = ngram
        self.type_ngram = type_ngram
        self.dictionary = dictionary
        self.dictionary_folds = dictionary_folds
        self.user_dictionary = user_dictionary
        self.longest_match = longest_match

    @classmethod
    def check_config(cls, config) -> None:
        config.int("type_ngram", 1, 6, optional=True, none=True)
        config.bool("longest_match", optional=True)
        check_dictionary_config(config)

    def _config(self) -> dict:
        return dictionary_config(self)

    def _restore(self, config: dict) -> None:
        self.type_ngram = None  # a file written before the setting: type n-grams as long as ngram
        self.longest_match = False  # nor longest-match flags
        super()._restore(config)
        restore_dictionary(self, config)

    def _compiled(self) -> None:
        self.runner()  # its feature keys go on the feature index, so the file saved next stores them

    def _loaded(self, name: str) -> None:
        keys_at_load(self, self.COMPONENT, spec(self.ngram, dictionary=self.dictionary, type_ngram=self.type_ngram,
                                                longest_match=self._longest()), "word segmentation", name)

    def _longest(self) -> bool:
        return bool(self.dictionary and self.longest_match)

    def training_examples(self, data):
        # Rows from the C++ engine the runner decides with: the model of the feature strings, without them.
        return {self.COMPONENT: engine_training_rows(data, self.ngram, training_dictionaries(self, data), self.type_ngram,
                                                     self._longest())}

    def _make_runner(self) -> BoundaryClassifier:
        words = getattr(self, "dictionary_", None) if self.dictionary else None
        return BoundaryClassifier(self.classifiers_[self.COMPONENT], ngram=self.ngram, dictionary=words,
                                  type_ngram=self.type_ngram, longest_match=self._longest())

    def _inputs(self, data) -> List[str]:
        """The texts of gold word sequences (texts stay as they are)."""
        return [s if isinstance(s, str) else "".join(s) for s in data]

    def _run(self, runner, texts, *, timing: bool = False) -> List[List[str]]:
        out: List[List[str]] = []
        for k in range(0, len(texts), self.batch_size):
            out.extend(runner.segment_many(list(texts[k:k + self.batch_size])))
        return out

    def segment(self, texts: Sequence[str]) -> List[List[str]]:
        """The words of every text (whitespace in a text is kept as characters; see the CLI for line input)."""
        if isinstance(texts, str):
            raise TypeError("segment() takes a sequence of texts; wrap a single text in a list")
        return self._run(self.runner(), texts)

    def _scores(self, data, output) -> dict:
        """Word precision / recall / F1 and boundary accuracy."""
        return word_scores(data, output)
