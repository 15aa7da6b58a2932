"""Models: polynomial-kernel models (support vectors + alpha rows)."""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from . import _core, model_io
from ._errors import ConjunctError, ModelFormatError
from .data import as_binary_csr
from .features import FeatureIndex
from .labels import DecisionRule

__all__ = ["KernelModel", "PolyKernel"]

PolyKernel = _core.PolyKernel


class KernelModel:
    """A polynomial-kernel model over binary features.

    The margin of output ``o`` for an input set ``x`` is
    ``intercept[o] + sum_i dual_coef[i, o] * (gamma * |s_i ∩ x| + coef0) ** degree``,
    and a :class:`~conjunct.labels.DecisionRule` turns the K margins into a label.

    Parameters
    ----------
    support_vectors : sparse matrix or array, shape (n_sv, n_features)
        Binary support vectors (any nonzero other than 1 is an error).
    dual_coef : array, shape (n_sv,) or (n_sv, K)
        Signed coefficients (y_i * alpha_i), one row of K outputs per vector.
    intercept : float or array, shape (K,)
        Bias of each output.
    degree, gamma, coef0 : kernel parameters
        ``k(s, x) = (gamma * |s ∩ x| + coef0) ** degree``.
    classes : sequence, optional
        Label names; default ``[-1, 1]`` for K = 1, else ``range(K)``.
    decision : {"sign", "argmax", "ovo"}, optional
        Decision rule; default ``"sign"`` for K = 1, else ``"argmax"``.
    features : FeatureIndex, optional
        Feature strings and training counts; counts set the frequency ranks the
        fast classifiers use (support-vector frequency when absent).
    source : str, optional
        Where the model came from (for ``info``).
    """

    kind = "kernel_model"

    def __init__(
        self,
        support_vectors,
        dual_coef,
        intercept=0.0,
        *,
        degree: int = 2,
        gamma: float = 1.0,
        coef0: float = 1.0,
        classes: Optional[Sequence] = None,
        decision: Optional[str] = None,
        features: Optional[FeatureIndex] = None,
        source: Optional[str] = None,
    ):
        S = as_binary_csr(support_vectors)
        alpha = np.array(dual_coef, dtype=np.float64)
        if alpha.ndim == 1:
            alpha = alpha.reshape(-1, 1)
        if alpha.ndim != 2 or alpha.shape[0] != S.shape[0]:
            raise ConjunctError(
                f"dual_coef has shape {np.shape(dual_coef)} but there are {S.shape[0]} support vectors; "
                "expected (n_sv,) or (n_sv, K)"
            )
        K = alpha.shape[1]
        bias = np.array(intercept, dtype=np.float64).reshape(-1)
        if bias.size == 1 and K > 1:
            bias = np.full(K, bias[0])
        if bias.shape != (K,):
            raise ConjunctError(f"intercept has {bias.size} values but dual_coef has {K} outputs")
        if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(bias))):
            raise ConjunctError("dual_coef and intercept must be finite")
        if int(degree) != degree or degree < 1:
            raise ConjunctError(f"degree must be a positive integer, got {degree!r}")
        if not (np.isfinite(gamma) and np.isfinite(coef0)):
            raise ConjunctError("gamma and coef0 must be finite")
        if decision is None:
            decision = "sign" if K == 1 else "argmax"
        if classes is None:
            classes = [-1, 1] if decision == "sign" else list(range(K))
        rule = DecisionRule(decision, classes)
        if rule.n_outputs != K:
            raise ConjunctError(f"decision rule {decision!r} with {len(rule.classes)} classes needs {rule.n_outputs} outputs, got {K}")
        if features is not None and len(features) < S.shape[1] and not features.is_numeric:
            raise ConjunctError(f"support vectors have {S.shape[1]} columns but the feature index has {len(features)} features")
        self.support_vectors = S
        self.dual_coef = alpha
        self.intercept = bias
        self.kernel = PolyKernel(float(gamma), float(coef0), int(degree))
        self.rule = rule
        self.features = features
        self.source = source
        self._compiled: Dict[str, object] = {}

    # -- properties -------------------------------------------------------------
    @property
    def degree(self) -> int:
        """The kernel degree d."""
        return self.kernel.degree

    @property
    def gamma(self) -> float:
        """The kernel's gamma."""
        return self.kernel.gamma

    @property
    def coef0(self) -> float:
        """The kernel's coef0 (c)."""
        return self.kernel.coef0

    @property
    def classes(self) -> np.ndarray:
        """Class labels, in the decision rule's order."""
        return self.rule.classes

    @property
    def n_outputs(self) -> int:
        """K, the number of margins per input (alpha values per support vector)."""
        return self.dual_coef.shape[1]

    @property
    def n_support_vectors(self) -> int:
        """Number of support vectors."""
        return self.support_vectors.shape[0]

    @property
    def n_columns(self) -> int:
        """Number of input columns the model knows (feature ids beyond carry no weight)."""
        width = self.support_vectors.shape[1]
        return max(width, len(self.features)) if self.features is not None else width

    # -- ranks and the internal feature space --------------------------------------
    def feature_counts(self) -> np.ndarray:
        """Per-column frequency used for ranking: training counts when known, else support-vector frequency."""
        n = self.n_columns
        if self.features is not None and self.features.counts.any():
            counts = np.zeros(n, dtype=np.int64)
            counts[: len(self.features)] = self.features.counts
            return counts
        return np.bincount(self.support_vectors.indices, minlength=n).astype(np.int64)

    def internal_space(self):
        """(col_map, internal support vectors CSR) with features renumbered by frequency rank.

        ``col_map[c]`` is the internal id of column ``c`` (0 = most frequent among
        features that occur in a support vector) or -1 when the column carries no
        weight. Rows of the returned matrix are sorted internal ids.
        """
        from .classifiers import rank_space

        return rank_space(self.support_vectors, self.feature_counts(), self.n_columns)

    # -- classification -------------------------------------------------------------
    def compile(self, method: str = "pki", **params):
        """An immutable fast classifier for this model.

        Parameters
        ----------
        method : {"pkb", "pki", "pke", "split", "fstrie"}
            ``"pkb"``: brute force over every support vector (the reference);
            ``"pki"``: inverted index over the support vectors;
            ``"pke"``: expanded conjunction weights (``sigma``, ``min_support``
            for the approximate HKE; ``dense_bytes`` / ``dense_features`` for the
            dense table of frequent features);
            ``"split"``: kernel splitting (``common_features`` = top-N ranks, or
            ``min_support``);
            ``"fstrie"``: feature sequence trie (``events``, ``max_nodes`` or
            ``max_bytes``, ``base`` = "pke" | "split" and its parameters).
        **params
            Method parameters.
        """
        from .classifiers import compile_model

        return compile_model(self, method, **params)

    def _default_classifier(self):
        clf = self._compiled.get("pki")
        if clf is None:
            clf = self._compiled["pki"] = self.compile("pki")
        return clf

    def decision_function(self, X, *, n_jobs: int = 1) -> np.ndarray:
        """Margins of X (shape (n,) for K = 1, else (n, K)), computed with PKI."""
        return self._default_classifier().decision_function(X, n_jobs=n_jobs)

    def predict(self, X, *, n_jobs: int = 1) -> np.ndarray:
        """Predicted labels of X."""
        return self._default_classifier().predict(X, n_jobs=n_jobs)

    # -- persistence -------------------------------------------------------------------
    def to_container(self):
        meta = {
            "degree": self.degree,
            "gamma": self.gamma,
            "coef0": self.coef0,
            "rule": self.rule.to_meta(),
            "n_columns": int(self.support_vectors.shape[1]),
            "source": self.source,
        }
        arrays = {
            "sv_indptr": self.support_vectors.indptr.astype(np.int64),
            "sv_indices": self.support_vectors.indices.astype(np.int32),
            "dual_coef": self.dual_coef,
            "intercept": self.intercept,
        }
        if self.features is not None:
            fmeta, farrays = self.features.to_arrays()
            meta["features"] = fmeta
            arrays.update({f"features.{k}": v for k, v in farrays.items()})
        return self.kind, meta, arrays

    @classmethod
    def from_container(cls, meta: dict, arrays: Dict[str, np.ndarray], name: str = "<model>") -> "KernelModel":
        try:
            indptr, indices = arrays["sv_indptr"], arrays["sv_indices"]
            n_sv = len(indptr) - 1
            S = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n_sv, int(meta["n_columns"])))
            features = _features_from(meta, arrays)
            rule = meta["rule"]
            return cls(
                S, arrays["dual_coef"], arrays["intercept"], degree=meta["degree"], gamma=meta["gamma"],
                coef0=meta["coef0"], classes=rule["classes"], decision=rule["kind"], features=features,
                source=meta.get("source"),
            )
        except (KeyError, ValueError, TypeError) as e:
            raise ModelFormatError(f"corrupt kernel model ({e})", name) from None

    def save(self, path) -> None:
        """Write the model to ``path`` (atomically) in conjunct's model format."""
        model_io.write_container(path, *self.to_container())

    def __reduce__(self):
        from . import persistence

        return (persistence.from_bytes, (model_io.dumps(*self.to_container()),))

    def info(self) -> dict:
        """A summary of the model."""
        S = self.support_vectors
        return {
            "kind": "kernel model",
            "kernel": f"({self.gamma:g} * |s ∩ x| + {self.coef0:g}) ** {self.degree}",
            "support_vectors": self.n_support_vectors,
            "outputs": self.n_outputs,
            "decision": self.rule.kind,
            "classes": self.classes.tolist(),
            "features_in_support_vectors": int(np.unique(S.indices).size),
            "average_support_vector_length": float(np.diff(S.indptr).mean()) if S.shape[0] else 0.0,
            "feature_index": "none" if self.features is None else ("numeric" if self.features.is_numeric else f"{len(self.features)} named features"),
            "source": self.source,
        }

    def __repr__(self) -> str:
        return (
            f"KernelModel(n_sv={self.n_support_vectors}, K={self.n_outputs}, degree={self.degree}, "
            f"gamma={self.gamma:g}, coef0={self.coef0:g}, decision={self.rule.kind!r})"
        )


def _features_from(meta: dict, arrays: Dict[str, np.ndarray]) -> Optional[FeatureIndex]:
    if "features" not in meta:
        return None
    sub = {k[len("features."):]: v for k, v in arrays.items() if k.startswith("features.")}
    return FeatureIndex.from_arrays(meta["features"], sub)
