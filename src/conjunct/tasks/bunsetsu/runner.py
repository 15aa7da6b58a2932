"""The bunsetsu parser's decision loop: Sassano's algorithm in C++ calling a
compiled binary classifier once per decision."""

from __future__ import annotations

from typing import List, Sequence

from ... import _core
from ..runner import Runner, check_classifier, events_matrix, per_sentence
from .features import BunsetsuEncoder
from .sentence import BunsetsuSentence

__all__ = ["BunsetsuParser"]


class BunsetsuParser(Runner):
    """Sassano's shift-reduce parser calling a binary classifier once per decision.

    The decision loop runs in C++ and calls the compiled classifier directly;
    Python only looks each bunsetsu's features up once. ``classifier`` is a
    compiled :class:`~conjunct.classifiers.Classifier` over the pair features
    with a named feature index; its positive class means "depends".
    """

    def __init__(self, classifier, *, early_exit: bool = True):
        check_classifier(classifier, "bunsetsu parser's")
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        self.encoder = BunsetsuEncoder(classifier.features)

    def parse_many(self, sentences: Sequence[BunsetsuSentence], *, collect: bool = False, timing: bool = False):
        """Heads of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix of column ids (events for an fstrie)."""
        enc = self.encoder.encode(sentences)
        clf = self.classifier
        heads, decisions, clf_seconds, total, events = _core.parse_bunsetsu(
            clf._core, clf.rule.kind, len(clf.rule.classes), 1, self.early_exit, enc["sentence_ptr"], enc["mod_ptr"],
            enc["mod_ids"], enc["head_ptr"], enc["head_ids"], enc["btw_ptr"], enc["btw_ids"], enc["distance"], timing, collect)
        self.count(decisions=int(decisions), classifier_seconds=clf_seconds, loop_seconds=total)
        result = per_sentence(heads, enc["sentence_ptr"])
        if not collect:
            return result
        # A pair can span two bunsetsu with the same between-feature: events_matrix counts it once.
        return result, events_matrix(*events, len(clf.features))

    run = parse_many

    def parse(self, sentence: BunsetsuSentence) -> List[int]:
        """Heads of one sentence (bunsetsu indices, -1 for the root)."""
        return self.parse_many([sentence])[0]
