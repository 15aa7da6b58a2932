"""English tokenization and sentence splitting from raw text, trained on a UD
treebank's raw text (``# text`` lines, SpaceAfter=No and multiword tokens).

Every gap between two non-whitespace characters gets one of three classes --
inside a token, a token ends, a word of a multiword token ends -- from a
polynomial-kernel classifier over the character and character-type n-grams of
the Japanese segmenter (:mod:`conjunct.tasks.segment`, whose encoder computes
the feature ids of a batch with numpy); after every token a second classifier
decides whether a sentence ends. Token offsets in the text are kept, so the
text can be rebuilt from the output.

Modules: ``reader`` (gold :class:`TokenizedText` of CoNLL-U), ``features``,
``oracle`` (gold decisions), ``runner`` (batched decisions and the Python
reference), ``conll18`` (the CoNLL 2018 shared task's evaluation: tokens,
words, sentences, tags and attachment over aligned words) and ``pipeline``
(:class:`EnglishTokenizer`).
"""

from .conll18 import EvalWord, conll18_scores, document_from_conllu, tokenization_scores
from .features import sentence_features, shape
from .oracle import GAP_CLASSES, gap_labels, training_examples
from .pipeline import EnglishTokenizer
from .reader import TokenizedText, conllu_paragraphs, read_tokenized_conllu
from .runner import TokenizerRunner, tokenize_reference

__all__ = [
    "TokenizedText",
    "read_tokenized_conllu",
    "conllu_paragraphs",
    "shape",
    "sentence_features",
    "GAP_CLASSES",
    "gap_labels",
    "training_examples",
    "TokenizerRunner",
    "tokenize_reference",
    "EnglishTokenizer",
    "EvalWord",
    "conll18_scores",
    "tokenization_scores",
    "document_from_conllu",
]
