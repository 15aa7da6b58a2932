"""Types: the C++ core's stubs (written by the build with nanobind's stubgen,
installed beside the module) match the module the tests import, and the
public API checks clean under ``mypy --strict``."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conjunct import _core

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _stub_path() -> pathlib.Path:
    module = pathlib.Path(_core.__file__)
    # Installed: beside the module. Development build: beside the build tree's module, which src/ links to.
    for folder in (module.parent, module.resolve().parent):
        if (folder / "_core.pyi").is_file():
            return folder / "_core.pyi"
    pytest.fail(f"no _core.pyi beside {module}: the build writes it (CMakeLists.txt, nanobind_add_stub)")


def test_core_stub_matches_the_module():
    stubgen = pytest.importorskip("nanobind.stubgen", reason="nanobind (a build requirement) is not installed")
    stub = _stub_path()
    gen = stubgen.StubGen(module=_core, quiet=True, output_file=stub)  # as the build calls it
    gen.put(_core)
    assert gen.get() == stub.read_text(encoding="utf-8"), f"{stub} is stale: rebuild the extension"


def test_core_stub_declares_what_the_package_uses():
    text = _stub_path().read_text(encoding="utf-8")
    for name in ("class PolyKernel", "class CompiledClassifier", "def compile_classifier", "def open_classifier",
                 "METHODS", "class LimitExceededError(ValueError)"):
        assert name in text, name
    # The task loops take the compiled handle, typed, and no rule or class count beside it.
    for name in ("def chunk(self, classifier: CompiledClassifier, early_exit: bool",
                 "def parse(self, classifier: CompiledClassifier, depends: int",
                 "def classify(self, classifier: CompiledClassifier, early_exit: bool",
                 "def parse_arc_eager(transitions: CompiledClassifier, transition_of_class:",
                 "chunk_classifier: CompiledClassifier, chunk_early_exit: bool"):
        assert name in text, name
    assert "_rule" not in text and "n_label_classes" not in text


# The modules whose names ``import conjunct`` binds at once; the lazily imported ones
# (estimators, importers, taggers, pipelines) are typed for their callers only.
STRICT = ["__init__.py", "_errors.py", "budget.py",
          "io/__init__.py", "io/_textin.py", "io/validation.py", "io/persistence.py", "io/model_io.py", "io/data.py",
          "features/__init__.py", "features/index.py", "features/checks.py", "features/matrices.py",
          "models/__init__.py", "models/labels.py", "models/base.py", "models/kernel.py", "models/linear.py",
          "models/classifiers.py", "models/classifier_checks.py"]


def _package_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """The package the tests import, copied with its stub into a folder of its own: mypy refuses a
    package that sits in site-packages (where ``pip install .`` puts it) as a path to check."""
    package = pathlib.Path(_core.__file__).parent
    if not (package / "_core.pyi").exists():
        pytest.skip(f"{package} has no _core.pyi (link build/dev/_core.pyi there, see docs/development.md)")
    root = tmp_path / "typed"
    shutil.copytree(package, root / "conjunct", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return root


def test_public_api_checks_clean_under_mypy_strict(tmp_path):
    pytest.importorskip("mypy.api", reason="mypy (the dev extra) is not installed")
    root = _package_copy(tmp_path)
    files = [str(pathlib.Path("conjunct") / name) for name in STRICT]
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"))
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), *files],
                       capture_output=True, text=True, cwd=root, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


CLIENT = """\
import conjunct

model = conjunct.KernelModel([[0, 1], [1, 2]], [1.0, -1.0], degree=2)
reveal_type(model.compile("pke"))
reveal_type(conjunct.PolyKernel(1.0, 1.0, 2).value(3))
reveal_type(conjunct.PAClassifier)
reveal_type(conjunct.load)
reveal_type(model.compile("pke").compiled.n_classes)
"""


def test_a_users_code_sees_the_types(tmp_path):
    """Code using the public API checks under --strict and sees the real types,
    the lazily loaded names and the core's included."""
    pytest.importorskip("mypy.api", reason="mypy (the dev extra) is not installed")
    root = _package_copy(tmp_path)
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"), MYPYPATH=str(root))
    # The project's settings for the package's own modules (the core's stubs say plain tuple and dict).
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), "--follow-imports", "silent",
                        "--ignore-missing-imports", "--python-version", "3.10", str(client)],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    revealed = [line.split("Revealed type is ", 1)[1] for line in r.stdout.splitlines() if "Revealed type is" in line]
    assert revealed[0] == '"conjunct.models.classifiers.Classifier"'
    assert revealed[1] in ('"float"', '"builtins.float"')  # (mypy versions spell it either way)
    assert "conjunct.training.pa.PAClassifier" in revealed[2], revealed
    assert revealed[3].startswith('"def (path:') and revealed[3].endswith('-> Any"'), revealed
    assert revealed[4] in ('"int"', '"builtins.int"'), revealed
