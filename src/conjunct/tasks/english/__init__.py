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
ROOT, with the configuration's features but the lookahead (s1, b2, b3: half
the label classifier's time at equal LAS on EWT dev) plus ``t=LA``/``t=RA``. One joint
"transition+label" classifier would have ~100 classes (LA:x and RA:x for the
50 relations of EWT, SH, RE): every support vector and every conjunction weight
of PKE/fstrie holds one weight per class, so training and classification cost
and model size would grow ~25x on every decision, also on the SH/RE ones (about
half); two components cost 4 outputs per decision plus 50 per arc.

Features (per configuration)
----------------------------
Declared once as a template spec (:data:`~conjunct.tasks.english.features.SPEC`):
attributes (FORM, XPOS, UPOS, the arc label, valency, distance, the arc's
direction) at configuration roles (s0, s1, b0-b3, s0's head, leftmost /
rightmost dependents, ...), and conjunctions of them. ``features="malt"``
is MaltParser's default model (the default), ``features="rich"`` adds
Zhang & Nivre's (2011) non-local features, ``features="zn"`` the rest of
their templates, ``features="richu"`` "rich" plus the UPOS of seven more
tokens (:mod:`~conjunct.tasks.english.features`). The
Python reference names features through the spec; the parse loop
(``cpp/src/tasks/arc_eager.cpp``, features in ``cpp/src/tasks/arc_eager_features.cpp``)
compiles the same spec to integer keys and looks each token's strings up
once in the model's vocabularies, so a batch is one C++ call with the GIL
released and new text costs what seen text costs.

Training with exploration (``explore=True``): Goldberg & Nivre's (2012)
dynamic oracle labels the configurations a first-round model reaches on the
training text, and those examples join the static oracle's for the final
training (:func:`~conjunct.tasks.english.oracle.exploration_examples`).

Evaluation counts every word, punctuation included (CoNLL 2018 style); LAS
compares the full relation including subtypes (``nmod:poss``).

Modules
-------
``reader`` (sentences of CoNLL-U files), ``transitions`` (the arc-eager
system), ``features`` (the template spec and the reference path's names),
``oracle`` (the static and dynamic oracles and their training examples), ``runner`` (the C++
loop and the Python reference), ``metrics`` and ``pipeline``
(:class:`EnglishDependencyParser`).
"""


from .features import SPEC, ConfigurationFeatures, spec_for
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
    "SPEC",
    "spec_for",
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
