"""The English tokenizer and sentence splitter as a task pipeline."""

from __future__ import annotations

from typing import List, Optional, Sequence

from ...io._textin import check_no_surrogates, has_surrogate
from ..base import TaskPipeline
from ..runner import keys_at_load
from ..segment.dictionary import check_dictionary_config, dictionary_config, restore_dictionary, training_dictionaries
from .features import gap_spec
from .oracle import engine_training_rows, known_words
from .reader import TokenizedText
from .runner import TokenizerRunner

__all__ = ["EnglishTokenizer"]


class EnglishTokenizer(TaskPipeline):
    """Raw text -> tokens, multiword tokens' words and sentences, trained on a
    UD treebank's ``# text`` lines (:func:`read_tokenized_conllu`).

    Two polynomial-kernel classifiers (PA-I, kernel slicing): ``boundary``
    decides every gap between two non-whitespace characters -- inside a token,
    a token ends, or a word of a multiword token ends (EWT's ``do|n't``,
    ``it|'s``) -- over the character and character-type n-grams of the
    Japanese segmenter; ``sentence`` decides after every token whether a
    sentence ends, over the token, its neighbours and their shapes.
    Whitespace always ends a token and is never part of one.

    >>> tok = EnglishTokenizer().fit(read_tokenized_conllu("en_ewt-ud-train.conllu"))   # doctest: +SKIP
    >>> tok.tokenize(["The dog barked. It can't stop."])[0].words                         # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree of both classifiers.
    ngram : {1, 2, 3}
        Longest character / character-type n-gram of the gap features.
    dictionary : bool
        Add the segmenter's word-dictionary flags to the gap features, the
        known words being the training tokens and the words of multiword
        tokens (a training text sees those of the other ``dictionary_folds``
        folds, as in :class:`~conjunct.tasks.segment.WordSegmenter`).
    dictionary_folds : int
    links : bool
        Add the piece's kind to the gap features: whether it looks like a
        web or e-mail address (:func:`~conjunct.tasks.tokenize.features.piece_kind`).
    link_spans : bool
        Add where a gap is in its piece's web or e-mail address (inside it, at
        either end, or outside: :func:`~conjunct.tasks.tokenize.features.link_span`),
        so the quotes and brackets around an address are cut as elsewhere.
    type_ngram : int or None
        Longest character-type n-gram of the gap features (1 to 6; None: ``ngram``).
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "en-tokenize"
    SCORE_KEY = "words_f1"
    COMPONENTS = ("boundary", "sentence")
    RULES = ("sign", "argmax", "ovo")
    NEEDED_CLASS = {"sentence": "1"}  # "a sentence ends here"
    CONFIG_RANGES = {"ngram": (1, 3)}
    batch_size = 1000  # texts per batch of decisions

    def __init__(self, *, degree: int = 2, ngram: int = 3, dictionary: bool = True, dictionary_folds: int = 10,
                 links: bool = True, link_spans: bool = True, type_ngram: Optional[int] = None, **params):
        super().__init__(degree=degree, **params)
        self.ngram = ngram
        self.dictionary = dictionary
        self.dictionary_folds = dictionary_folds
        self.links = links
        self.link_spans = link_spans
        self.type_ngram = type_ngram

    @classmethod
    def check_config(cls, config) -> None:
        config.bool("links", optional=True)
        config.bool("link_spans", optional=True)
        config.int("type_ngram", 1, 6, optional=True, none=True)
        check_dictionary_config(config)

    def _config(self) -> dict:
        return dictionary_config(self)

    def _restore(self, config: dict) -> None:
        super()._restore(config)
        # A file written before these features has neither.
        self.links = config.get("links", False) is True
        self.link_spans = config.get("link_spans", False) is True
        self.type_ngram = config.get("type_ngram")
        restore_dictionary(self, config)

    def _compiled(self) -> None:
        self.runner()  # its feature keys go on the feature index, so the file saved next stores them

    def _loaded(self, name: str) -> None:
        keys_at_load(self, "boundary", gap_spec(self.ngram, self.dictionary, self.links, self.link_spans, self.type_ngram), "tokenizer's boundary", name)

    def training_examples(self, data):
        dictionaries = training_dictionaries(self, [known_words(t) for t in data])
        # Gap rows from the C++ engine the runner decides with: the model of the feature strings, without them.
        return engine_training_rows(data, self.ngram, dictionaries, self.links, self.link_spans, self.type_ngram)

    def _make_runner(self) -> TokenizerRunner:
        return TokenizerRunner(self.classifiers_["boundary"], self.classifiers_["sentence"], ngram=self.ngram,
                               dictionary=getattr(self, "dictionary_", None) if self.dictionary else None,
                               links=self.links, link_spans=self.link_spans, type_ngram=self.type_ngram)

    def _inputs(self, data) -> List[str]:
        return [t if isinstance(t, str) else t.text for t in data]

    def _run(self, runner, texts, *, timing: bool = False) -> List[TokenizedText]:
        out: List[TokenizedText] = []
        for k in range(0, len(texts), self.batch_size):
            out.extend(runner.run(list(texts[k:k + self.batch_size])))
        return out

    def tokenize(self, texts: Sequence[str]) -> List[TokenizedText]:
        """Tokens, words and sentences of every text (a paragraph, any length)."""
        if isinstance(texts, str):
            raise TypeError("tokenize() takes a sequence of texts; wrap a single text in a list")
        texts = list(texts)
        for k, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"text {k + 1}: expected a string, got {type(t).__name__}")
            if has_surrogate(t):  # text read from UTF-8 never has one
                check_no_surrogates(t, f"text {k + 1}")
        return self._run(self.runner(), texts)

    run = tokenize

    def _scores(self, data, output) -> dict:
        """Tokens, words and sentences F1 under the CoNLL 2018 shared task's alignment."""
        from .conll18 import tokenization_scores

        return tokenization_scores(data, output)
