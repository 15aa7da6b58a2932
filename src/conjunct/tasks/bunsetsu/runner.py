"""The bunsetsu parser's decision loop: Sassano's algorithm in C++, one call
per batch of sentences. C++ reads the tokens' strings (form, lemma, XPOS)
straight from the sentence objects (or from flat buffers), looks each token's
attributes up once in the model's vocabularies, builds the feature keys of
the templates of :mod:`.features` and turns them into feature ids through the
model's key table, then calls a compiled binary classifier once per decision.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Iterable, List, Sequence, Tuple

import numpy as np

from ... import _core
from ..._errors import DataFormatError, ModelFormatError
from ...features.spec import FeatureKeys
from ..runner import Runner, check_classifier, events_matrix, per_sentence
from .features import DEFAULT_GROUPS, check_groups, spec_for
from .sentence import BunsetsuSentence

__all__ = ["BunsetsuParser", "token_buffers", "feature_keys", "cabocha_text"]

_FIELDS = attrgetter("form", "lemma", "xpos")


def token_buffers(sentences: Sequence[BunsetsuSentence]) -> Tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """The flat form of ``sentences`` that ``parse_buffers`` reads: UTF-8 text,
    three field offsets per token (form, lemma, XPOS) plus one, the token
    offsets of every bunsetsu and the bunsetsu offsets of every sentence."""
    groups = [b.tokens for s in sentences for b in s.bunsetsu]
    encoded = [v.encode("utf-8", "surrogatepass") for v in chain.from_iterable(map(_FIELDS, chain.from_iterable(groups)))]
    field_ptr = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=field_ptr[1:])
    bunsetsu_ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, groups), dtype=np.int64, count=len(groups)), out=bunsetsu_ptr[1:])
    sentence_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(s.bunsetsu) for s in sentences), dtype=np.int64, count=len(sentences)), out=sentence_ptr[1:])
    return b"".join(encoded), field_ptr, bunsetsu_ptr, sentence_ptr


def cabocha_text(sentences: Sequence[BunsetsuSentence]) -> str:
    """``sentences`` as the text :meth:`BunsetsuParser.parse_text` reads (the
    CaboCha lattice J.DepP reads with ``-I 2``): per bunsetsu a ``* <id>
    <head>D`` line, per token ``<form>\\t*,*,*,<XPOS>,*,<INFL>`` (INFL: the
    form's last character when it differs from its lemma, else ``*``), and
    ``EOS`` after each sentence. A form with a tab or newline, or starting
    with ``*`` or ``#``, and an XPOS with a comma cannot be written: ValueError."""
    out = []
    for n, s in enumerate(sentences):
        for k, b in enumerate(s.bunsetsu):
            out.append(f"* {k} {b.head}D\n")
            for t in b.tokens:
                if not t.form or t.form[0] in "*#" or "\t" in t.form or "\n" in t.form or "," in t.xpos or "\n" in t.xpos:
                    raise ValueError(f"sentence {n}: token {t.form!r} ({t.xpos!r}) has no CaboCha line")
                infl = t.form[-1] if t.form != t.lemma else "*"
                out.append(f"{t.form}\t*,*,*,{t.xpos},*,{infl}\n")
        out.append("EOS\n")
    return "".join(out)


def feature_keys(index, groups: Iterable[str] = DEFAULT_GROUPS, name: str = "<model>") -> FeatureKeys:
    """The feature keys of a bunsetsu model's feature index: the ones its file
    stores, or (a file written before feature keys) read from its feature
    names through the templates of ``groups``, and kept on the index so that
    the file saved next stores them. A name the templates do not read means
    the model was trained on other templates: it has to be retrained."""
    groups = check_groups(groups)
    keys = getattr(index, "keys", None)
    if keys is not None:
        stored = tuple(g for g in dict.fromkeys(t.group for t in keys.spec.templates))
        if set(stored) != set(groups):
            raise ModelFormatError(f"the classifier's features are those of the groups {list(stored)}, not "
                                   f"{list(groups)}: the file's feature keys and its configuration disagree", name)
        return keys
    try:
        keys = FeatureKeys.from_names(spec_for(groups), index.names)
    except ValueError as e:
        raise ModelFormatError(f"{e}: the model was trained on other bunsetsu templates (or groups than "
                               f"{list(groups)}); retrain it", name) from None
    index.keys = keys
    return keys


class BunsetsuParser(Runner):
    """Sassano's shift-reduce parser calling a binary classifier once per decision.

    The whole decision loop runs in C++, feature extraction included, in one
    call per batch with the GIL released. ``classifier`` is a compiled
    :class:`~conjunct.models.classifiers.Classifier` over the pair features with a
    named feature index; its positive class means "depends". ``groups`` are
    the feature groups the classifier was trained with.
    """

    def __init__(self, classifier, *, groups: Iterable[str] = DEFAULT_GROUPS, early_exit: bool = True):
        check_classifier(classifier, "bunsetsu parser's")
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        self.groups = check_groups(groups)
        keys = feature_keys(classifier.features, self.groups)
        try:
            self.features = _core.BunsetsuFeatures(tables=keys.tables())
        except ValueError as e:  # a spec naming positions or attributes the bunsetsu templates do not have
            raise ModelFormatError(f"section features.keys: {e}") from None

    def _args(self):
        return dict(classifier=self.classifier.compiled, depends=1, early_exit=self.early_exit)

    def _finish(self, out, collect: bool):
        heads, decisions, clf_seconds, total, events, _, sentence_ptr = out
        self.count(decisions=int(decisions), classifier_seconds=clf_seconds, loop_seconds=total)
        result = per_sentence(heads, sentence_ptr)
        if not collect:
            return result
        return result, events_matrix(*events, len(self.classifier.features))

    def parse_many(self, sentences: Sequence[BunsetsuSentence], *, collect: bool = False, timing: bool = False):
        """Heads of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix of column ids (events for an fstrie)."""
        out = self.features.parse(**self._args(), sentences=sentences, timing=timing, collect=collect)
        return self._finish(out, collect)

    def parse_buffers(self, text: bytes, field_ptr, bunsetsu_ptr, sentence_ptr, *, collect: bool = False,
                      timing: bool = False):
        """:meth:`parse_many` over the flat buffers of :func:`token_buffers`."""
        out = self.features.parse_buffers(**self._args(), text=text, field_ptr=np.asarray(field_ptr, dtype=np.int64),
                                          bunsetsu_ptr=np.asarray(bunsetsu_ptr, dtype=np.int64),
                                          sentence_ptr=np.asarray(sentence_ptr, dtype=np.int64), timing=timing,
                                          collect=collect)
        return self._finish(out, collect)

    def parse_text(self, text, *, name: str = "<text>", collect: bool = False, timing: bool = False):
        """:meth:`parse_many` over J.DepP's input text (``str`` or UTF-8
        ``bytes``; see :func:`cabocha_text`), read in C++ with the rest of the
        loop: the heads of each sentence (the heads the text gives are not
        read). A malformed line raises DataFormatError naming ``name`` and the line."""
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
        try:
            out = self.features.parse_text(**self._args(), text=data, timing=timing, collect=collect)
        except ValueError as e:
            where, _, problem = str(e).partition(": ")
            line = int(where.split()[1]) if where.startswith("line ") else None
            raise DataFormatError(problem if line else str(e), name, line) from None
        return self._finish(out, collect)

    run = parse_many

    def parse(self, sentence: BunsetsuSentence) -> List[int]:
        """Heads of one sentence (bunsetsu indices, -1 for the root)."""
        return self.parse_many([sentence])[0]
