"""What conjunct's two model types share.

A :class:`~conjunct.models.kernel.KernelModel` (support vectors and their alpha rows)
and a :class:`~conjunct.models.linear.ConjunctiveLinearModel` (conjunctions and their
weight rows) are both a binary CSR matrix of rows, a (rows, K) array of
weights, K biases, a decision rule, an optional feature index and a source.
:class:`Model` validates those parts, compiles the model (the one entry point
to :func:`conjunct.models.classifiers.compile_model`), keeps a default classifier for
``decision_function`` / ``predict``, and writes the parts of the file the two
agree on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np
from .._lazy import sparse as sp

from .._errors import ConjunctError, ModelFormatError
from ..features.checks import optional_features
from ..features.index import FeatureIndex, rank_space, store_features, stored_features
from ..io.persistence import Saveable
from ..io.validation import MAX_COLUMNS, Meta, Where, check_budget
from .labels import DecisionRule, check_rule

if TYPE_CHECKING:
    from .classifiers import Classifier

__all__ = ["Model", "check_model_width"]

#: Bytes per input column that a model's compiled classifiers keep (column map
#: 4, frequency counts 8): checked against the memory budget for models whose
#: width is a number in the header rather than the size of a section.
BYTES_PER_COLUMN = 12


class Model(Saveable):
    """Base of :class:`~conjunct.models.kernel.KernelModel` and
    :class:`~conjunct.models.linear.ConjunctiveLinearModel`.

    Subclasses set ``default_method`` and name their parts: ``_rows_attr``
    (the binary CSR), ``_weights_attr`` (its (rows, K) weights), and the words
    their messages use for them.
    """

    default_method = "pki"
    _rows_attr = ""
    _weights_attr = ""
    _rows_word = "rows"            # "support vectors", "conjunctions"
    _weights_word = "weights"      # "dual_coef", "weights"
    _sections_prefix = ""          # file sections <prefix>_indptr, <prefix>_indices hold the rows

    # -- construction ---------------------------------------------------------------
    def _init_parts(self, rows: sp.csr_matrix, weights: Any, intercept: Any, classes: Optional[Sequence[Any]],
                    decision: Optional[str], features: Optional[FeatureIndex], source: Optional[str]) -> None:
        """Validate and set the rows, weights, intercept, rule, features and source."""
        W = np.array(weights, dtype=np.float64)
        if W.ndim == 1:
            W = W.reshape(-1, 1)
        if W.ndim != 2 or W.shape[0] != rows.shape[0]:
            raise ConjunctError(
                f"{self._weights_word} has shape {np.shape(weights)} but there are {rows.shape[0]} {self._rows_word}; "
                f"expected ({rows.shape[0]},) or ({rows.shape[0]}, K)"
            )
        K = W.shape[1]
        bias = np.array(intercept, dtype=np.float64).reshape(-1)
        if bias.size == 1 and K > 1:
            bias = np.full(K, bias[0])
        if bias.shape != (K,):
            raise ConjunctError(f"intercept has {bias.size} values but {self._weights_word} has {K} outputs")
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(bias))):
            raise ConjunctError(f"{self._weights_word} and intercept must be finite")
        if decision is None:
            decision = "sign" if K == 1 else "argmax"
        if classes is None:
            classes = [-1, 1] if decision == "sign" else list(range(K))
        rule = DecisionRule(decision, classes)
        if rule.n_outputs != K:
            raise ConjunctError(f"decision rule {decision!r} with {len(rule.classes)} classes needs {rule.n_outputs} outputs, got {K}")
        if features is not None and not features.is_numeric and len(features) < rows.shape[1]:
            raise ConjunctError(f"the {self._rows_word} use {rows.shape[1]} columns but the feature index has {len(features)} features")
        setattr(self, self._rows_attr, rows)
        setattr(self, self._weights_attr, W)
        self.intercept = bias
        self.rule = rule
        self.features = features
        self.source = source
        self._compiled: Dict[str, "Classifier"] = {}

    @property
    def _rows(self) -> sp.csr_matrix:
        rows: sp.csr_matrix = getattr(self, self._rows_attr)
        return rows

    # -- properties -------------------------------------------------------------
    @property
    def classes(self) -> np.ndarray:
        """The labels, in the order of the decision rule's outputs."""
        return self.rule.classes

    @property
    def n_outputs(self) -> int:
        """K, the number of margins per input (1 for a binary model)."""
        return int(getattr(self, self._weights_attr).shape[1])

    @property
    def n_columns(self) -> int:
        """Number of input columns the model knows (feature ids beyond carry no weight)."""
        width = self._rows.shape[1]
        return int(max(width, len(self.features)) if self.features is not None else width)

    def feature_counts(self) -> np.ndarray:
        """Per-column frequency used for ranking: training counts when the
        feature index has them, else the number of rows a feature occurs in."""
        n = self.n_columns
        if self.features is not None and self.features.counts.any():
            counts = np.zeros(n, dtype=np.int64)
            counts[: len(self.features)] = self.features.counts
            return counts
        return np.bincount(self._rows.indices, minlength=n).astype(np.int64)

    def internal_space(self) -> Tuple[np.ndarray, sp.csr_matrix]:
        """(col_map, rows CSR in internal ids): the features the rows use
        renumbered by frequency rank (:func:`~conjunct.features.index.rank_space`).

        ``col_map[c]`` is the internal id of column ``c`` (0 = the most frequent
        feature that occurs in a row) or -1 when the column carries no weight.
        Rows of the returned matrix are sorted internal ids.
        """
        return rank_space(self._rows, self.feature_counts(), self.n_columns)

    # -- classification -------------------------------------------------------------
    def compile(self, method: Optional[str] = None, **params: Any) -> "Classifier":
        """An immutable fast classifier for this model.

        Parameters
        ----------
        method : str, optional
            One of :data:`conjunct.models.classifiers.METHODS`.
            Default: ``"pki"`` for kernel models, ``"pke"`` for conjunctive
            linear models. ``"pkb"``: brute force over every support vector
            (the reference); ``"pki"``: inverted index over the support
            vectors; ``"pke"``: expanded conjunction weights (``sigma``,
            ``min_support`` for the approximate HKE; ``dense_bytes`` /
            ``dense_features`` for the dense table of frequent features);
            ``"split"``: kernel splitting (``common_features`` = top-N ranks,
            or ``min_support``); ``"fstrie"``: feature sequence trie
            (``events``, ``max_nodes`` or ``max_bytes``, ``base`` = "pke" |
            "split" and its parameters); ``"adaptive"``: an fstrie grown while
            classifying (``cache_rows``, ``eviction``, ``warm_start``).
            ``pkb``, ``pki`` and ``split`` need a kernel model.
        **params
            Method parameters.
        """
        from .classifiers import compile_model

        return compile_model(self, method or self.default_method, **params)

    def _default_classifier(self) -> "Classifier":
        clf = self._compiled.get(self.default_method)
        if clf is None:
            clf = self._compiled[self.default_method] = self.compile()
        return clf

    def decision_function(self, X: Any, *, n_jobs: int = 1) -> np.ndarray:
        """Margins of X (shape (n,) for K = 1, else (n, K)), computed with the
        default method (compiled once and kept)."""
        return self._default_classifier().decision_function(X, n_jobs=n_jobs)

    def predict(self, X: Any, *, n_jobs: int = 1) -> np.ndarray:
        """Predicted labels of X (see :meth:`decision_function`)."""
        return self._default_classifier().predict(X, n_jobs=n_jobs)

    # -- persistence -------------------------------------------------------------------
    def _container(self, meta: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> Tuple[str, Dict[str, Any], Dict[str, np.ndarray]]:
        """(kind, meta, arrays) with the shared parts added to a subclass's own."""
        rows = self._rows
        prefix = self._sections_prefix
        meta = {**meta, "rule": self.rule.to_meta(), "n_columns": int(rows.shape[1]), "source": self.source}
        arrays = {f"{prefix}_indptr": rows.indptr.astype(np.int64), f"{prefix}_indices": rows.indices.astype(np.int32),
                  self._weights_attr: getattr(self, self._weights_attr), "intercept": self.intercept, **arrays}
        store_features(self.features, meta, arrays)
        return self.kind, meta, arrays

    @classmethod
    def _parts(cls, meta: Dict[str, Any], arrays: Mapping[str, np.ndarray]) -> Dict[str, Any]:
        """The shared constructor arguments stored by :meth:`_container`."""
        indptr, indices = arrays[f"{cls._sections_prefix}_indptr"], arrays[f"{cls._sections_prefix}_indices"]
        rows = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(indptr) - 1, int(meta["n_columns"])))
        rule = meta["rule"]
        return dict(rows=rows, weights=arrays[cls._weights_attr], intercept=arrays["intercept"], classes=rule["classes"],
                    decision=rule["kind"], features=stored_features(meta, arrays), source=meta.get("source"))

    @classmethod
    def _corrupt(cls, e: Exception, name: str) -> ModelFormatError:
        return ModelFormatError(f"corrupt {cls.kind.replace('_', ' ')} ({e})", name)

    def _info(self, **specific: Any) -> Dict[str, Any]:
        """``info()``: the subclass's own entries between the kind and the shared ones."""
        return {**specific, "outputs": self.n_outputs, "decision": self.rule.kind, "classes": self.classes.tolist(),
                "source": self.source}


def check_model_width(meta: Meta, arrays: Mapping[str, np.ndarray], where: Where) -> Tuple[int, int]:
    """(K, n_columns) of a model (kernel or linear): its rule, width, source and
    feature index, and the per-column tables its width implies."""
    _, _, K = check_rule(meta)
    n_columns = meta.int("n_columns", 0, MAX_COLUMNS)
    meta.str("source", optional=True, none=True)
    named, n_names = optional_features(meta, arrays, where)
    if named and n_names < n_columns:
        where.meta_fail("n_columns", f"is {n_columns}, more than the {n_names} named features")
    width = max(n_columns, n_names)
    check_budget(width * BYTES_PER_COLUMN, f"the per-column tables of {width} columns", where, "n_columns")
    return K, n_columns
