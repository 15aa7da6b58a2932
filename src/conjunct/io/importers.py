"""Importers: polynomial-kernel models from LIBSVM, SVMlight, TinySVM, opal and scikit-learn.

Each importer produces a :class:`~conjunct.models.kernel.KernelModel` whose margins equal
the source tool's decision values and whose decisions equal its predictions:

============  ====================================  ===========================
source        source decision value                 conjunct
============  ====================================  ===========================
LIBSVM        sum coef*K - rho; pair (i,j) votes    ``ovo`` (K = n(n-1)/2) or
              i when > 0 (binary: > 0 -> label[0])  ``sign`` with classes
                                                    [label[1], label[0]]
SVMlight      sum alpha*y*K - b, > 0 -> +1          ``sign``, classes [-1, +1]
TinySVM       sum alpha*y*K - b, > 0 -> +1          ``sign``, classes [-1, +1]
opal          sum alpha*K - b (b = 0), binary or    ``sign`` [-1, +1] or
              argmax over its labels                ``argmax`` over its labels
scikit-learn  SVC.decision_function / predict       ``sign`` or ``ovo``
============  ====================================  ===========================

Kernels: LIBSVM/scikit-learn ``(gamma*x.z + coef0)^d``; SVMlight/TinySVM
``(s*x.z + r)^d``; opal ``(x.z + 1)^d``. Linear kernels import as ``d = 1``.
Support vectors must be binary (0/1 values) unless ``binarize=True``.
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np
import scipy.sparse as sp

from .._errors import ModelFormatError
from ..features.index import FeatureIndex, rows_to_csr
from ..models.kernel import KernelModel
from ..models.labels import ovo_pairs, parse_label
from ..models.linear import ConjunctiveLinearModel
from ._model_text import TextLines, check_poly, feature_ids, to_float, to_int
from .persistence import load

__all__ = [
    "import_model",
    "sniff_model_format",
    "from_libsvm",
    "from_svmlight",
    "from_tinysvm",
    "from_opal",
    "from_sklearn",
    "MODEL_FORMATS",
]

MODEL_FORMATS = ("libsvm", "svmlight", "tinysvm", "opal", "linear", "conjunct")


# -- LIBSVM ----------------------------------------------------------------------------
def from_libsvm(path, *, binarize: bool = False) -> KernelModel:
    """Import a LIBSVM model file (polynomial or linear kernel; binary or one-vs-one).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    binarize : bool
        Treat any non-zero feature value in the file as 1 instead of raising.
    """
    lines = TextLines(path)
    header = {}
    while True:
        line = lines.next("the 'SV' line that ends the header")
        if not line.strip():
            continue
        key, *values = line.split()
        if key == "SV":
            break
        header[key] = (values, lines.pos)
    def get(key, required=True):
        if key not in header:
            if required:
                raise lines.error(f"the header has no {key!r} line", 1)
            return None
        return header[key]
    (svm_type,), _ = get("svm_type")
    if svm_type not in ("c_svc", "nu_svc"):
        raise lines.error(f"svm_type {svm_type} is not supported (classification models only: c_svc, nu_svc)", 1)
    (kernel,), kline = get("kernel_type")
    check_poly(kernel, lines)
    if kernel == "linear":
        degree, gamma, coef0 = 1, 1.0, 0.0
    else:
        degree = to_int(get("degree")[0][0], "degree", lines, get("degree")[1])
        gamma = to_float(get("gamma")[0][0], "gamma", lines, get("gamma")[1])
        coef0 = to_float(get("coef0")[0][0], "coef0", lines, get("coef0")[1])
    n_class = to_int(get("nr_class")[0][0], "nr_class", lines, get("nr_class")[1])
    total_sv = to_int(get("total_sv")[0][0], "total_sv", lines, get("total_sv")[1])
    rho_values, rho_line = get("rho")
    rho = [to_float(v, "rho", lines, rho_line) for v in rho_values]
    labels = [parse_label(v) for v in get("label")[0]]
    nr_sv_values, nr_line = get("nr_sv")
    nr_sv = [to_int(v, "nr_sv", lines, nr_line) for v in nr_sv_values]
    n_pairs = n_class * (n_class - 1) // 2
    if n_class < 2 or len(labels) != n_class or len(nr_sv) != n_class or len(rho) != n_pairs:
        raise lines.error(
            f"inconsistent header: nr_class {n_class}, {len(labels)} labels, {len(nr_sv)} nr_sv values, {len(rho)} rho values"
        )
    if sum(nr_sv) != total_sv:
        raise lines.error(f"nr_sv adds up to {sum(nr_sv)} but total_sv is {total_sv}")
    coefs, rows = [], []
    for lineno, line in lines.rest():
        if not line.strip():
            if any(ln.strip() for ln in lines.lines[lineno:]):
                raise lines.error("blank line among the support vectors (LIBSVM would misread it)", lineno)
            break
        tokens = line.split()
        if len(tokens) < n_class - 1:
            raise lines.error(f"support vector line has {len(tokens)} fields; expected {n_class - 1} coefficients first", lineno)
        coefs.append([to_float(t, "coefficient", lines, lineno) for t in tokens[: n_class - 1]])
        rows.append(feature_ids(tokens[n_class - 1:], lines, lineno, binarize))
    if len(rows) != total_sv:
        raise lines.error(f"found {len(rows)} support vectors but the header says total_sv {total_sv}", len(lines.lines))
    S = rows_to_csr(rows)
    sv_coef = np.asarray(coefs, dtype=np.float64).reshape(total_sv, n_class - 1)
    if n_class == 2:
        # f > 0 -> label[0]; conjunct's sign rule: margin > 0 -> classes[1].
        return KernelModel(S, sv_coef[:, 0], -rho[0], degree=degree, gamma=gamma, coef0=coef0,
                           classes=[labels[1], labels[0]], decision="sign", source=f"libsvm:{lines.name}")
    sv_class = np.repeat(np.arange(n_class), nr_sv)
    alpha = _ovo_alpha(sv_coef, sv_class, n_class)
    return KernelModel(S, alpha, -np.asarray(rho), degree=degree, gamma=gamma, coef0=coef0,
                       classes=labels, decision="ovo", source=f"libsvm:{lines.name}")


def _ovo_alpha(sv_coef: np.ndarray, sv_class: np.ndarray, n_class: int) -> np.ndarray:
    """LIBSVM's (n_sv, n_class - 1) coefficients as (n_sv, n_pairs) rows.

    In pair (i, j), support vectors of class i use coefficient column j - 1 and
    those of class j use column i; the others do not take part (0).
    """
    pairs = ovo_pairs(n_class)
    alpha = np.zeros((sv_coef.shape[0], len(pairs)))
    for p, (i, j) in enumerate(pairs):
        in_i, in_j = sv_class == i, sv_class == j
        alpha[in_i, p] = sv_coef[in_i, j - 1]
        alpha[in_j, p] = sv_coef[in_j, i]
    return alpha


# -- SVMlight and TinySVM -----------------------------------------------------------------
def _svmlight_like(path, tool: str, binarize: bool) -> KernelModel:
    lines = TextLines(path)
    first = lines.next("the version line")
    expected = "SVM-light Version" if tool == "svmlight" else "TinySVM Version"
    if not first.startswith(expected):
        raise lines.error(f"not a {tool} model file (first line {first[:40]!r}, expected {expected!r})")

    def value(what: str) -> str:
        line = lines.next(what)
        head = line.split("#", 1)[0].split()
        if not head:
            raise lines.error(f"expected {what}")
        return head[0]

    kernel_type = to_int(value("the kernel type"), "kernel type", lines)
    if kernel_type not in (0, 1):
        raise lines.error(f"kernel type {kernel_type} is not supported: conjunct imports polynomial (1) and linear (0) kernels only")
    degree = to_int(value("kernel parameter -d"), "-d", lines)
    value("kernel parameter -g")
    s = to_float(value("kernel parameter -s"), "-s", lines)
    r = to_float(value("kernel parameter -r"), "-r", lines)
    lines.next("kernel parameter -u")
    if tool == "svmlight":
        value("the highest feature index")
        value("the number of training documents")
    sv_count = to_int(value("the number of support vectors plus 1"), "number of support vectors", lines) - 1
    b = to_float(value("the threshold b"), "threshold b", lines)
    if kernel_type == 0:
        degree, s, r = 1, 1.0, 0.0
    alphas, rows = [], []
    for lineno, line in lines.rest():
        body = line.split("#", 1)[0].split() if tool == "svmlight" else line.split()
        if not body:
            continue
        if ":" in body[0]:
            raise lines.error("support vector line must start with alpha*y", lineno)
        alphas.append(to_float(body[0], "alpha*y", lines, lineno))
        rows.append(feature_ids(body[1:], lines, lineno, binarize))
    if len(rows) != sv_count:
        raise lines.error(f"found {len(rows)} support vectors but the header says {sv_count}", len(lines.lines))
    return KernelModel(rows_to_csr(rows), alphas, -b, degree=degree, gamma=s, coef0=r, classes=[-1, 1],
                       decision="sign", source=f"{tool}:{lines.name}")


def from_svmlight(path, *, binarize: bool = False) -> KernelModel:
    """Import an SVMlight model file (polynomial or linear kernel).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    binarize : bool
        Treat any non-zero feature value in the file as 1 instead of raising.
    """
    return _svmlight_like(path, "svmlight", binarize)


def from_tinysvm(path, *, binarize: bool = False) -> KernelModel:
    """Import a TinySVM model file (polynomial or linear kernel).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    binarize : bool
        Treat any non-zero feature value in the file as 1 instead of raising.
    """
    return _svmlight_like(path, "tinysvm", binarize)


# -- opal ---------------------------------------------------------------------------------------
def from_opal(path, *, binarize: bool = False) -> KernelModel:
    """Import an opal kernel model (binary or multi-class; numeric or string features).

    opal models carry no bias (their threshold line is zeros) and no marker of
    averaging: the weights in the file are what opal classifies with.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    binarize : bool
        Treat any non-zero feature value in the file as 1 instead of raising.
    """
    lines = TextLines(path)
    first = lines.next("the opal header")
    if not first.startswith("opal"):
        raise lines.error("not an opal model file (the first line must start with 'opal')")
    labels = None
    degree, s, r = None, 1.0, 1.0
    thresholds = None
    while thresholds is None:
        line = lines.next("the '# threshold b' line")
        head, _, comment = line.partition("#")
        comment = comment.strip()
        fields = head.split()
        if comment.startswith("labels:"):
            labels = [parse_label(t) for t in comment[len("labels:"):].split()]
            if not fields or to_int(fields[0], "number of labels", lines) != len(labels):
                raise lines.error("the number of labels does not match the label list")
        elif comment.startswith("kernel type"):
            if to_int(fields[0], "kernel type", lines) != 1:
                raise lines.error("only opal kernel models (kernel type 1) can be imported; linear models are binary files")
        elif comment.startswith("kernel parameter -d"):
            degree = to_int(fields[0], "-d", lines)
        elif comment.startswith("kernel parameter -s"):
            s = to_float(fields[0], "-s", lines)
        elif comment.startswith("kernel parameter -r"):
            r = to_float(fields[0], "-r", lines)
        elif comment.startswith("threshold b"):
            thresholds = [to_float(t, "threshold", lines) for t in fields]
    if degree is None:
        raise lines.error("the header has no '# kernel parameter -d' line")
    n_out = len(labels) if labels is not None else 1
    if len(thresholds) != n_out:
        raise lines.error(f"the threshold line has {len(thresholds)} values; expected {n_out}")
    alphas, rows = [], []
    for lineno, line in lines.rest():
        if not line.strip() or line.startswith("#"):
            continue
        tokens = line.split()
        if len(tokens) < n_out:
            raise lines.error(f"support vector line has {len(tokens)} fields; expected {n_out} weights first", lineno)
        alphas.append([to_float(t, "weight", lines, lineno) for t in tokens[:n_out]])
        rows.append(feature_ids(tokens[n_out:], lines, lineno, binarize, allow_strings=True))
    if not rows:
        raise lines.error("the model has no support vectors")
    features = None
    if any(isinstance(f, str) for row in rows for f in row):
        features = FeatureIndex(names=[])
        S = features.transform([[str(f) for f in row] for row in rows], add=True)
        features.counts[:] = 0
    else:
        S = rows_to_csr(rows)
    alpha = np.asarray(alphas, dtype=np.float64)
    bias = -np.asarray(thresholds, dtype=np.float64)
    if labels is None:
        return KernelModel(S, alpha[:, 0], bias[0], degree=degree, gamma=s, coef0=r, classes=[-1, 1], decision="sign",
                           features=features, source=f"opal:{lines.name}")
    return KernelModel(S, alpha, bias, degree=degree, gamma=s, coef0=r, classes=labels, decision="argmax",
                       features=features, source=f"opal:{lines.name}")


# -- scikit-learn ----------------------------------------------------------------------------------
def from_sklearn(estimator, *, binarize: bool = False, features: Optional[FeatureIndex] = None) -> KernelModel:
    """Import a fitted scikit-learn ``SVC`` / ``NuSVC`` with a polynomial (or linear) kernel.

    The support vectors (dense or sparse) must be binary. ``decision_function``
    equals the estimator's (``decision_function_shape="ovo"`` layout for more than
    two classes) and ``predict`` equals ``estimator.predict``.

    Parameters
    ----------
    estimator : sklearn.svm.SVC or NuSVC
        A fitted estimator with ``kernel="poly"`` (or ``"linear"``).
    binarize : bool
        Treat any non-zero support-vector value as 1 instead of raising.
    features : FeatureIndex, optional
        The index that made the estimator's input columns, so that the model
        takes string features and ranks them by training frequency.
    """
    for attr in ("support_vectors_", "dual_coef_", "intercept_", "classes_", "n_support_"):
        if not hasattr(estimator, attr):
            raise ModelFormatError(f"{type(estimator).__name__} is not a fitted scikit-learn SVC/NuSVC (no {attr})", "<sklearn>")
    kernel = estimator.kernel
    if kernel == "poly":
        degree, gamma, coef0 = int(estimator.degree), float(estimator._gamma), float(estimator.coef0)
    elif kernel == "linear":
        degree, gamma, coef0 = 1, 1.0, 0.0
    else:
        raise ModelFormatError(f"kernel {kernel!r} is not supported: conjunct imports polynomial (and linear) kernels only", "<sklearn>")
    S = estimator.support_vectors_
    S = sp.csr_matrix(S) if not sp.issparse(S) else S.tocsr()
    from ..features.matrices import as_binary_csr

    S = as_binary_csr(S, binarize=binarize)
    classes = list(estimator.classes_)
    dual = np.asarray(estimator.dual_coef_.toarray() if sp.issparse(estimator.dual_coef_) else estimator.dual_coef_, dtype=np.float64)
    intercept = np.asarray(estimator.intercept_, dtype=np.float64)
    source = f"sklearn:{type(estimator).__name__}"
    if len(classes) == 2:
        return KernelModel(S, dual[0], intercept[0], degree=degree, gamma=gamma, coef0=coef0, classes=classes,
                           decision="sign", features=features, source=source)
    sv_class = np.repeat(np.arange(len(classes)), np.asarray(estimator.n_support_))
    alpha = _ovo_alpha(dual.T, sv_class, len(classes))
    return KernelModel(S, alpha, intercept, degree=degree, gamma=gamma, coef0=coef0, classes=classes,
                       decision="ovo", features=features, source=source)


# -- dispatch -------------------------------------------------------------------------------------------
def sniff_model_format(path) -> str:
    """The format of a model file: 'conjunct', 'libsvm', 'svmlight', 'tinysvm' or 'opal'.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            head = f.read(4096)
    except FileNotFoundError:
        raise ModelFormatError("no such file", name) from None
    if not head:
        raise ModelFormatError("empty model file", name)
    if head.startswith(b"CONJUNCT"):
        return "conjunct"
    first = head.split(b"\n", 1)[0].strip()
    if first.startswith(b"svm_type"):
        return "libsvm"
    if first.startswith(b"SVM-light Version"):
        return "svmlight"
    if first.startswith(b"TinySVM Version"):
        return "tinysvm"
    if first.startswith(b"opal"):
        return "opal"
    if first.startswith(b"# conjunct conjunctive linear model"):
        return "linear"
    raise ModelFormatError(
        f"unknown model format (first line {first[:40]!r}); expected a conjunct, LIBSVM, SVMlight, TinySVM, opal or "
        "conjunctive linear (text) model",
        name,
    )


def import_model(path, format: str = "auto", *, binarize: bool = False, mmap: bool = False):
    """Load a model file of any supported format.

    This is the way to read a model trained elsewhere: LIBSVM, SVMlight,
    TinySVM, opal or conjunctive linear text models become a
    :class:`~conjunct.models.kernel.KernelModel` or
    :class:`~conjunct.models.linear.ConjunctiveLinearModel` with the source tool's
    decisions. A conjunct model file is read by :func:`conjunct.load`, so one
    call loads whatever a user has (``conjunct convert`` and ``conjunct
    predict`` use it); ``conjunct.load`` itself reads conjunct files only.

    Parameters
    ----------
    path : str or PathLike
        The model file.
    format : {"auto", "libsvm", "svmlight", "tinysvm", "opal", "linear", "conjunct"}
        ``"auto"`` detects it from the file's first bytes.
    binarize : bool
        Treat non-zero support-vector values as 1 instead of failing.
    mmap : bool
        For a conjunct file: memory-map it (see :func:`conjunct.load`).
    """
    if format == "auto":
        format = sniff_model_format(path)
    if format == "conjunct":
        return load(path, mmap=mmap)
    if format == "linear":
        return ConjunctiveLinearModel.from_text(path)
    readers = {"libsvm": from_libsvm, "svmlight": from_svmlight, "tinysvm": from_tinysvm, "opal": from_opal}
    if format not in readers:
        raise ModelFormatError(f"unknown model format {format!r}; expected one of {', '.join(MODEL_FORMATS)}", os.fspath(path))
    return readers[format](path, binarize=binarize)
