"""The package's shape: no import cycles, every module importable on its own,
the file layer independent of what it loads, the public names of ``conjunct``."""

import ast
import importlib
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

import conjunct

PACKAGE = pathlib.Path(conjunct.__file__).parent


def _modules():
    """Module name -> (path, is a package) of every .py file of the package."""
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return mods


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def import_graph():
    """Module -> the package modules it imports, from the AST: every import
    statement counts, also those inside functions (a lazy import is still a
    dependency)."""
    mods = _modules()

    def owner(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph, missing = {}, []
    for name, (path, is_pkg) in mods.items():
        package = name if is_pkg else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(owner(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module
                if base.split(".")[0] == "conjunct" and base not in mods and not _is_module(base):
                    missing.append(f"{name}:{node.lineno} imports from {base}, which does not exist")
                for a in node.names:
                    full = f"{base}.{a.name}"
                    if full in mods:
                        targets.add(full)
                    elif not (full.startswith("conjunct.") and _is_module(full)):  # else: an extension module (_core)
                        targets.add(owner(base))
        targets.discard(None)
        targets.discard(name)
        graph[name] = targets
    if missing:
        raise AssertionError("\n".join(missing))
    return graph


def cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_graph_sees_imports():
    graph = import_graph()
    assert "conjunct.io.model_io" in graph["conjunct.io.persistence"]
    assert "conjunct.features.index" in graph["conjunct.models.kernel"]
    # lazy imports count: the one compile entry point
    assert "conjunct.models.classifiers" in graph["conjunct.models.base"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle():
    graph = import_graph()
    assert cycles(graph) == []


# The data flow, bottom first: a module imports only from its own layer and the
# layers below it. An entry ending in "." is a package (its modules and the package
# itself); a module takes the layer of its longest entry, so the three modules of
# io/ that build on features and models sit higher than the rest of io/.
LAYERS = (
    ("shared helpers", ("conjunct._errors", "conjunct._lazy", "conjunct._params", "conjunct._jobs", "conjunct._timing",
                        "conjunct.budget", "conjunct.progress", "conjunct.datasets")),
    ("the model file and text input", ("conjunct.io.",)),
    ("features", ("conjunct.features.",)),
    ("models and classifiers, data files, other tools' models", ("conjunct.models.", "conjunct.io.data",
                                                                 "conjunct.io.importers", "conjunct.io.exporters")),
    ("training", ("conjunct.training.",)),
    ("taggers and task pipelines", ("conjunct.tagging.", "conjunct.tasks.")),
    ("text pipelines, clusters, figures", ("conjunct.analysis.", "conjunct.dask.", "conjunct.plot.")),
    ("the command line and the public names", ("conjunct.commands.", "conjunct.cli", "conjunct.demo", "conjunct.__main__",
                                               "conjunct")),
)


def layer_of(module: str):
    """The index in LAYERS of ``module`` (its longest matching entry), or None."""
    best, found = -1, None
    for i, (_, entries) in enumerate(LAYERS):
        for e in entries:
            hit = module == e[:-1] or module.startswith(e) if e.endswith(".") else module == e
            if hit and len(e) > best:
                best, found = len(e), i
    return found


def upward_imports(graph):
    """'module (layer) imports target (layer)' for every import of a higher layer."""
    return [f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
            for m, targets in sorted(graph.items()) for t in sorted(targets) if layer_of(t) > layer_of(m)]


def test_every_module_has_a_layer():
    graph = import_graph()
    assert [m for m in sorted(graph) if layer_of(m) is None] == [], "add it to LAYERS (docs/architecture.md: Layout)"
    assert layer_of("conjunct.io.model_io") < layer_of("conjunct.features.index") < layer_of("conjunct.io.data")
    assert layer_of("conjunct.io") == layer_of("conjunct.io.tokens") and layer_of("conjunct.no_such_module") is None


def test_imports_go_down_the_layers():
    graph = import_graph()
    assert upward_imports(graph) == []
    # the check sees a violation: the container reaching up to a model type
    assert upward_imports({"conjunct.io.model_io": {"conjunct.models.kernel"}, "conjunct.models.kernel": set()}) == [
        "conjunct.io.model_io (the model file and text input) imports conjunct.models.kernel "
        "(models and classifiers, data files, other tools' models)"]


def test_file_layer_imports_no_saveable_class():
    graph = import_graph()
    # the file layer: the container, and the checks every file passes before an object is built
    assert graph["conjunct.io.persistence"] <= {"conjunct.io.model_io", "conjunct._errors", "conjunct.io.validation"}


def _run(code: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


_IMPORT_EACH = """
import importlib, json, sys, traceback
failed = {}
for name in json.loads(sys.argv[1]):
    # Forget every conjunct module but the C++ extension (which cannot be
    # loaded twice), so each module is imported first, before any other.
    for loaded in [m for m in sys.modules if m.split(".")[0] == "conjunct" and m != "conjunct._core"]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except BaseException:
        failed[name] = traceback.format_exc(limit=-3)
print(json.dumps(failed))
"""


def test_every_module_imports_alone():
    names = [n for n in _modules() if not n.endswith("__main__")]
    r = subprocess.run([sys.executable, "-c", _IMPORT_EACH, json.dumps(names)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == {}


def test_loading_a_kernel_model_imports_no_pipeline(tmp_path):
    model = conjunct.KernelModel([[1, 0, 1], [0, 1, 1]], [0.5, -1.0], degree=2)
    path = tmp_path / "m.cjt"
    model.save(path)
    code = (
        "import sys, conjunct\n"
        f"m = conjunct.load({str(path)!r})\n"
        "assert type(m).__name__ == 'KernelModel', m\n"
        "heavy = [n for n in sys.modules if n.startswith(('conjunct.tasks', 'conjunct.training', 'conjunct.tagging', "
        "'conjunct.io.importers', 'conjunct.commands'))]\n"
        "print(heavy)\n"
    )
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_every_saveable_kind_is_known_to_the_file_layer():
    from conjunct.io.persistence import KINDS, Saveable
    from conjunct.tasks.base import TASKS, TaskPipeline

    for module in ("conjunct.tagging", "conjunct.analysis", *TASKS.modules.values()):  # importing them registers their classes
        importlib.import_module(module)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    kinds = {c.kind: c for c in subclasses(Saveable) if c.__dict__.get("kind")}
    assert set(kinds) == set(KINDS.modules)
    for kind, cls in kinds.items():
        assert KINDS.modules[kind] == cls.__module__, kind
        assert KINDS.get(kind) is cls
    tasks = {c.task: c for c in subclasses(TaskPipeline) if c.__dict__.get("task")}
    assert set(tasks) == set(TASKS.modules)
    for task, cls in tasks.items():
        assert cls.__module__.startswith(TASKS.modules[task]), task
        assert TASKS.get(task) is cls


def test_public_names():
    for name in conjunct.__all__:
        assert getattr(conjunct, name) is not None, name
    assert set(conjunct.__all__) <= set(dir(conjunct))
    for name in ("PAClassifier", "L1LogLinearClassifier", "import_model", "from_sklearn", "PerceptronTagger",
                 "HMMTagger", "BunsetsuDependencyParser", "EnglishDependencyParser", "Chunker", "WordSegmenter",
                 "load", "save"):
        assert name in conjunct.__all__
    from conjunct.tasks.chunk import Chunker
    from conjunct.training import PAClassifier

    assert conjunct.Chunker is Chunker and conjunct.PAClassifier is PAClassifier
    with pytest.raises(AttributeError):
        conjunct.no_such_name


def test_import_is_light_and_names_load_on_use():
    code = (
        "import sys, conjunct\n"
        "heavy = lambda: sorted(n for n in sys.modules if n.startswith(('conjunct.tasks', 'conjunct.training', "
        "'conjunct.tagging', 'conjunct.io.importers')))\n"
        "print(heavy())\n"
        "conjunct.PAClassifier, conjunct.import_model\n"
        "print(heavy())\n"
    )
    r = _run(code)
    assert r.returncode == 0, r.stderr
    before, after = r.stdout.strip().splitlines()
    assert before == "[]"
    assert "'conjunct.training'" in after and "'conjunct.io.importers'" in after and "conjunct.tasks" not in after


def test_a_foreign_file_points_to_import_model(tmp_path):
    path = tmp_path / "m.libsvm"
    path.write_text("svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 0\nrho 0\n")
    with pytest.raises(conjunct.ModelFormatError, match="conjunct.import_model") as e:
        conjunct.load(path)
    assert callable(conjunct.import_model) and "import_model" in str(e.value)


def test_one_parameter_protocol():
    from conjunct.tasks.base import TaskPipeline

    for cls in (conjunct.PAClassifier, conjunct.L1LogLinearClassifier, conjunct.PerceptronTagger, conjunct.HMMTagger,
                conjunct.BunsetsuDependencyParser, conjunct.EnglishDependencyParser, conjunct.Chunker,
                conjunct.WordSegmenter):
        obj = cls()
        params = obj.get_params()
        assert params and all(not k.startswith("_") for k in params), cls
        again = cls(**params)
        assert again.get_params() == params, cls
        key = "degree" if "degree" in params else "beam_width"
        assert obj.set_params(**{key: 3}) is obj and obj.get_params()[key] == 3
        with pytest.raises(ValueError):
            obj.set_params(no_such_parameter=1)
    # a pipeline's parameters are the base's and its own
    assert {"window", "degree", "C", "n_iter", "method"} <= set(conjunct.Chunker().get_params())
    assert set(TaskPipeline._get_param_names()) < set(conjunct.WordSegmenter().get_params())
    sklearn_base = pytest.importorskip("sklearn.base")
    seg = sklearn_base.clone(conjunct.WordSegmenter(ngram=2, degree=3))
    assert seg.ngram == 2 and seg.degree == 3
