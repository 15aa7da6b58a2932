"""Japanese bunsetsu dependency parsing data: a bunsetsu-level corpus derived
from UD Japanese GSD r2.8, the features of Yoshinaga & Kitsuregawa (2009)
Table 1, and Sassano's (2004) linear-time shift-reduce algorithm.

Corpus derivation
-----------------
UD Japanese GSD r2.8 is annotated with short-unit words. Its dev and test files
mark bunsetsu boundaries (``BunsetuBILabel`` in MISC); the train file does not.
:class:`BunsetsuSegmenter` learns a back-off table from the gold boundaries of
dev (test stays unseen) -- keys are the previous and current token's UniDic
POS, the current token's dependency relation and attachment direction -- and
segments train with it (99% of test tokens agree; see
:func:`segmentation_agreement`). A bunsetsu's head is the bunsetsu that holds
the head of its external dependency; on dev/test this reproduces the CaboCha
bunsetsu dependencies of the same sentences (``ja_gsd_cabocha``) for 99.8-100%
of bunsetsu. Sentences whose derived tree is not head-final and projective
cannot be produced by the shift-reduce parser; they are kept for evaluation
and skipped for training (counted in the corpus statistics).

Modules
-------
``sentence`` (tokens, bunsetsu, sentences), ``reader`` (CoNLL-U, GSD splits,
CaboCha), ``segmenter`` (the learned boundaries), ``features`` (the pair
features' Python reference), ``oracle`` (Sassano's algorithm and its
training examples), ``runner`` (the C++ decision loop), ``metrics`` and
``pipeline`` (:class:`BunsetsuDependencyParser`).
"""


from .features import DEFAULT_GROUPS, FEATURE_GROUPS, SentenceFeatures, pair_features
from .metrics import dependency_accuracy
from .oracle import is_head_final_projective, sassano_oracle, sassano_parse, training_examples, training_rows
from .pipeline import BunsetsuDependencyParser
from .reader import iter_bunsetsu_conllu, load_gsd_bunsetsu, read_cabocha_heads, read_ud_tokens, segmentation_agreement
from .runner import BunsetsuParser
from .segmenter import BunsetsuSegmenter
from .sentence import Bunsetsu, BunsetsuSentence, Token, group_bunsetsu

__all__ = [
    "Token",
    "Bunsetsu",
    "BunsetsuSentence",
    "group_bunsetsu",
    "read_ud_tokens",
    "iter_bunsetsu_conllu",
    "BunsetsuSegmenter",
    "load_gsd_bunsetsu",
    "segmentation_agreement",
    "read_cabocha_heads",
    "pair_features",
    "SentenceFeatures",
    "sassano_parse",
    "sassano_oracle",
    "is_head_final_projective",
    "BunsetsuParser",
    "BunsetsuDependencyParser",
    "FEATURE_GROUPS",
    "DEFAULT_GROUPS",
    "dependency_accuracy",
    "training_examples",
    "training_rows",
]
