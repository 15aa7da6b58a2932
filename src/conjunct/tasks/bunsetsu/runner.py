"""The bunsetsu parser's decision loop: Sassano's algorithm in C++, building
each decision's features from the sentence's tokens (the templates of
:mod:`.features`) and calling a compiled binary classifier once per decision."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Iterable, List, Sequence, Tuple

import numpy as np

from ... import _core
from ..runner import Runner, check_classifier, events_matrix, per_sentence
from .features import DEFAULT_GROUPS, FEATURE_GROUPS, check_groups
from .sentence import BunsetsuSentence

__all__ = ["BunsetsuParser", "token_arrays", "group_mask"]

_FIELDS = attrgetter("form", "lemma", "xpos")


def group_mask(groups: Iterable[str]) -> int:
    """The C++ extractor's bit mask of feature ``groups`` (bit k: FEATURE_GROUPS[k])."""
    return sum(1 << FEATURE_GROUPS.index(g) for g in check_groups(groups))


def token_arrays(sentences: Sequence[BunsetsuSentence]) -> Tuple[bytes, np.ndarray, np.ndarray]:
    """What the C++ loop reads: every token's form, lemma and XPOS, in this
    order, as newline-separated UTF-8; the token offsets of every bunsetsu; the
    bunsetsu offsets of every sentence."""
    groups = [b.tokens for s in sentences for b in s.bunsetsu]
    # One C-level pass over the tokens (measured: faster than one per field).
    values = list(chain.from_iterable(map(_FIELDS, chain.from_iterable(groups))))
    joined = "\n".join(values)
    if joined.count("\n") != max(len(values) - 1, 0):
        raise ValueError("a token's form, lemma or XPOS holds a newline")
    bunsetsu_ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, groups), dtype=np.int64, count=len(groups)), out=bunsetsu_ptr[1:])
    sentence_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(s.bunsetsu) for s in sentences), dtype=np.int64, count=len(sentences)), out=sentence_ptr[1:])
    return joined.encode("utf-8", "surrogatepass"), bunsetsu_ptr, sentence_ptr


def bunsetsu_features(index, groups: Iterable[str]):
    """The C++ templates of ``groups`` over a named feature index's strings."""
    meta, arrays = index.to_arrays()
    return _core.BunsetsuFeatures(names_blob=arrays["names_blob"], names_offsets=arrays["names_offsets"],
                                  groups=group_mask(groups))


class BunsetsuParser(Runner):
    """Sassano's shift-reduce parser calling a binary classifier once per decision.

    The whole decision loop runs in C++, feature extraction included: Python
    hands it the tokens' strings as flat buffers, and C++ builds the feature
    keys of :mod:`conjunct.tasks.bunsetsu.features` and looks them up in the
    model's feature strings. ``classifier`` is a compiled
    :class:`~conjunct.classifiers.Classifier` over the pair features with a
    named feature index; its positive class means "depends". ``groups`` are
    the feature groups the classifier was trained with.
    """

    def __init__(self, classifier, *, groups: Iterable[str] = DEFAULT_GROUPS, early_exit: bool = True):
        check_classifier(classifier, "bunsetsu parser's")
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        self.groups = check_groups(groups)
        self.features = bunsetsu_features(classifier.features, self.groups)

    def parse_many(self, sentences: Sequence[BunsetsuSentence], *, collect: bool = False, timing: bool = False):
        """Heads of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix of column ids (events for an fstrie)."""
        fields, bunsetsu_ptr, sentence_ptr = token_arrays(sentences)
        clf = self.classifier
        heads, decisions, clf_seconds, total, events, _ = self.features.parse(
            classifier=clf._core, rule=clf.rule.kind, n_classes=len(clf.rule.classes), depends=1,
            early_exit=self.early_exit, fields=fields, bunsetsu_ptr=bunsetsu_ptr,
            sentence_ptr=sentence_ptr, timing=timing, collect=collect)
        self.count(decisions=int(decisions), classifier_seconds=clf_seconds, loop_seconds=total)
        result = per_sentence(heads, sentence_ptr)
        if not collect:
            return result
        return result, events_matrix(*events, len(clf.features))

    run = parse_many

    def parse(self, sentence: BunsetsuSentence) -> List[int]:
        """Heads of one sentence (bunsetsu indices, -1 for the root)."""
        return self.parse_many([sentence])[0]
