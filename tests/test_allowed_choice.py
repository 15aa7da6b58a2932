"""A classifier's choice among allowed classes (what the English parser asks
for each move and label): with and without early exit it is the first best
allowed class of the full margins, on the parser's real vectors and on
random ones, and the parser's trees do not depend on it."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conjunct import _core
from conjunct.tasks.english.pipeline import EnglishDependencyParser
from conjunct.tasks.english.runner import ArcEagerParser


@pytest.fixture(scope="module")
def ewt(ewt_sentences):
    train, dev = ewt_sentences
    return train[:200], dev[:150]


@pytest.fixture(scope="module")
def parser(ewt):
    train, _ = ewt
    p = EnglishDependencyParser(degree=2, n_iter=2, features="malt", method="split").fit(train)
    assert p.classifiers_["label"].method == "split"
    return p


def best_allowed(m, allowed, sign):
    """The reference: the parser's rule on the full margins (runner._best_allowed)."""
    if sign:
        if allowed[0] and allowed[1]:
            return 1 if m[0] > 0 else 0
        return 1 if allowed[1] else 0 if allowed[0] else -1
    best = -1
    for c in range(len(allowed)):
        if allowed[c] and (best < 0 or m[c] > m[best]):
            best = c
    return best


def check_choices(clf, rows, masks):
    sign = clf.rule.kind == "sign"
    for cols, allowed in zip(rows, masks):
        m = np.atleast_1d(clf._core.margins_one(cols))
        want = best_allowed(m, allowed, sign)
        for early_exit in (True, False):
            assert clf._core.predict_allowed_one(cols, allowed, early_exit) == want


def test_choices_on_the_parsers_vectors_equal_the_full_margins(parser, ewt):
    _, dev = ewt
    events = parser.collect_events(dev)
    rng = np.random.default_rng(0)
    _core.early_exit_counters(True)
    for name in ("transition", "label"):
        clf, X = parser.classifiers_[name], events[name]
        n_classes = len(clf.classes)
        rows = [X.indices[X.indptr[i]:X.indptr[i + 1]].astype(np.int32) for i in range(min(X.shape[0], 1500))]
        # Every class allowed but one (the parser's labels: all but ROOT), and random subsets.
        masks = [np.ones(n_classes, dtype=np.uint8) for _ in rows]
        for k, mask in enumerate(masks):
            mask[k % n_classes] = 0 if k % 3 else 1
            if k % 2:
                mask[:] = rng.random(n_classes) < 0.5
        check_choices(clf, rows, masks)
    assert _core.early_exit_counters(False)[0] > 0  # the bounds settled some choices early


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_choices_on_random_vectors_equal_the_full_margins(parser, data):
    clf = parser.classifiers_[data.draw(st.sampled_from(["transition", "label"]))]
    n_classes = len(clf.classes)
    cols = data.draw(st.lists(st.integers(0, clf.n_columns - 1), max_size=40, unique=True))
    allowed = np.asarray(data.draw(st.lists(st.booleans(), min_size=n_classes, max_size=n_classes)), dtype=np.uint8)
    check_choices(clf, [np.asarray(cols, dtype=np.int32)], [allowed])


def test_fewer_than_two_allowed_classes_need_no_margins(parser):
    clf = parser.classifiers_["label"]
    n_classes = len(clf.classes)
    none = np.zeros(n_classes, dtype=np.uint8)
    assert clf._core.predict_allowed_one(np.asarray([0, 1], dtype=np.int32), none) == -1
    one = none.copy()
    one[3] = 1
    assert clf._core.predict_allowed_one(np.asarray([0, 1], dtype=np.int32), one) == 3
    with pytest.raises(ValueError, match="one entry per class"):
        clf._core.predict_allowed_one(np.asarray([0], dtype=np.int32), np.ones(n_classes + 1, dtype=np.uint8))


@pytest.mark.parametrize("method", ["split", "pke"])
def test_parser_trees_do_not_depend_on_early_exit(parser, ewt, method):
    _, dev = ewt
    p = pickle.loads(pickle.dumps(parser))
    if method != "split":
        p.compile(method)
    t, lab = p.classifiers_["transition"], p.classifiers_["label"]
    fast = ArcEagerParser(t, lab, p.features, early_exit=True).parse_many(dev)
    full = ArcEagerParser(t, lab, p.features, early_exit=False).parse_many(dev)
    assert fast == full
    for s, got in zip(dev[:40], fast):
        assert got == p.reference_parse(s)
