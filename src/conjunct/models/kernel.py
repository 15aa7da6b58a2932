"""Polynomial-kernel models (support vectors + alpha rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple, cast

import numpy as np
from .._lazy import sparse as sp

from .. import _core
from .._errors import ConjunctError
from ..features.index import FeatureIndex
from ..features.matrices import as_binary_csr
from .base import Model, check_model_width
if TYPE_CHECKING:
    from .classifiers import Classifier
from ..io.validation import Meta, Where, check_finite, check_kernel_magnitude, csr, kernel, max_row_length, section

__all__ = ["KernelModel", "PolyKernel"]

PolyKernel = _core.PolyKernel


class KernelModel(Model):
    """A polynomial-kernel model over binary features.

    The margin of output ``o`` for an input set ``x`` is
    ``intercept[o] + sum_i dual_coef[i, o] * (gamma * |s_i ∩ x| + coef0) ** degree``,
    and a :class:`~conjunct.models.labels.DecisionRule` turns the K margins into a label.

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
    default_method = "pki"
    _rows_attr, _weights_attr = "support_vectors", "dual_coef"
    _rows_word, _weights_word, _sections_prefix = "support vectors", "dual_coef", "sv"
    support_vectors: sp.csr_matrix
    dual_coef: np.ndarray

    def __init__(
        self,
        support_vectors: Any,
        dual_coef: Any,
        intercept: Any = 0.0,
        *,
        degree: int = 2,
        gamma: float = 1.0,
        coef0: float = 1.0,
        classes: Optional[Sequence[Any]] = None,
        decision: Optional[str] = None,
        features: Optional[FeatureIndex] = None,
        source: Optional[str] = None,
    ) -> None:
        if int(degree) != degree or degree < 1:
            raise ConjunctError(f"degree must be a positive integer, got {degree!r}")
        if not (np.isfinite(gamma) and np.isfinite(coef0)):
            raise ConjunctError("gamma and coef0 must be finite")
        self._init_parts(as_binary_csr(support_vectors), dual_coef, intercept, classes, decision, features, source)
        self.kernel = PolyKernel(float(gamma), float(coef0), int(degree))

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
    def n_support_vectors(self) -> int:
        """Number of support vectors."""
        return int(self.support_vectors.shape[0])

    # -- persistence -------------------------------------------------------------------
    def to_container(self) -> Tuple[str, Dict[str, Any], Dict[str, np.ndarray]]:
        return self._container({"degree": self.degree, "gamma": self.gamma, "coef0": self.coef0}, {})

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Mapping[str, np.ndarray], where: Where) -> None:
        poly = kernel(meta)
        K, n_columns = check_model_width(meta, arrays, where)
        ptr, _ = csr(arrays, where, "sv_indptr", "sv_indices", None, n_columns)
        n_sv = ptr.size - 1
        alpha = section(arrays, where, "dual_coef", "<f8", (n_sv, K))
        check_finite(alpha, where, "dual_coef")
        check_finite(section(arrays, where, "intercept", "<f8", (K,)), where, "intercept")
        if n_sv:
            check_kernel_magnitude(poly, max_row_length(ptr), (alpha,), where, "dual_coef")

    @classmethod
    def from_container(cls, meta: Dict[str, Any], arrays: Dict[str, np.ndarray], name: str = "<model>") -> "KernelModel":
        try:
            parts = cls._parts(meta, arrays)
            return cls(parts.pop("rows"), parts.pop("weights"), degree=meta["degree"], gamma=meta["gamma"],
                       coef0=meta["coef0"], **parts)
        except (KeyError, ValueError, TypeError) as e:
            raise cls._corrupt(e, name) from None

    @classmethod
    def from_classifier(cls, clf: "Classifier") -> Optional["KernelModel"]:
        """The model a ``pkb`` or ``pki`` classifier was compiled from, exactly:
        those classifiers keep every support vector (in internal ids), the dual
        coefficients as their alpha rows and the intercept as their bias, so a
        file need not store the model beside them. None for other methods."""
        a, p = clf.arrays, clf.meta
        col_map = np.asarray(a["col_map"])
        used = np.flatnonzero(col_map >= 0)
        column = np.empty(len(used), dtype=np.int64)
        column[col_map[used]] = used  # internal id -> input column
        if clf.method == "pkb":
            indptr, internal = np.asarray(a["sv_indptr"]), np.asarray(a["sv_indices"])
        elif clf.method == "pki":  # the inverted index is the support vectors transposed
            inv = a["inv_indices"]
            T = sp.csr_matrix((np.ones(len(inv)), inv, a["inv_indptr"]), shape=(len(used), int(p["n_sv"]))).T.tocsr()
            indptr, internal = T.indptr, T.indices
        else:
            return None
        n_sv = len(indptr) - 1
        S = sp.csr_matrix((np.ones(len(internal)), column[internal], indptr), shape=(n_sv, clf.n_columns))
        S.sort_indices()
        K = len(a["bias"])
        if len(a["alpha"]) == n_sv:
            alpha = np.array(a["alpha"], dtype=np.float64).reshape(n_sv, K)
        else:  # sparse rows: zeros where a row names no output
            alpha = np.zeros((n_sv, K))
            ptr = np.asarray(a["alpha_ptr"])
            alpha[np.repeat(np.arange(n_sv), np.diff(ptr)), np.asarray(a["alpha_out"])] = a["alpha_val"]
        return cls(S, alpha, np.array(a["bias"], dtype=np.float64), degree=p["degree"], gamma=p["gamma"], coef0=p["coef0"],
                   classes=cast(Sequence[Any], clf.rule.classes), decision=clf.rule.kind, features=clf.features,
                   source=f"recovered from a {clf.method} classifier")

    def info(self) -> Dict[str, Any]:
        """A summary of the model."""
        S = self.support_vectors
        return self._info(
            kind="kernel model",
            kernel=f"({self.gamma:g} * |s ∩ x| + {self.coef0:g}) ** {self.degree}",
            support_vectors=self.n_support_vectors,
            features_in_support_vectors=int(np.unique(S.indices).size),
            average_support_vector_length=float(np.diff(S.indptr).mean()) if S.shape[0] else 0.0,
            feature_index="none" if self.features is None else ("numeric" if self.features.is_numeric else f"{len(self.features)} named features"),
        )

    def __repr__(self) -> str:
        return (
            f"KernelModel(n_sv={self.n_support_vectors}, K={self.n_outputs}, degree={self.degree}, "
            f"gamma={self.gamma:g}, coef0={self.coef0:g}, decision={self.rule.kind!r})"
        )
