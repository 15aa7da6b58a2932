"""The README and docs/ stay true: every command in README.md's code blocks runs
verbatim (the quick starts train on generated data or on a tiny file they write
themselves), its links resolve, and docs/index.md links every page in docs/."""

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import conjunct

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

# The two top commands install the package and run this very suite: .ci/run runs them.
SKIPPED = {
    'python -m pip install ".[test]" && conjunct demo': "installs the package (.ci/run runs it)",
    "python -m pytest": "the whole suite, this test included (.ci/run runs it)",
}

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def code_blocks(text: str):
    """(language, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in _FENCE.finditer(text)]


def shell_commands(body: str):
    """The commands of a shell block: one a line (a trailing backslash continues it)."""
    out, cur = [], ""
    for line in body.splitlines():
        cur += line
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        if cur.strip() and not cur.lstrip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def readme_steps():
    """('bash' | 'python', code) in README order, and the skipped commands with their reasons."""
    steps, skipped = [], []
    for lang, body in code_blocks(README.read_text(encoding="utf-8")):
        if lang == "python":
            steps.append(("python", body))
        elif lang in ("bash", "sh", "shell"):
            for cmd in shell_commands(body):
                if cmd in SKIPPED:
                    skipped.append((cmd, SKIPPED[cmd]))
                else:
                    steps.append(("bash", cmd))
    return steps, skipped


def test_the_extraction_finds_blocks_commands_and_continuations():
    text = "x\n```bash\na --b  # note\n# only a comment\nc \\\n  d\n```\n```python\nprint(1)\n```\n```text\nz\n```\n"
    assert code_blocks(text) == [("bash", "a --b  # note\n# only a comment\nc \\\n  d\n"), ("python", "print(1)\n"),
                                 ("text", "z\n")]
    assert shell_commands(code_blocks(text)[0][1]) == ["a --b  # note", "c   d"]


def test_only_the_two_top_commands_are_skipped():
    steps, skipped = readme_steps()
    assert [cmd for cmd, _ in skipped] == list(SKIPPED)
    assert sum(kind == "bash" for kind, _ in steps) >= 10 and sum(kind == "python" for kind, _ in steps) >= 3
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.slow
def test_every_readme_command_runs_verbatim(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("libsvm")
    # `conjunct` on PATH runs the package under test, whatever else is installed.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "conjunct"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m conjunct "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    work = tmp_path / "work"
    work.mkdir()
    package_root = str(Path(conjunct.__file__).resolve().parent.parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    steps, _ = readme_steps()
    for k, (kind, code) in enumerate(steps):
        if kind == "python":
            argv = [sys.executable, "-c", code]
        else:
            argv = ["bash", "-e", "-o", "pipefail", "-c", code]
        res = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, f"README step {k + 1} ({kind}) failed:\n{code}\n--- stdout\n{res.stdout}\n--- stderr\n{res.stderr}"
    # What the quick starts promise to leave behind.
    for name in ("svc.cjt", "model.cjt", "fast.cjt", "labels.txt", "pa.cjt", "tagger.cjt", "parser.cjt",
                 "parsed.conllu", "en.cjt"):
        assert (work / name).stat().st_size > 0, name


def _local_links(path: Path, anchors: bool = False):
    for target in _LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target):
            continue
        yield target if anchors else target.split("#")[0]


def _anchors(page: Path):
    """GitHub's anchors of a Markdown page's headings (outside code blocks)."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", h.strip().lower().replace("`", "")).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", text, re.M)}


@pytest.mark.parametrize("page", [README] + sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    missing = []
    for target in _local_links(page, anchors=True):
        path, _, anchor = target.partition("#")
        dest = page if not path else page.parent / path
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in _anchors(dest)):
            missing.append(target)
    assert missing == [], f"{page.relative_to(ROOT)} links to missing files or headings: {missing}"


def test_docs_index_links_every_page():
    index = DOCS / "index.md"
    linked = {(index.parent / t).resolve() for t in _local_links(index)}
    pages = {p.resolve() for p in DOCS.rglob("*.md")} - {index.resolve()}
    assert sorted(str(p.relative_to(DOCS)) for p in pages - linked) == []
