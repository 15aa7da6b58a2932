"""Japanese word segmentation as character-boundary classification (Kudo & Matsumoto 2003
§5.2, Kudo & Matsumoto 2003), trained and tested on the word boundaries of UD
Japanese GSD.

For a sentence ``s = c1 c2 ... cm`` every boundary between two characters gets
a binary decision "a word ends here". Its features are the characters and
character types (:func:`char_type`) in a window around the boundary -- three
characters on each side, positions ``-3..+2`` where ``-1`` is the character
left of the boundary and ``+0`` the one right of it -- as unigrams and, with
``ngram`` 2 or 3, the bigrams and trigrams inside the window. Positions outside
the sentence hold a padding character of type ``O``.

Decisions are independent, so a batch of sentences is classified with one
call: the feature ids of all its boundaries are computed with numpy (each
feature is an integer key built from the characters' ids and looked up in a
sorted key table) and passed as one CSR to the compiled classifier's batch
predict. Scores are word precision / recall / F1 with words as character spans.

Modules: ``reader`` (gold segmentations of CoNLL-U files), ``features``
(templates, strings, ids), ``oracle`` (boundary labels and the words they
make), ``runner`` (batched decisions and the Python reference), ``metrics``
and ``pipeline`` (:class:`WordSegmenter`).
"""


from .features import CHAR_TYPES, PAD, SegmentEncoder, boundary_features, char_type, templates
from .metrics import word_scores
from .oracle import boundary_labels, training_examples, words_from_boundaries
from .pipeline import WordSegmenter
from .reader import read_segmented_conllu
from .runner import BoundaryClassifier, segment_reference

__all__ = [
    "char_type",
    "CHAR_TYPES",
    "PAD",
    "templates",
    "boundary_features",
    "boundary_labels",
    "words_from_boundaries",
    "word_scores",
    "read_segmented_conllu",
    "training_examples",
    "BoundaryClassifier",
    "SegmentEncoder",
    "segment_reference",
    "WordSegmenter",
]
