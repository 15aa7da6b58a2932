"""Types: the C++ core's stubs (written by the build with nanobind's stubgen,
installed beside the module) match the module the tests import, and the
public API checks clean under ``mypy --strict``."""

import pathlib

import pytest

from conjunct import _core


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
                 "METHODS"):
        assert name in text, name
