"""Write docs/api.md, the API reference, from the public names' docstrings.

    python docs/gen_api.py            # (re)write docs/api.md
    python docs/gen_api.py --check    # exit 1 if docs/api.md is out of date or a docstring is incomplete

The reference covers the names listed in ``MODULES`` (each module's ``__all__``
unless the entry names them): functions, classes with their public methods and
properties (inherited ones from conjunct's own base classes included), and
constants. ``check_docstrings`` is the numpydoc check the test suite runs: a
summary line on every documented name, and on every function and class
(constructor) a ``Parameters`` section that names each of its parameters.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "api.md"

# (module, names or None for its __all__, what it is for)
MODULES: Sequence[Tuple[str, Optional[Sequence[str]], str]] = (
    ("conjunct", None, "Models, compiled classifiers, feature indexes, data files, model files."),
    ("conjunct.training", None, "Training polynomial-kernel and conjunctive-linear models."),
    ("conjunct.io.importers", None, "Models trained by other tools."),
    ("conjunct.io.exporters", None, "Models written for other tools."),
    ("conjunct.datasets", None, "Generated data."),
    ("conjunct.io.corpora", None, "Readers of the corpora the pipelines use."),
    ("conjunct.tagging", None, "Sequence labeling: taggers and decoders."),
    ("conjunct.tagging.io", None, "Tagged text files."),
    ("conjunct.tasks.bunsetsu", ["BunsetsuDependencyParser", "load_gsd_bunsetsu"], "The Japanese bunsetsu dependency parser."),
    ("conjunct.tasks.english", ["EnglishDependencyParser", "read_ud_english"], "The English arc-eager dependency parser."),
    ("conjunct.tasks.chunk", ["Chunker"], "The CoNLL-2000 chunker."),
    ("conjunct.tasks.segment", ["WordSegmenter"], "The Japanese word segmenter."),
    ("conjunct.analysis", None, "Text in, analysis out: the English and Japanese text pipelines."),
    ("conjunct.plot", None, "Figures (needs matplotlib: `pip install 'conjunct[plot]'`)."),
    ("conjunct.dask", None, "Processing and training on a Dask cluster (needs dask: `pip install 'conjunct[dask]'`)."),
)
# The persistence protocol: every saved object has them; save / load / pickle are the API.
SKIPPED_METHODS = {"to_container", "from_container", "to_meta", "from_meta", "from_arrays"}


def _is_data(obj: Any) -> bool:
    return not (inspect.isclass(obj) or inspect.isroutine(obj)) or type(obj).__module__ == "typing"


def public_names() -> Iterator[Tuple[str, str, Any]]:
    """(module, name, object) of every documented top-level name, in reference order."""
    for modname, names, _ in MODULES:
        mod = importlib.import_module(modname)
        for name in names if names is not None else mod.__all__:
            yield modname, name, getattr(mod, name)


def members(cls: type) -> List[Tuple[str, Any]]:
    """Public methods and properties of ``cls`` and of its bases from conjunct, in definition order."""
    seen: Dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        if not (base.__module__ or "").startswith("conjunct"):
            continue
        for k, v in vars(base).items():
            if k.startswith("_") or k in SKIPPED_METHODS:
                continue
            if isinstance(v, (staticmethod, classmethod)):
                v = getattr(cls, k)
            if callable(v) or isinstance(v, property) or type(v).__name__ in ("nb_method", "nb_property"):
                seen.pop(k, None)
                seen[k] = v
    return list(seen.items())


def _doc(obj: Any) -> str:
    """The docstring, inherited from a base class's method when an override has none."""
    if isinstance(obj, property):
        obj = obj.fget
    return inspect.getdoc(obj) or ""


def _constructor_doc(cls: type) -> str:
    """The docstring that describes ``cls``'s constructor: its own, or that of the base whose
    ``__init__`` it inherits."""
    for base in cls.__mro__:
        if "__init__" in vars(base) or "__new__" in vars(base):
            return _doc(base)
    return _doc(cls)


# -- signatures ---------------------------------------------------------------------------------------
def _default(value: Any, module: Any) -> str:
    if not isinstance(value, (int, float, str, bool, type(None))):
        for k, v in vars(module).items():
            if v is value and k.isupper():
                return k
    text = repr(value)
    return text if len(text) <= 60 else "..."


def _annotation(ann: Any) -> str:
    if isinstance(ann, str):
        return ann
    if hasattr(ann, "__forward_arg__"):
        return ann.__forward_arg__
    return inspect.formatannotation(ann)


def signature(obj: Any, module: Any) -> Optional[str]:
    """``(a: int = 1, *, b=None) -> str`` as written in the source, or None."""
    nb = getattr(getattr(obj, "__init__", obj) if inspect.isclass(obj) else obj, "__nb_signature__", None)
    if nb:
        text, _, defaults = nb[0]
        for i, d in enumerate(defaults or ()):
            text = text.replace(f"\\{i}", repr(d))
        m = re.match(r"def \w+\((?:self, )?(.*)\)(?: -> (.*))?$", text)
        if m:
            return f"({m.group(1)})" + ("" if inspect.isclass(obj) or not m.group(2) else f" -> {m.group(2)}")
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    parts, star_done = [], False
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if p.kind is p.VAR_POSITIONAL:
            star_done = True
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.annotation is not p.empty:
            text += ": " + _annotation(p.annotation)
        if p.default is not p.empty:
            text += (" = " if p.annotation is not p.empty else "=") + _default(p.default, module)
        parts.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    out = f"({', '.join(parts)})"
    ret = sig.return_annotation
    if ret is not sig.empty and not inspect.isclass(obj):
        out += " -> " + _annotation(ret)
    return out


def parameter_names(obj: Any) -> List[str]:
    """The parameters a docstring must describe (self / cls excluded)."""
    nb = getattr(getattr(obj, "__init__", obj) if inspect.isclass(obj) else obj, "__nb_signature__", None)
    if nb:
        m = re.match(r"def \w+\((.*)\)", nb[0][0])
        names = [re.split(r"[:=]", a.strip())[0].strip().lstrip("*") for a in m.group(1).split(",")] if m else []
        return [n for n in names if n and n not in ("self", "/", "")]
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values() if p.name not in ("self", "cls")]


# -- numpydoc ---------------------------------------------------------------------------------------
def sections(doc: str) -> Dict[str, List[str]]:
    """Numpydoc sections: heading -> lines ('' for the text before the first heading)."""
    out: Dict[str, List[str]] = {"": []}
    lines = doc.splitlines()
    current, i = "", 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            current = lines[i].strip()
            out[current] = []
            i += 2
            continue
        out[current].append(lines[i])
        i += 1
    return out


def documented_parameters(doc: str) -> List[str]:
    """Names in the Parameters section (``a, b : int`` documents both)."""
    names = []
    for line in sections(doc).get("Parameters", []):
        if line and not line[0].isspace():
            head = line.split(" : ")[0].strip()
            names += [n.strip().lstrip("*") for n in head.split(",")]
    return names


def check_docstrings() -> List[str]:
    """Problems of the documented names' docstrings (an empty list when all are complete)."""
    problems = []
    for modname, name, obj in public_names():
        where = f"{modname}.{name}"
        if _is_data(obj):
            continue
        doc = _doc(obj)
        if not doc.strip() or not doc.splitlines()[0].strip():
            problems.append(f"{where}: no docstring summary line")
            continue
        described = documented_parameters(_constructor_doc(obj) if inspect.isclass(obj) else doc)
        missing = [p for p in parameter_names(obj) if p not in described]
        if missing:
            problems.append(f"{where}: the Parameters section does not describe {missing}")
        if inspect.isclass(obj):
            for mname, m in members(obj):
                if not _doc(m).strip():
                    problems.append(f"{where}.{mname}: no docstring")
    return problems


# -- markdown -----------------------------------------------------------------------------------------
def _render_doc(doc: str) -> str:
    """Numpydoc -> markdown: section headings in bold, parameter entries as list items."""
    secs = sections(doc)
    out = ["\n".join(secs.pop("")).strip()]
    for head, lines in secs.items():
        out.append(f"\n**{head}**\n")
        if head in ("Parameters", "Returns", "Yields", "Raises", "Attributes", "Other Parameters", "Warns"):
            items: List[str] = []
            for line in lines:
                if not line.strip():
                    continue
                if not line[0].isspace():
                    name, _, kind = line.partition(" : ")
                    items.append(f"- `{name.strip()}`" + (f" ({kind.strip()})" if kind else "") + ":")
                elif items:
                    items[-1] += " " + line.strip()
            out.append("\n".join(items))
        else:
            block = "\n".join(lines).strip("\n")
            out.append(f"```\n{block}\n```" if head in ("Examples",) else block)
    text = "\n".join(out).strip()
    # Sphinx roles (:func:`x`, :class:`~a.b`) as plain code
    text = re.sub(r":(?:func|class|meth|data|attr|mod):`~?([^`]+)`", r"`\1`", text)
    # doctest lines as code
    return re.sub(r"(?m)^(>>> .*(?:\n(?!\n).*)*)", lambda m: f"```python\n{m.group(1)}\n```", text)


def render() -> str:
    out = ["# API reference", "",
           "Generated from the docstrings by `python docs/gen_api.py`; do not edit by hand. "
           "Every saved object also has `to_container()` / `from_container()` (the model-file "
           "protocol behind `save`, `load` and pickling), not listed here.", ""]
    out += [f"- [`{m}`](#{m.replace('.', '')}): {what}" for m, _, what in MODULES] + [""]
    for modname, names, what in MODULES:
        mod = importlib.import_module(modname)
        out += [f"## {modname}", "", what, ""]
        for name in names if names is not None else mod.__all__:
            obj = getattr(mod, name)
            full = f"{modname}.{name}"
            if _is_data(obj):
                value = (f"dict with the keys {list(obj)}" if isinstance(obj, dict)
                         else repr(obj).replace("typing.", ""))
                out += [f"### {full}", "", f"Constant: `{value if len(value) <= 100 else value[:97] + '...'}`", ""]
                continue
            sig = signature(obj, mod)
            kind = "class " if inspect.isclass(obj) else ""
            out += [f"### {kind}{full}", ""]
            if sig is not None:
                out += ["```python", f"{name}{sig}", "```", ""]
            elif inspect.isclass(obj):
                out += [f"Subclass of `{obj.__mro__[1].__name__}`.", ""]
            out += [_render_doc(_doc(obj)), ""]
            if inspect.isclass(obj):
                for mname, m in members(obj):
                    if isinstance(m, property) or type(m).__name__ == "nb_property":
                        out += [f"#### {name}.{mname} (property)", "", _render_doc(_doc(m)), ""]
                    else:
                        msig = signature(m, mod) or "(...)"
                        msig = re.sub(r"^\(self(?:, )?", "(", msig)
                        out += [f"#### {name}.{mname}", "", "```python", f"{mname}{msig}", "```", "", _render_doc(_doc(m)), ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if docs/api.md is stale or a docstring is incomplete")
    args = ap.parse_args(argv)
    problems = check_docstrings()
    text = render()
    if args.check:
        if OUT.read_text(encoding="utf-8") != text if OUT.exists() else True:
            problems.append(f"{OUT.relative_to(ROOT)} is out of date: run python docs/gen_api.py")
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
