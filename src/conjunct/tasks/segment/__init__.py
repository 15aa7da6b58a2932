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

The templates are declared once, as a feature spec (:func:`spec`). A batch
of texts is segmented with one C++ call (``_core.BoundaryFeatures``): from
the texts' UTF-8 bytes it looks every character n-gram up once in the model's
vocabularies, turns each boundary's templates into integer keys and feature
ids, and classifies every boundary with the compiled classifier, without the
GIL; the Python reference names the same features as strings through the
spec. Scores are word precision / recall / F1 with words as character spans.

Modules: ``reader`` (gold segmentations of CoNLL-U files), ``features``
(templates, strings, ids), ``oracle`` (boundary labels and the words they
make), ``runner`` (batched decisions and the Python reference), ``metrics``
and ``pipeline`` (:class:`WordSegmenter`).
"""


from .features import CHAR_TYPES, PAD, boundary_features, char_type, spec, templates
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
    "spec",
    "segment_reference",
    "WordSegmenter",
]
