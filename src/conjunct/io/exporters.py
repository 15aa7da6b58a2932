"""Exporters: conjunct models written in other tools' formats (LIBSVM)."""

from __future__ import annotations

import os

import numpy as np

from .._errors import ModelFormatError
from ..models.kernel import KernelModel
from ..models.labels import ovo_pairs
from ._atomic import atomic_file

__all__ = ["to_libsvm"]


def to_libsvm(model: KernelModel, path, *, id_offset: int = 0) -> None:
    """Write a kernel model as a LIBSVM model file (c_svc, polynomial kernel).

    Binary (``sign``) and one-vs-one models can be written; feature ids are the
    model's columns plus ``id_offset`` (LIBSVM's Python interface numbers the
    columns of a scipy matrix from 1, so pass ``id_offset=1`` to predict with it
    on the same matrices). Support vectors are grouped by class as LIBSVM
    expects; for one-vs-one models each vector must take part only in the pairs
    of one class.

    Parameters
    ----------
    model : KernelModel
        The model to write.
    path : str or os.PathLike
        The LIBSVM model file to write.
    id_offset : int
        Added to every column id.
    """
    rule = model.rule
    if rule.kind not in ("sign", "ovo"):
        raise ModelFormatError(f"LIBSVM holds binary and one-vs-one models; this model's decision rule is {rule.kind!r}")
    S = model.support_vectors
    A = model.dual_coef
    classes = list(rule.classes)
    n = len(classes)
    if rule.kind == "sign":
        labels = [classes[1], classes[0]]  # LIBSVM: f > 0 -> label[0]
        sv_class = np.where(A[:, 0] > 0, 0, 1)
        order = np.argsort(sv_class, kind="stable")
        coef = A[order, :1]
        nr_sv = np.bincount(sv_class, minlength=2)
        rho = [-model.intercept[0]]
    else:
        pairs = ovo_pairs(n)
        # A vector of class c has coefficients only in the pairs that involve c.
        sv_class = np.full(S.shape[0], -1)
        for c in range(n):
            involved = [p for p, (i, j) in enumerate(pairs) if c in (i, j)]
            others = [p for p in range(len(pairs)) if p not in involved]
            ok = np.all(A[:, others] == 0, axis=1) if others else np.ones(S.shape[0], dtype=bool)
            sv_class[(sv_class < 0) & ok & np.any(A[:, involved] != 0, axis=1)] = c
        if np.any(sv_class < 0):
            raise ModelFormatError("a support vector takes part in pairs of more than one class; not a LIBSVM one-vs-one model")
        order = np.argsort(sv_class, kind="stable")
        labels = classes
        coef = np.zeros((S.shape[0], n - 1))
        for p, (i, j) in enumerate(pairs):
            in_i, in_j = sv_class == i, sv_class == j
            coef[in_i, j - 1] = A[in_i, p]
            coef[in_j, i] = A[in_j, p]
        coef = coef[order]
        nr_sv = np.bincount(sv_class, minlength=n)
        rho = list(-model.intercept)
    fmt = lambda v: repr(float(v))
    path = os.fspath(path)
    with atomic_file(path, text=True) as f:
        f.write("svm_type c_svc\nkernel_type polynomial\n")
        f.write(f"degree {model.degree}\ngamma {fmt(model.gamma)}\ncoef0 {fmt(model.coef0)}\n")
        f.write(f"nr_class {len(labels)}\ntotal_sv {S.shape[0]}\n")
        f.write("rho " + " ".join(fmt(r) for r in rho) + "\n")
        f.write("label " + " ".join(str(v) for v in labels) + "\n")
        f.write("nr_sv " + " ".join(str(int(v)) for v in nr_sv) + "\nSV\n")
        for row, i in enumerate(order):
            feats = " ".join(f"{int(c) + id_offset}:1" for c in S.indices[S.indptr[i]:S.indptr[i + 1]])
            f.write(" ".join(fmt(v) for v in coef[row]) + " " + feats + "\n")
