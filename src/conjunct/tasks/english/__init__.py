"""Labeled transition-based dependency parsing of UD English EWT: MaltParser's
arc-eager algorithm (Nivre 2003, 2008) with a static oracle, MaltParser-style
feature templates over gold POS tags, and two polynomial-kernel classifiers
trained with PA-I (kernel slicing).

The transition system
---------------------
A configuration is a stack (ROOT, token 0, at the bottom), a buffer of the
tokens 1..n still to read, and the arcs built so far. With ``s0`` the top of
the stack and ``b0`` the first token of the buffer:

- ``SH`` (shift) pushes ``b0``; always allowed.
- ``RE`` (reduce) pops ``s0``; allowed when ``s0`` has a head.
- ``LA`` (left-arc) makes ``b0`` the head of ``s0`` and pops it; allowed when
  ``s0`` is not ROOT and has no head.
- ``RA`` (right-arc) makes ``s0`` the head of ``b0`` and pushes ``b0``; from ROOT
  only once (one root word per sentence), and then its label is ``root``.

Parsing stops when the buffer is empty. Tokens left without a head then attach
to the root word (label ``punct`` for PUNCT tokens, else ``dep``); if no token
was attached to ROOT, the first headless token becomes the root word.

Classifiers (two components)
----------------------------
``transition`` (4 classes) is asked at every configuration; the highest-scoring
*allowed* transition is taken (margins, not argmax). ``label`` (the dependency
relations, ``root`` excluded) is asked after each LA/RA that does not start from
ROOT, with the configuration's features plus ``t=LA``/``t=RA``. One joint
"transition+label" classifier would have ~100 classes (LA:x and RA:x for the
50 relations of EWT, SH, RE): every support vector and every conjunction weight
of PKE/fstrie holds one weight per class, so training and classification cost
and model size would grow ~25x on every decision, also on the SH/RE ones (about
half); two components cost 4 outputs per decision plus 50 per arc.

Features (per configuration)
----------------------------
``features="malt"``: FORM, XPOS and UPOS of s0 and b0; FORM and XPOS of b1 and
of s0's head; XPOS of s1, b2, b3 (``<role>=NONE`` when absent, ``<role>=ROOT``
for token 0); the dependency labels of s0, of its leftmost and rightmost
dependents and of b0's leftmost dependent; the distance b0 - s0 (1, 2, 3, 4,
5-9, 10+). ``features="rich"`` adds Zhang & Nivre's (2011)
non-local features: FORM and XPOS of s0's leftmost and rightmost and b0's
leftmost dependents; XPOS of the head of s0's head and of the second leftmost /
rightmost dependents, and their labels; the label of s0's head's arc; the
valencies of s0 (left, right) and b0 (left); the label sets of those
dependents. Token features are looked up once per token and role as ids of the
model's FeatureIndex (:class:`EnglishEncoder`); the parse loop
(``cpp/src/arc_eager.cpp``) assembles each configuration's vector from them in
C++ with the GIL released.

Training with exploration (``explore=True``): Goldberg & Nivre's (2012)
dynamic oracle labels the configurations a first-round model reaches on the
training text, and those examples join the static oracle's for the final
training (:func:`~conjunct.tasks.english.oracle.exploration_examples`).

Evaluation counts every word, punctuation included (CoNLL 2018 style); LAS
compares the full relation including subtypes (``nmod:poss``).

Modules
-------
``reader`` (sentences of CoNLL-U files), ``transitions`` (the arc-eager
system), ``features`` (configuration features; ids for the C++ loop),
``oracle`` (the static and dynamic oracles and their training examples), ``runner`` (the C++
loop and the Python reference), ``metrics`` and ``pipeline``
(:class:`EnglishDependencyParser`).
"""


from .features import ConfigurationFeatures, EnglishEncoder
from .metrics import attachment_scores
from .oracle import arc_eager_oracle, training_examples
from .pipeline import EnglishDependencyParser
from .reader import DepSentence, read_ud_english
from .runner import ArcEagerParser, reference_parse
from .transitions import LA, RA, RE, ROOT_LABEL, SH, TRANSITIONS, apply_transitions, is_projective

__all__ = [
    "DepSentence",
    "read_ud_english",
    "is_projective",
    "arc_eager_oracle",
    "apply_transitions",
    "ConfigurationFeatures",
    "training_examples",
    "EnglishEncoder",
    "ArcEagerParser",
    "reference_parse",
    "attachment_scores",
    "EnglishDependencyParser",
    "TRANSITIONS",
    "SH",
    "RE",
    "LA",
    "RA",
    "ROOT_LABEL",
]
