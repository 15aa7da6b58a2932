"""The API reference: every public name has a numpydoc docstring, and docs/api.md is what
`python docs/gen_api.py` writes from them."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gen_api():
    spec = importlib.util.spec_from_file_location("gen_api", ROOT / "docs" / "gen_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_public_name_has_a_numpydoc_docstring(gen_api):
    assert gen_api.check_docstrings() == []


def test_the_check_finds_what_is_missing(gen_api):
    def documented(a, b=1):
        """Summary.

        Parameters
        ----------
        a : int
            A.
        """

    assert gen_api.documented_parameters(documented.__doc__ and gen_api._doc(documented)) == ["a"]
    assert gen_api.parameter_names(documented) == ["a", "b"]
    assert gen_api.documented_parameters("Summary.\n\nParameters\n----------\nx, y : float\n    Both.\n") == ["x", "y"]


def test_api_md_is_up_to_date(gen_api):
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == gen_api.render(), \
        "docs/api.md is out of date: run python docs/gen_api.py"


def test_py_typed_and_one_version():
    import conjunct

    assert (Path(conjunct.__file__).parent / "py.typed").exists()
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text
    from importlib.metadata import version

    assert version("conjunct") == conjunct.__version__
