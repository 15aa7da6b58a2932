import pickle

import numpy as np
import pytest

import conjunct
from conjunct.models.linear import brute_force_margins

TEXT = """# conjunct conjunctive linear model
# classes: A B C
# decision: argmax
\t0.1 0.2 0.3
w=the\t1 0 0
w=the t=DT\t0 2 0
t=DT w=dog t=NN\t0 0 4
"""


def test_text_roundtrip_and_margins(tmp_path):
    p = tmp_path / "m.txt"
    p.write_text(TEXT)
    m = conjunct.ConjunctiveLinearModel.from_text(p)
    assert m.degree == 3 and m.n_conjunctions == 3 and m.classes.tolist() == ["A", "B", "C"]
    got = brute_force_margins(m, [["w=the", "t=DT"], ["t=DT", "w=dog", "t=NN", "w=the"], ["x"]])
    np.testing.assert_allclose(got, [[1.1, 2.2, 0.3], [1.1, 2.2, 4.3], [0.1, 0.2, 0.3]])
    m.to_text(tmp_path / "again.txt")
    again = conjunct.ConjunctiveLinearModel.from_text(tmp_path / "again.txt")
    np.testing.assert_array_equal(again.weights, m.weights)
    assert again.features.names == m.features.names


def test_save_load_pickle(tmp_path):
    m = conjunct.ConjunctiveLinearModel([[0], [0, 1], [2, 1, 0]], [[1, 2], [3, 4], [5, 6]], [0.5, 0.5])
    m.save(tmp_path / "m.cjt")
    for again in (conjunct.load(tmp_path / "m.cjt"), conjunct.load(tmp_path / "m.cjt", mmap=True), pickle.loads(pickle.dumps(m))):
        np.testing.assert_array_equal(brute_force_margins(again, [[0, 1, 2]]), brute_force_margins(m, [[0, 1, 2]]))


@pytest.mark.parametrize(
    "text, message",
    [
        ("w=a 1 2\n", "TAB"),
        ("w=a\tx\n", "not numbers"),
        ("w=a\t1 2\nw=b\t1\n", "weights; earlier"),
        ("w=a w=a\t1\n", "repeats"),
        ("w=a t=b\t1\nt=b w=a\t2\n", "appears twice"),
        ("\t1\n\t2\n", "intercept"),
        ("", "no conjunctions"),
        ("# classes: A B C\nw=a\t1 2\n", "needs 3 outputs"),
    ],
)
def test_bad_text(tmp_path, text, message):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(conjunct.ModelFormatError, match=message) as e:
        conjunct.ConjunctiveLinearModel.from_text(p)
    assert "bad.txt" in str(e.value)


def test_validation():
    with pytest.raises(conjunct.ConjunctError, match="repeats"):
        conjunct.ConjunctiveLinearModel([[1, 1]], [1.0])
    with pytest.raises(conjunct.ConjunctError, match="intercept"):
        conjunct.ConjunctiveLinearModel([[1], []], [1.0, 2.0])
    with pytest.raises(conjunct.ConjunctError, match="conjunctions"):
        conjunct.ConjunctiveLinearModel([[1]], [1.0, 2.0])
