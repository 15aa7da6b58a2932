import numpy as np
import pytest
import scipy.sparse as sp

import conjunct
from conjunct.models.labels import DecisionRule, labels_array, ovo_pairs, parse_label


def test_parse_label():
    assert parse_label("+1") == 1 and parse_label("-1") == -1 and parse_label("2.0") == 2
    assert parse_label("0.5") == 0.5 and parse_label("B-NP") == "B-NP"
    assert labels_array([1, 2]).dtype == np.int64 and labels_array(["a", 1]).dtype.kind == "U"


def test_rules_and_ties():
    sign = DecisionRule("sign", ["neg", "pos"])
    assert sign.predict(np.array([[0.0], [1e-300], [-1]])).tolist() == ["neg", "pos", "neg"]
    argmax = DecisionRule("argmax", [0, 1, 2])
    assert argmax.predict(np.array([[1, 1, 0], [0, 2, 2]])).tolist() == [0, 1]  # ties: first
    ovo = DecisionRule("ovo", ["a", "b", "c"])
    assert ovo_pairs(3) == [(0, 1), (0, 2), (1, 2)]
    # (a,b) -> a, (a,c) -> c, (b,c) -> b: one vote each, the first (a) wins; a zero margin votes j.
    assert ovo.predict(np.array([[1, -1, 1], [0, 0, 0]])).tolist() == ["a", "c"]
    with pytest.raises(conjunct.ConjunctError):
        DecisionRule("vote", [0, 1])


@pytest.mark.parametrize("kind, classes, K", [("sign", [-1, 1], 1), ("argmax", [0, 1, 2, 3], 4), ("ovo", list("abcd"), 6)])
def test_cpp_rule_matches_numpy_on_ties(kind, classes, K):
    """Margins with exact zeros and exact ties: C++ predict == numpy DecisionRule."""
    rng = np.random.default_rng(0)
    n = 200
    # One support vector per output with alpha 0/±1 and a zero-overlap input gives margins = bias exactly.
    bias_rows = rng.integers(-1, 2, size=(n, K)).astype(float)
    for row in bias_rows:
        model = conjunct.KernelModel(sp.csr_matrix((0, 3)), np.zeros((0, K)), row, decision=kind, classes=classes)
        clf = model.compile("pki")
        assert clf.predict_one([]) == model.rule.predict(row.reshape(1, -1))[0]
