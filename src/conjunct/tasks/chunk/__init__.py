"""Text chunking in the YamCha style (Kudo & Matsumoto 2001) on CoNLL-2000.

Each token gets one multi-class decision (its IOB2 chunk tag), left to right.
Its features are the words and POS tags in a window of +-2 tokens (static)
plus the two previous decisions ("t[-1]=B-NP", "t[-2]=I-NP": YamCha's
dynamic features), declared once as a feature spec (:func:`spec`); C++
looks each token's word and tag up once in the model's vocabularies and
turns the templates into feature ids through its key table. Because
each decision feeds the next one's features, the loop is sequential; it runs
in C++ (``cpp/src/tasks/yamcha_chunk.cpp``) and calls the compiled classifier
directly with the GIL released. Training uses the gold previous tags.

Scores are chunk precision / recall / F1 exactly as ``conlleval`` counts them
(:func:`conlleval_chunks`: a chunk starts at ``B-X``, at ``I-X`` after ``O``
or after a chunk of another type, and ends before ``B``, ``O`` or a type
change).

Modules: ``features`` (window and dynamic features; ids), ``oracle`` (training
examples), ``runner`` (the C++ loop and the Python reference), ``metrics``
(conlleval) and ``pipeline`` (:class:`Chunker`). Sentences are read by
:func:`conjunct.io.corpora.read_conll2000`.
"""


from .features import dynamic_features, spec, token_features
from .metrics import chunk_scores, conlleval_chunks
from .oracle import training_examples
from .pipeline import Chunker
from .runner import YamchaChunker, chunk_reference

__all__ = [
    "conlleval_chunks",
    "chunk_scores",
    "token_features",
    "dynamic_features",
    "training_examples",
    "spec",
    "YamchaChunker",
    "chunk_reference",
    "Chunker",
]
