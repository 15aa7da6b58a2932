"""The C++ tests (cpp/tests/test_*.cpp): configured and built with CMake, run with ctest.

The build lives in build/cpp-tests (ignored by git), so later runs only
rebuild what changed. Skips, saying why, when CMake or a C++ compiler is missing.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "cpp" / "tests"
BUILD = ROOT / "build" / "cpp-tests"


def _tool(*names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args, what):
    p = subprocess.run(args, cwd=BUILD, capture_output=True, text=True)
    if p.returncode:
        pytest.fail(f"{what} failed ({p.returncode}):\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}", pytrace=False)
    return p.stdout


def test_cpp_tests():
    cmake, ctest = _tool("cmake"), _tool("ctest")
    if cmake is None or ctest is None:
        pytest.skip("CMake (cmake and ctest) is not on PATH: the C++ tests need it")
    if _tool("c++", "g++", "clang++") is None:
        pytest.skip("no C++ compiler (c++, g++ or clang++) on PATH")
    BUILD.mkdir(parents=True, exist_ok=True)
    generator = ["-G", "Ninja"] if _tool("ninja") and not (BUILD / "Makefile").exists() else []
    # -O1: the tests check results, not speed, and build in a fraction of a release build's time.
    _run([cmake, "-S", str(SOURCE), "-B", str(BUILD), *generator, "-DCMAKE_BUILD_TYPE=None", "-DCMAKE_CXX_FLAGS=-O1"],
         "configuring cpp/tests")
    _run([cmake, "--build", str(BUILD), "--parallel", "2"], "building cpp/tests")
    out = _run([ctest, "--output-on-failure", "--no-tests=error"], "ctest")
    assert "100% tests passed" in out, out
