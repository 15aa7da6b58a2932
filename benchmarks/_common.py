"""Shared pieces of the benchmark scripts: data paths, environment, result files."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SHARED_DATA = Path(os.environ.get("CONJUNCT_SHARED_DATA", ROOT.parent / "shared" / "data"))
# The peer kit's build and work folders (../shared/peers/jdepp/README.md), beside
# the project like ../shared: ../peer/jdepp-build and ../peer/work by default.
PEER = Path(os.environ.get("CONJUNCT_PEER", ROOT.parent / "peer"))
PEER_BUILD = PEER / "jdepp-build"
PEER_WORK = PEER / "work"


def require_shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        sys.exit(f"benchmark data not found at {SHARED_DATA} (set CONJUNCT_SHARED_DATA)")
    return SHARED_DATA


def environment() -> Dict[str, str]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numpy

    import conjunct

    from conjunct import _core

    versions = {"python": platform.python_version(), "numpy": numpy.__version__, "conjunct": conjunct.__version__,
                "simd": getattr(_core, "simd", "unknown")}
    for mod in ("sklearn", "scipy", "libsvm", "vowpalwabbit", "pycrfsuite"):
        try:
            versions[mod] = getattr(__import__(mod), "__version__", "installed")
        except ImportError:
            pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return {"cpu": cpu, "cores": str(os.cpu_count()), "platform": platform.platform(), "git_commit": commit, **versions}


def command_line() -> str:
    """The command as results record it: absolute paths among the arguments (``--model /x/y``,
    ``--model=/x/y``) relative to the project, as :func:`shown_path` writes paths."""
    def shown(arg: str) -> str:
        flag, eq, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
        if os.path.isabs(value):
            value = os.path.relpath(value, ROOT)
        return flag + eq + value

    return "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], ROOT), *map(shown, sys.argv[1:])])


def markdown_table(header: Sequence[str], rows: List[Sequence]) -> str:
    def fmt(v):
        if isinstance(v, float):
            return f"{v:,.3f}" if abs(v) < 100 else f"{v:,.1f}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def shown_path(path: Path) -> str:
    """A path as results record it, never this machine's: inside the peer kit's
    work folder ``PEER_WORK/...`` (record the folder itself with
    :func:`peer_work_shown`), anywhere else relative to the project."""
    try:
        return "PEER_WORK/" + Path(path).resolve().relative_to(PEER_WORK.resolve()).as_posix()
    except ValueError:
        pass
    try:  # a scratch folder in the temporary directory: its name only
        return "TMPDIR/" + Path(path).resolve().relative_to(Path(tempfile.gettempdir()).resolve()).as_posix()
    except ValueError:
        return os.path.relpath(path, ROOT)


def peer_work_shown() -> dict:
    """The peer kit's work folder that ``PEER_WORK/...`` paths are in, relative to the project."""
    return {"PEER_WORK": os.path.relpath(PEER_WORK, ROOT)}


def _json_value(value):
    return shown_path(value) if isinstance(value, Path) else str(value)


def write_results(name: str, results: dict, markdown: str) -> None:
    """Write results/<name>.json and results/<name>.md, both naming the command."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"command": command_line(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "environment": environment(), **results}
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2, default=_json_value) + "\n")
    env = payload["environment"]
    md = (
        f"# {name}\n\nCommand: `{payload['command']}`  \nDate: {payload['date']}  \n"
        f"Machine: {env['cpu']} ({env['cores']} cores), Python {env['python']}, commit {env['git_commit']}, "
        f"max-plus loops built with {env['simd']}\n\n{markdown}\n"
    )
    (RESULTS / f"{name}.md").write_text(md)
    print(md)


def write_figures(name: str, figures: Dict[Optional[str], Path]) -> List[Path]:
    """Draw results/<name>.json as ``plot_results.py`` does, one image per figure.

    ``figures`` maps a figure name of ``plot_results.py --figure`` (None: the
    default) to the image to write. Without matplotlib nothing is drawn and
    the ``plot_results.py`` commands that draw them later are printed instead.
    """
    results = RESULTS / f"{name}.json"
    source = os.path.relpath(results, ROOT)
    commands = [f"python benchmarks/plot_results.py {source}" + (f" --figure {f}" if f else "")
                + f" -o {os.path.relpath(p, ROOT)}"
                for f, p in figures.items()]
    if importlib.util.find_spec("matplotlib") is None:
        print("matplotlib is not installed (pip install '.[plot]'); draw the figures later with:\n  "
              + "\n  ".join(commands))
        return []
    import plot_results

    data = plot_results.read_results(results)
    written = []
    for figure, path in figures.items():
        plot_results.save_figure(plot_results.figure_from_results(data, source=source, figure=figure), path)
        written.append(Path(path))
    print("figures:\n  " + "\n  ".join(commands))
    return written
