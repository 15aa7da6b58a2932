"""Conjunctive linear models: explicit weights of feature conjunctions.

The margin of output ``o`` for an input set ``x`` is

    intercept[o] + sum over stored conjunctions t with t ⊆ x of weights[t, o]

as produced by an l1-regularised log-linear model over conjunctions of up to d
primitive features (the "l1-LLM" of Yoshinaga & Kitsuregawa 2009). The fast
classifiers of kernel models (PKE storage, the feature sequence trie) apply to these
models unchanged.

Text format (``from_text`` / ``to_text``)::

    # conjunct conjunctive linear model
    # classes: B-NP I-NP O            (optional; default -1 1 with one output)
    # decision: argmax                (optional: sign for one output, else argmax)
    <TAB>0.1 -0.2 0.3                 (empty conjunction: the intercept; optional)
    w=the<TAB>0.5 -0.1 0.0
    w=the t=DT<TAB>1.25 0 -3e-2

One conjunction per line: its features separated by spaces, a TAB, then K
weights. A conjunction may not repeat a feature or appear twice.
"""

from __future__ import annotations

import itertools
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from .._lazy import sparse as sp

from .._errors import ConjunctError, ModelFormatError
from ..features.index import FeatureIndex, rows_to_csr
from ..features.matrices import as_rows
from ..io.validation import MAX_DEGREE, Meta, Where, blocks, check_finite, csr, max_row_length, section
from .base import Model, check_model_width
from .labels import parse_label

__all__ = ["ConjunctiveLinearModel", "brute_force_margins"]


class ConjunctiveLinearModel(Model):
    """Explicit weights (rows of K outputs) of conjunctions of binary features.

    Parameters
    ----------
    conjunctions : sequence of sequences of int, or sparse matrix (n_conj, n_features)
        Each conjunction is a set of 1..d column ids.
    weights : array, shape (n_conj,) or (n_conj, K)
        Weight row of each conjunction.
    intercept : float or array (K,)
        Bias (the weight of the empty conjunction).
    classes, decision, features, source
        As for :class:`~conjunct.models.kernel.KernelModel`.
    """

    kind = "conjunctive_linear_model"
    default_method = "pke"
    _rows_attr, _weights_attr = "conjunctions", "weights"
    _rows_word, _weights_word, _sections_prefix = "conjunctions", "weights", "conj"
    conjunctions: sp.csr_matrix
    weights: np.ndarray

    def __init__(self, conjunctions: Any, weights: Any, intercept: Any = 0.0, *, classes: Optional[Sequence[Any]] = None,
                 decision: Optional[str] = None, features: Optional[FeatureIndex] = None,
                 source: Optional[str] = None) -> None:
        if sp.issparse(conjunctions):
            C = sp.csr_matrix(conjunctions, copy=True)
            C.sum_duplicates()
            C.eliminate_zeros()
            if C.data.size and np.any(C.data != 1):
                raise ConjunctError("conjunctions must be binary sets of features")
            C.data[:] = 1
        else:
            rows = [list(t) for t in conjunctions]
            for t in rows:
                if len(set(t)) != len(t):
                    raise ConjunctError(f"conjunction {t} repeats a feature")
            C = rows_to_csr(rows)
        sizes = np.diff(C.indptr)
        if sizes.size and sizes.min() == 0:
            raise ConjunctError("an empty conjunction must be given as the intercept, not as a row")
        # Each conjunction once: duplicates would silently double a weight.
        C.sort_indices()
        keys: Dict[bytes, int] = {}
        for i in range(C.shape[0]):
            key = C.indices[C.indptr[i]:C.indptr[i + 1]].tobytes()
            if key in keys:
                raise ConjunctError(f"conjunction {C.indices[C.indptr[i]:C.indptr[i + 1]].tolist()} appears twice (rows {keys[key]} and {i})")
            keys[key] = i
        self._init_parts(C, weights, intercept, classes, decision, features, source)

    # -- properties -------------------------------------------------------------
    @property
    def degree(self) -> int:
        """The largest conjunction size d."""
        sizes = np.diff(self.conjunctions.indptr)
        return int(sizes.max()) if sizes.size else 1

    @property
    def n_conjunctions(self) -> int:
        """Number of conjunctions with a weight row."""
        return int(self.conjunctions.shape[0])

    # -- text format ---------------------------------------------------------------------
    @classmethod
    def from_text(cls, path: Union[str, "os.PathLike[str]"], *, numeric: Optional[bool] = None) -> "ConjunctiveLinearModel":
        """Read the text format (see the module docstring).

        Features are strings (a named feature index) unless ``numeric`` is true,
        or ``numeric`` is None and every feature is a non-negative integer.
        """
        name = os.fspath(path)
        classes, decision = None, None
        conj: List[List[str]] = []
        weights: List[List[float]] = []
        intercept: Optional[List[float]] = None
        try:
            f = open(name, encoding="utf-8")
        except FileNotFoundError:
            raise ModelFormatError("no such file", name) from None
        with f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if line.startswith("#"):
                    body = line[1:].strip()
                    if body.startswith("classes:"):
                        classes = [parse_label(t) for t in body[len("classes:"):].split()]
                    elif body.startswith("decision:"):
                        decision = body[len("decision:"):].strip()
                    continue
                if not line.strip():
                    continue
                if "\t" not in line:
                    raise ModelFormatError("expected 'features<TAB>weights'", name, lineno)
                feats_text, weights_text = line.split("\t", 1)
                try:
                    w = [float(v) for v in weights_text.split()]
                except ValueError:
                    raise ModelFormatError(f"weights {weights_text!r} are not numbers", name, lineno) from None
                if not w or not all(np.isfinite(w)):
                    raise ModelFormatError("missing or non-finite weights", name, lineno)
                earlier = weights[0] if weights else intercept
                if earlier is not None and len(w) != len(earlier):
                    raise ModelFormatError(f"{len(w)} weights; earlier lines have {len(earlier)}", name, lineno)
                feats = feats_text.split()
                if not feats:
                    if intercept is not None:
                        raise ModelFormatError("the intercept (empty conjunction) appears twice", name, lineno)
                    intercept = w
                    continue
                if len(set(feats)) != len(feats):
                    raise ModelFormatError(f"conjunction {feats_text!r} repeats a feature", name, lineno)
                conj.append(feats)
                weights.append(w)
        if not conj and intercept is None:
            raise ModelFormatError("no conjunctions", name)
        K = len(weights[0]) if weights else len(intercept or ())
        if numeric is None:
            numeric = all(t.isdigit() for c in conj for t in c)
        if numeric:
            try:
                rows = [[int(t) for t in c] for c in conj]
            except ValueError as e:
                raise ModelFormatError(f"numeric model with a non-numeric feature ({e})", name) from None
            C = rows_to_csr(rows)
            features = None
        else:
            features = FeatureIndex(names=[])
            C = features.transform(conj, add=True)
        try:
            return cls(C if conj else sp.csr_matrix((0, C.shape[1])), np.asarray(weights).reshape(len(conj), K),
                       intercept if intercept is not None else 0.0, classes=classes, decision=decision,
                       features=features, source=f"text:{name}")
        except ConjunctError as e:
            raise ModelFormatError(str(e), name) from None

    def to_text(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the text format."""
        C = self.conjunctions
        with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as f:
            f.write("# conjunct conjunctive linear model\n")
            f.write("# classes: " + " ".join(str(c) for c in self.classes) + "\n")
            f.write(f"# decision: {self.rule.kind}\n")
            f.write("\t" + " ".join(f"{v:.17g}" for v in self.intercept) + "\n")
            for i in range(C.shape[0]):
                ids = C.indices[C.indptr[i]:C.indptr[i + 1]]
                names = [self.features.name(int(j)) if self.features is not None else str(int(j)) for j in ids]
                for n in names:
                    if not n or any(ch.isspace() for ch in n):
                        raise ConjunctError(f"feature {n!r} cannot be written in the text format (empty or whitespace)")
                f.write(" ".join(names) + "\t" + " ".join(f"{v:.17g}" for v in self.weights[i]) + "\n")

    # -- persistence -----------------------------------------------------------------------
    def to_container(self) -> Tuple[str, Dict[str, Any], Dict[str, np.ndarray]]:
        return self._container({}, {})

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Mapping[str, np.ndarray], where: Where) -> None:
        K, n_columns = check_model_width(meta, arrays, where)
        ptr, _ = csr(arrays, where, "conj_indptr", "conj_indices", None, n_columns)
        if ptr.size > 1 and min_row_length(ptr) == 0:
            where.section_fail("conj_indptr", "an empty conjunction (the intercept is a section of its own)")
        if max_row_length(ptr) > MAX_DEGREE:
            where.section_fail("conj_indptr", f"a conjunction of more than {MAX_DEGREE} features")
        n = ptr.size - 1
        check_finite(section(arrays, where, "weights", "<f8", (n, K)), where, "weights")
        check_finite(section(arrays, where, "intercept", "<f8", (K,)), where, "intercept")

    @classmethod
    def from_container(cls, meta: Dict[str, Any], arrays: Dict[str, np.ndarray],
                       name: str = "<model>") -> "ConjunctiveLinearModel":
        try:
            parts = cls._parts(meta, arrays)
            return cls(parts.pop("rows"), parts.pop("weights"), **parts)
        except (KeyError, ValueError, TypeError) as e:
            raise cls._corrupt(e, name) from None

    def info(self) -> Dict[str, Any]:
        """A summary of the model (what ``conjunct info`` prints)."""
        sizes = np.bincount(np.diff(self.conjunctions.indptr), minlength=self.degree + 1)
        return self._info(kind="conjunctive linear model", conjunctions=self.n_conjunctions,
                          conjunctions_by_size={int(k): int(v) for k, v in enumerate(sizes) if k and v}, degree=self.degree)

    def __repr__(self) -> str:
        return f"ConjunctiveLinearModel(n_conj={self.n_conjunctions}, K={self.n_outputs}, degree={self.degree}, decision={self.rule.kind!r})"


def brute_force_margins(model: ConjunctiveLinearModel, X: Any) -> np.ndarray:
    """Reference margins by enumerating every subset (size <= d) of every input.

    Exponential in d and slow; for tests and checks, not for production.
    """
    C = model.conjunctions
    table = {tuple(C.indices[C.indptr[i]:C.indptr[i + 1]].tolist()): i for i in range(C.shape[0])}
    indptr, indices = as_rows(X, model.features)
    d = model.degree
    out = np.tile(model.intercept, (len(indptr) - 1, 1))
    for r in range(len(indptr) - 1):
        x = sorted(set(indices[indptr[r]:indptr[r + 1]].tolist()))
        for k in range(1, d + 1):
            for t in itertools.combinations(x, k):
                i = table.get(t)
                if i is not None:
                    out[r] += model.weights[i]
    return out


def min_row_length(ptr: np.ndarray) -> int:
    """The shortest row of a CSR matrix with at least one row (``ptr`` checked)."""
    return min(int(np.min(ptr[s + 1:e] - ptr[s:e - 1])) for s, e in blocks(ptr.size - 1, 1))
