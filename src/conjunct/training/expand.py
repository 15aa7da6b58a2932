"""Kernel expansion: the explicit conjunction weights of a kernel model."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import _core
from ..budget import MemoryBudgetError, format_bytes, memory_budget
from ..models.kernel import KernelModel
from ..models.linear import ConjunctiveLinearModel

__all__ = ["expand"]


def expand(model: KernelModel) -> ConjunctiveLinearModel:
    """The explicit weights of a kernel model (kernel expansion, Yoshinaga & Kitsuregawa 2010 Eq. 1).

    Every conjunction t (1 <= |t| <= d) of features of a support vector gets
    ``c_d(|t|) * sum of the alpha rows of the support vectors containing t``;
    the intercept is ``b + c_d(0) * sum(alpha)`` (the constant term counted
    once). The result computes the same margins as ``model`` on every input.
    Its size grows like the number of support vectors times ``|s| ** d``.

    Parameters
    ----------
    model : KernelModel
        The kernel model to expand.

    Returns
    -------
    ConjunctiveLinearModel
    """
    S = model.support_vectors
    K = model.n_outputs
    if S.shape[0] == 0:
        C = sp.csr_matrix((0, S.shape[1]))
        return ConjunctiveLinearModel(C, np.zeros((0, K)), model.intercept, classes=model.classes,
                                      decision=model.rule.kind, features=model.features, source=model.source)
    budget = memory_budget()
    try:
        indptr, indices, weights = _core.expand_kernel_model(
            gamma=model.gamma, coef0=model.coef0, degree=model.degree, sv_indptr=S.indptr.astype(np.int64),
            sv_indices=S.indices.astype(np.int32), alpha=np.ascontiguousarray(model.dual_coef), max_bytes=budget)
    except _core.LimitExceededError as e:
        raise MemoryBudgetError(
            f"the degree-{model.degree} kernel expansion of {S.shape[0]:,} support vectors {str(e).split(') ', 1)[-1]} "
            f"would pass the memory budget of {format_bytes(budget)}; keep the kernel model (pki, split) or raise the "
            f"budget (CONJUNCT_MEMORY_BUDGET, conjunct.budget.set_memory_budget, conjunct --memory-budget)") from None
    c0 = model.kernel.subset_weights()[0]
    intercept = model.intercept + c0 * model.dual_coef.sum(axis=0)
    C = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(len(indptr) - 1, S.shape[1]))
    return ConjunctiveLinearModel(C, weights, intercept, classes=model.classes, decision=model.rule.kind,
                                  features=model.features, source=f"expanded {model.source or 'kernel model'}")
