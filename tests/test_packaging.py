"""Packaging: the sdist carries what a build needs, and cibuildwheel's test step can run
from a copy of tests/ with nothing but the wheel, pytest and hypothesis installed."""

import ast
import runpy
import subprocess
import sys
import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")


@pytest.fixture(scope="module")
def build_wheels():
    return SimpleNamespace(**runpy.run_path(str(ROOT / "tools" / "build_wheels.py")))


@pytest.fixture(scope="module")
def cibw():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["cibuildwheel"]


def test_sdist_carries_sources_license_and_types_and_no_build_output(build_wheels, tmp_path, monkeypatch):
    backend = pytest.importorskip("scikit_build_core.build")
    monkeypatch.chdir(ROOT)
    name = backend.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as tar:
        names = tar.getnames()
    assert build_wheels.check_sdist_members(names) == []
    import conjunct

    assert name == f"conjunct-{conjunct.__version__}.tar.gz"


def test_sdist_check_names_what_is_wrong(build_wheels):
    names = ["c-1/pyproject.toml", "c-1/CMakeLists.txt", "c-1/README.md", "c-1/src/conjunct/__init__.py",
             "c-1/cpp/include/a.h", "c-1/cpp/src/a.cpp", "c-1/cpp/bindings/m.cpp", "c-1/build/x/CMakeCache.txt",
             "c-1/src/conjunct/_core.cpython-311-x86_64-linux-gnu.so"]
    problems = build_wheels.check_sdist_members(names)
    assert "missing LICENSE" in problems and "missing src/conjunct/py.typed" in problems
    assert "unwanted build/x/CMakeCache.txt" in problems
    assert "unwanted src/conjunct/_core.cpython-311-x86_64-linux-gnu.so" in problems
    assert not any("cpp" in p for p in problems)


def test_cibuildwheel_test_command_runs_from_the_test_sources(cibw):
    for source in cibw["test-sources"]:
        assert (ROOT / source).exists(), source
    files = [w for w in cibw["test-command"].split() if w.endswith(".py")]
    assert files, "the test command names no test file"
    for f in files:
        assert (ROOT / f).is_file(), f"{f} (cibuildwheel test-command) does not exist"
        assert any(f == s or f.startswith(s.rstrip("/") + "/") for s in cibw["test-sources"]), \
            f"{f} is not copied by test-sources"


def test_cibuildwheel_tests_need_only_pytest_and_hypothesis(cibw):
    # The wheel's test venv has numpy/scipy (its dependencies) and test-requires, no extras:
    # a test file there must not import an optional package at module level.
    allowed = {"conjunct", "numpy", "scipy", "pytest", "hypothesis", "helpers", "conftest", "train_reference"}
    allowed |= set(sys.stdlib_module_names) if hasattr(sys, "stdlib_module_names") else set()
    requires = {r.split(">")[0].split("=")[0].split("<")[0].strip() for r in cibw["test-requires"]}
    assert requires <= {"pytest", "hypothesis"}, requires
    files = [w for w in cibw["test-command"].split() if w.endswith(".py")] + ["tests/conftest.py", "tests/helpers.py"]
    for f in files:
        tree = ast.parse((ROOT / f).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for n in names:
                assert n.split(".")[0] in allowed, f"{f} imports {n}, which the wheel's test venv lacks"


def test_cibuildwheel_builds_every_python_for_linux_and_macos():
    pytest.importorskip("cibuildwheel")
    pythons = {f"cp3{m}" for m in range(9, 15)}
    for platform, arches in (("linux", {"manylinux_x86_64", "manylinux_aarch64"}),
                             ("macos", {"macosx_x86_64", "macosx_arm64"})):
        out = subprocess.run([sys.executable, "-m", "cibuildwheel", "--print-build-identifiers", "--platform",
                              platform], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        assert set(out.split()) == {f"{py}-{arch}" for py in pythons for arch in arches}, out
