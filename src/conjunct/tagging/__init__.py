"""Sequence labeling with exact staggered decoding (Kaji et al. 2010).

Linear-chain taggers (averaged perceptron, HMM) whose decoding runs in C++:
``viterbi`` (the O(N L^2) reference), ``staggered`` and ``staggered-column``
(exact, fast with many labels), ``carpediem`` (exact baseline), ``beam`` and
``greedy`` (approximate).

>>> from conjunct.tagging import PerceptronTagger
>>> tagger = PerceptronTagger(n_iter=5).fit([["a", "dog"], ["the", "cat"]], [["D", "N"], ["D", "N"]])
>>> tagger.predict([["the", "dog"]])
[['D', 'N']]
"""

from .chain import DECODERS, EXACT_DECODERS, ChainDecoder, Decoded, LinearChainModel
from .features import DEFAULT_TEMPLATES, JAPANESE_TEMPLATES, Featurizer, word_shape
from .taggers import HMMTagger, PerceptronTagger, TaggedBatch

__all__ = [
    "DECODERS",
    "DEFAULT_TEMPLATES",
    "EXACT_DECODERS",
    "ChainDecoder",
    "Decoded",
    "Featurizer",
    "HMMTagger",
    "JAPANESE_TEMPLATES",
    "LinearChainModel",
    "PerceptronTagger",
    "TaggedBatch",
    "word_shape",
]
