"""Checks of a model file's contents, made before any object is built from them.

A model file is data from strangers: its digest only detects accidents, since
anyone can edit a file and recompute it. So every section of every kind is
checked here -- dtypes, shapes, ranges, monotone pointers, trie structure,
cross-section consistency, scalar parameters -- and the C++ core only ever
sees arrays that satisfy the invariants it relies on. The file layer calls
:func:`validate` once per object (nested objects of a pipeline included)
before ``from_container``.

The checks are vectorised and never copy a section: memory-mapped sections
stay views of the map. Element-wise checks of large arrays run in blocks, so
their temporary memory stays small.

Classifier methods are described by one :class:`MethodSpec` each (its scalar
parameters, its sections, and a function for what ties them together), in
:data:`METHOD_SPECS`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from ._errors import ModelFormatError
from .labels import labels_array

__all__ = ["validate", "MethodSpec", "METHOD_SPECS", "MAX_DEGREE", "MAX_COLUMNS"]

#: Largest kernel degree / conjunction size a file may state (tries store depths in a byte).
MAX_DEGREE = 255
#: The compiled classifiers' kernels (the core computes powers up to 63).
MAX_CLASSIFIER_DEGREE = 63
#: Feature ids are 32-bit: at most this many input columns.
MAX_COLUMNS = np.iinfo(np.int32).max
#: Dense conjunction tables cover conjunctions of at most this many features.
MAX_DENSE_DEGREE = 4
#: Bytes per input column that a model's compiled classifiers keep (column map
#: 4, frequency counts 8): checked against the memory budget for models whose
#: width is a number in the header rather than the size of a section.
BYTES_PER_COLUMN = 12
# Margins beyond this are taken as overflow (the kernel or the weights are garbage).
_MAX_LOG_MAGNITUDE = math.log(1e300)
_BLOCK = 1 << 20

Arrays = Mapping[str, np.ndarray]


# -- reporting --------------------------------------------------------------------------------------------------
class _Where:
    """Names the file and the object (a prefix of section names) errors are about."""

    def __init__(self, name: str, prefix: str = ""):
        self.name = name
        self.prefix = prefix

    def sub(self, prefix: str) -> "_Where":
        return _Where(self.name, f"{self.prefix}{prefix}.")

    def fail(self, problem: str):
        raise ModelFormatError(problem, self.name)

    def section_fail(self, key: str, problem: str):
        raise ModelFormatError(f"section {self.prefix + key!r}: {problem}", self.name)

    def meta_fail(self, path: str, problem: str):
        raise ModelFormatError(f"header field {path!r}: {problem}", self.name)


# -- scalar parameters ------------------------------------------------------------------------------------------
_MISSING = object()


class _Meta:
    """Typed access to one JSON object of the header; ``path`` names it in errors."""

    def __init__(self, value: Any, path: str, where: _Where):
        if not isinstance(value, dict):
            where.meta_fail(path, f"expected an object, got {_describe(value)}")
        self.d = value
        self.path = path
        self.where = where

    def _p(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def raw(self, key: str, optional: bool = False):
        v = self.d.get(key, _MISSING)
        if v is _MISSING and not optional:
            self.where.meta_fail(self._p(key), "missing")
        return v

    def int(self, key: str, lo: int, hi: int, *, optional: bool = False, none: bool = False) -> Optional[int]:
        v = self.raw(key, optional)
        if v is _MISSING or (none and v is None):
            return None
        if not _is_int(v) or not lo <= v <= hi:
            self.where.meta_fail(self._p(key), f"expected an integer in [{lo}, {hi}], got {_describe(v)}")
        return int(v)

    def float(self, key: str, lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
              optional: bool = False) -> Optional[float]:
        v = self.raw(key, optional)
        if v is _MISSING:
            return None
        ok = _is_number(v) and math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi
        if not ok:
            bound = f"{'>' if lo_open else '>='} {lo:g}" if lo > -math.inf else "finite"
            self.where.meta_fail(self._p(key), f"expected a number ({bound}), got {_describe(v)}")
        return float(v)

    def str(self, key: str, choices: Optional[Sequence[str]] = None, *, optional: bool = False,
            none: bool = False) -> Optional[str]:
        v = self.raw(key, optional)
        if v is _MISSING or (none and v is None):
            return None
        if not isinstance(v, str) or (choices is not None and v not in choices):
            expected = f"one of {', '.join(map(repr, choices))}" if choices is not None else "a string"
            self.where.meta_fail(self._p(key), f"expected {expected}, got {_describe(v)}")
        return v

    def bool(self, key: str, *, optional: bool = False) -> Optional[bool]:
        v = self.raw(key, optional)
        if v is _MISSING:
            return None
        if not isinstance(v, bool):
            self.where.meta_fail(self._p(key), f"expected true or false, got {_describe(v)}")
        return v

    def obj(self, key: str, *, optional: bool = False) -> Optional["_Meta"]:
        v = self.raw(key, optional)
        if v is _MISSING:
            return None
        return _Meta(v, self._p(key), self.where)

    def list(self, key: str, *, optional: bool = False, none: bool = False) -> Optional[list]:
        v = self.raw(key, optional)
        if v is _MISSING or (none and v is None):
            return None
        if not isinstance(v, list):
            self.where.meta_fail(self._p(key), f"expected a list, got {_describe(v)}")
        return v


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _describe(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# -- sections ------------------------------------------------------------------------------------------------------
def _section(arrays: Arrays, where: _Where, key: str, dtype: str, shape: Tuple[Optional[int], ...]) -> np.ndarray:
    """The section ``key`` with exactly ``dtype`` and ``shape`` (None: any length)."""
    a = arrays.get(where.prefix + key)
    if a is None:
        where.fail(f"missing section {where.prefix + key!r}")
    if a.dtype.str != dtype:
        where.section_fail(key, f"dtype {a.dtype.str}, expected {dtype}")
    if a.ndim != len(shape) or any(want is not None and got != want for got, want in zip(a.shape, shape)):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        where.section_fail(key, f"shape {tuple(a.shape)}, expected {want}")
    return a


def _blocks(n: int, overlap: int = 0):
    """[start, end) blocks covering n items; with ``overlap`` = 1 and n = size - 1,
    a[s + 1:e] against a[s:e - 1] covers every pair of neighbours of an array of ``size``."""
    for start in range(0, n, _BLOCK):
        yield start, min(n + overlap, start + _BLOCK + overlap)


def _flat(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1)  # a view: sections are C-contiguous


def _check_finite(a: np.ndarray, where: _Where, key: str) -> None:
    if a.size == 0:
        return
    flat = _flat(a)
    with np.errstate(all="ignore"):
        total = np.add.reduce(flat)  # NaN and infinities propagate; only then look closer
    if math.isfinite(total):
        return
    for s, e in _blocks(flat.size):
        bad = np.flatnonzero(~np.isfinite(flat[s:e]))
        if bad.size:
            where.section_fail(key, f"non-finite value {flat[s + bad[0]]!r} at index {s + int(bad[0])}")


def _check_range(a: np.ndarray, lo: int, hi: int, where: _Where, key: str, first_index: int = 0) -> None:
    """lo <= a < hi everywhere (``a`` may be a slice starting at ``first_index`` of the section)."""
    if a.size == 0:
        return
    amin, amax = int(a.min()), int(a.max())
    if amin < lo or amax >= hi:
        bad = amin if amin < lo else amax
        index = first_index + int(np.argmax(_flat(a) == bad))
        where.section_fail(key, f"value {bad} at index {index} is outside [{lo}, {hi})")


def _check_pointers(ptr: np.ndarray, n_items: int, where: _Where, key: str, first: int = 0) -> None:
    """CSR-style offsets: first ``first`` (0), non-decreasing, last = n_items."""
    if ptr.size == 0:
        where.section_fail(key, "empty (offsets need at least one entry)")
    if ptr[0] != first:
        where.section_fail(key, f"first offset is {int(ptr[0])}, expected {first}")
    if ptr[-1] != n_items:
        where.section_fail(key, f"last offset is {int(ptr[-1])}, expected {n_items} (the number of entries)")
    for s, e in _blocks(ptr.size - 1, 1):
        down = np.flatnonzero(ptr[s + 1:e] < ptr[s:e - 1])
        if down.size:
            i = s + int(down[0])
            where.section_fail(key, f"offsets decrease at index {i + 1} ({int(ptr[i])} then {int(ptr[i + 1])})")


def _check_strings(blob: np.ndarray, offsets: np.ndarray, where: _Where, blob_key: str, offsets_key: str,
                   distinct: bool = False) -> None:
    """Each string ``blob[offsets[i]:offsets[i + 1]]`` is UTF-8 (surrogates
    allowed, as written), and with ``distinct`` no string repeats. The
    pointers are checked already. One decode of the whole blob and a check
    that no offset cuts a character: then every string decodes."""
    data = blob.tobytes()
    try:
        data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as e:
        i = int(np.searchsorted(offsets, e.start, side="right")) - 1
        where.section_fail(blob_key, f"string {i} is not UTF-8: byte 0x{data[e.start]:02x} at byte {e.start} "
                                     f"({e.reason})")
    starts = offsets[:-1]
    inside = starts[starts < blob.size]
    cut = np.flatnonzero((blob[inside] & 0xC0) == 0x80)
    if cut.size:
        i = int(np.flatnonzero(starts < blob.size)[cut[0]])
        where.section_fail(offsets_key, f"offset {int(starts[i])} at index {i} cuts a UTF-8 character")
    if distinct and offsets.size > 2:
        bounds = offsets.tolist()
        names = [data[a:b] for a, b in zip(bounds, bounds[1:])]
        if len(set(names)) == len(names):
            return
        seen: Dict[bytes, int] = {}
        for i, name in enumerate(names):
            first = seen.setdefault(name, i)
            if first != i:
                text = name.decode("utf-8", "surrogatepass")
                where.section_fail(blob_key, f"feature {_describe(text)} appears twice (strings {first} and {i})")


def _check_rows_ascending(ptr: np.ndarray, ids: np.ndarray, where: _Where, key: str) -> None:
    """Strictly ascending ids within every row ids[ptr[r]:ptr[r + 1]] (``ptr`` already checked)."""
    for s, e in _blocks(ids.size - 1, 1) if ids.size > 1 else ():
        up = ids[s + 1:e] > ids[s:e - 1]  # pair (j - 1, j) for j in [s + 1, e)
        if up.all():
            continue
        i0, i1 = np.searchsorted(ptr, [s + 1, e])
        up[ptr[i0:i1] - (s + 1)] = True  # a row may start lower than the previous one ended
        if not up.all():
            j = s + 1 + int(np.argmin(up))
            where.section_fail(key, f"ids within a row must be strictly ascending (index {j - 1}: {int(ids[j - 1])}, "
                                    f"then {int(ids[j])})")


def _csr(arrays: Arrays, where: _Where, ptr_key: str, ids_key: str, n_rows: Optional[int], n_cols: int,
         *, ascending: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    ptr = _section(arrays, where, ptr_key, "<i8", (None if n_rows is None else n_rows + 1,))
    ids = _section(arrays, where, ids_key, "<i4", (None,))
    _check_pointers(ptr, ids.size, where, ptr_key)
    _check_range(ids, 0, n_cols, where, ids_key)
    if ascending:
        _check_rows_ascending(ptr, ids, where, ids_key)
    return ptr, ids


def _max_row_length(ptr: np.ndarray) -> int:
    if ptr.size < 2:
        return 0
    best = 0
    for s, e in _blocks(ptr.size - 1, 1):
        best = max(best, int(np.max(ptr[s + 1:e] - ptr[s:e - 1])))
    return best


def _abs_sum(a: np.ndarray) -> float:
    flat = _flat(a)
    with np.errstate(over="ignore"):  # an overflow to inf is what the caller looks for
        return float(sum(np.abs(flat[s:e]).sum() for s, e in _blocks(flat.size)))


# -- pieces shared by several kinds -----------------------------------------------------------------------------------
def _rule(meta: _Meta) -> Tuple[str, int, int]:
    """(rule kind, number of classes, outputs K) of a decision rule entry."""
    rule = meta.obj("rule")
    kind = rule.str("kind", ("sign", "argmax", "ovo"))
    classes = rule.list("classes")
    for i, c in enumerate(classes):
        ok = isinstance(c, str) or (_is_int(c) and -(1 << 63) <= c < (1 << 63)) or (
            isinstance(c, float) and math.isfinite(c))
        if not ok:
            meta.where.meta_fail(f"{rule.path}.classes[{i}]", f"expected a string or a number, got {_describe(c)}")
    n = len(classes)
    if (kind == "sign" and n != 2) or n < 2:
        meta.where.meta_fail(f"{rule.path}.classes", f"the {kind} rule needs {'exactly' if kind == 'sign' else 'at least'} "
                                                     f"2 classes, got {n}")
    return kind, n, {"sign": 1, "argmax": n, "ovo": n * (n - 1) // 2}[kind]


def _feature_index(meta: _Meta, arrays: Arrays, where: _Where) -> Tuple[bool, int]:
    """(named, number of features) of a feature index."""
    numeric = meta.bool("numeric")
    n = meta.int("n_features", 0, MAX_COLUMNS)
    counts = _section(arrays, where, "counts", "<i8", (n,))
    if counts.size and int(counts.min()) < 0:
        where.section_fail("counts", f"negative count {int(counts.min())}")
    if not numeric:
        blob = _section(arrays, where, "names_blob", "|u1", (None,))
        offsets = _section(arrays, where, "names_offsets", "<i8", (n + 1,))
        _check_pointers(offsets, blob.size, where, "names_offsets")
        _check_strings(blob, offsets, where, "names_blob", "names_offsets", distinct=True)
    keys = meta.obj("keys", optional=True)
    if keys is not None:
        if numeric:
            meta.where.meta_fail(keys.path, "a numeric feature index has no feature keys")
        _feature_keys(keys, arrays, where.sub("keys"), n)
    return not numeric, n


#: Parts per feature template (feature_spec.MAX_PARTS, the C++ FeatureSpec::kMaxParts).
_MAX_PARTS = 3
_MAX_TEMPLATES = 1 << 14


def _feature_keys(meta: _Meta, arrays: Arrays, where: _Where, n: int) -> None:
    """A feature index's keys: the template spec (names, parts within the
    attributes and positions), every attribute's vocabulary, and each
    feature's template and codes within them. The C++ tables check the rest
    (a value or a key given twice) when they are built."""
    names = {}
    for field in ("attributes", "positions"):
        items = meta.list(field)
        for i, v in enumerate(items):
            if not isinstance(v, str):
                meta.where.meta_fail(f"{meta.path}.{field}[{i}]", f"expected a string, got {_describe(v)}")
        names[field] = items
    n_attr, n_pos = len(names["attributes"]), len(names["positions"])
    templates = meta.list("templates")
    if len(templates) > _MAX_TEMPLATES:
        meta.where.meta_fail(f"{meta.path}.templates", f"{len(templates)} templates, at most {_MAX_TEMPLATES}")
    attr_of = []  # per template, its parts' attributes (-1: a flag)
    for t, tp in enumerate(templates):
        path = f"{meta.path}.templates[{t}]"
        ok = (isinstance(tp, list) and len(tp) == 3 and isinstance(tp[0], str) and tp[0] and isinstance(tp[1], str)
              and isinstance(tp[2], list) and 1 <= len(tp[2]) <= _MAX_PARTS)
        if ok:
            for part in tp[2]:
                ok = ok and (isinstance(part, list) and len(part) == 3 and _is_int(part[0]) and -1 <= part[0] < n_attr
                             and _is_int(part[1]) and 0 <= part[1] < n_pos and (part[2] is None or isinstance(part[2], str)))
        if not ok:
            meta.where.meta_fail(path, f"expected [name, group, 1 to {_MAX_PARTS} parts [attribute (-1: flag) < "
                                       f"{n_attr}, position < {n_pos}, fallback or null]], got {_describe(tp)}")
        attr_of.append([part[0] for part in tp[2]])
    blob = _section(arrays, where, "values_blob", "|u1", (None,))
    offsets = _section(arrays, where, "values_offsets", "<i8", (None,))
    _check_pointers(offsets, blob.size, where, "values_offsets")
    vocab_ptr = _section(arrays, where, "vocab_ptr", "<i8", (n_attr + 1,))
    _check_pointers(vocab_ptr, offsets.size - 1, where, "vocab_ptr")
    sizes = np.diff(vocab_ptr)
    raw = blob.tobytes()
    bounds = offsets.tolist()
    for a in range(n_attr):
        values = [raw[bounds[k]:bounds[k + 1]] for k in range(int(vocab_ptr[a]), int(vocab_ptr[a + 1]))]
        if len(set(values)) != len(values):
            seen = set()
            twice = next(v for v in values if v in seen or seen.add(v))
            where.section_fail("values_blob", f"attribute {names['attributes'][a]!r} holds the value "
                                              f"{twice.decode('utf-8', 'replace')!r} twice")
    template = _section(arrays, where, "template", "<i4", (n,))
    _check_range(template, 0, len(templates), where, "template")
    codes = _section(arrays, where, "codes", "<i4", (n, _MAX_PARTS))
    # Per part, the largest code its attribute allows (a flag's code is 0, -1 past a template's parts).
    limit = np.full((max(len(templates), 1), _MAX_PARTS), -1, dtype=np.int64)
    low = np.full((max(len(templates), 1), _MAX_PARTS), -1, dtype=np.int64)
    for t, attrs in enumerate(attr_of):
        for p, a in enumerate(attrs):
            limit[t, p] = 0 if a == -1 else int(sizes[a]) - 1
            low[t, p] = 0
    for s, e in _blocks(n):
        c = codes[s:e].astype(np.int64)
        bad = (c > limit[template[s:e]]) | (c < low[template[s:e]]) | ((low[template[s:e]] < 0) & (c != -1))
        if bad.any():
            f, p = np.argwhere(bad)[0]
            t = int(template[s + f])
            where.section_fail("codes", f"feature {s + int(f)}, part {int(p)}: code {int(codes[s + f, p])} is outside "
                                        f"[{int(low[t, p])}, {int(limit[t, p])}] (template {templates[t][0]!r})")
    if n > 1:
        rows = np.concatenate([template.reshape(-1, 1), codes], axis=1)
        order = np.lexsort(rows.T[::-1])  # (np.unique with axis=0 took 7x as long)
        same = np.flatnonzero(np.all(rows[order[1:]] == rows[order[:-1]], axis=1))
        if same.size:
            f = sorted(order[same[0]:same[0] + 2].tolist())
            where.section_fail("codes", f"features {f[0]} and {f[1]} have the same template and codes")


def _optional_features(meta: _Meta, arrays: Arrays, where: _Where) -> Tuple[bool, int]:
    """(named, size) of an object's optional feature index; (False, 0) without one."""
    sub = meta.obj("features", optional=True)
    if sub is None:
        return False, 0
    return _feature_index(sub, arrays, where.sub("features"))


def _kernel(meta: _Meta, max_degree: int = MAX_DEGREE) -> Tuple[int, float, float]:
    return (meta.int("degree", 1, max_degree), meta.float("gamma"), meta.float("coef0"))


def _check_kernel_magnitude(kernel: Tuple[int, float, float], max_overlap: int, alpha: Sequence[np.ndarray],
                            where: _Where, key: str) -> None:
    """(gamma m + coef0)^degree and sum |alpha| k stay far from overflow for overlaps m <= max_overlap."""
    degree, gamma, coef0 = kernel
    base = max(abs(coef0), abs(gamma * max_overlap + coef0))  # |gamma m + c| peaks at an end point
    log_k = degree * math.log(base) if base > 0 else -math.inf
    if log_k > _MAX_LOG_MAGNITUDE:
        where.fail(f"header fields 'gamma', 'coef0' and 'degree': the kernel ({gamma:g} * m + {coef0:g}) ** {degree} "
                   f"overflows for overlaps up to {max_overlap}")
    total = sum(_abs_sum(a) for a in alpha)
    if total > 0 and log_k + math.log(total) > _MAX_LOG_MAGNITUDE:
        where.section_fail(key, f"coefficients times the kernel overflow (sum |alpha| = {total:g}, "
                                f"largest kernel value = exp({log_k:.0f}))")


def _alpha(arrays: Arrays, where: _Where, n_sv: int, K: int) -> Tuple[np.ndarray, ...]:
    """Alpha rows: dense (n_sv x K) or sparse (alpha of shape (0, K) and a CSR triplet)."""
    alpha = _section(arrays, where, "alpha", "<f8", (None, K))
    ptr = _section(arrays, where, "alpha_ptr", "<i8", (None,))
    out = _section(arrays, where, "alpha_out", "<i4", (None,))
    val = _section(arrays, where, "alpha_val", "<f8", (None,))
    sparse = alpha.shape[0] == 0 and ptr.size > 0
    if sparse:
        if ptr.size != n_sv + 1:
            where.section_fail("alpha_ptr", f"{ptr.size} offsets, expected {n_sv + 1} (support vectors + 1)")
        if val.size != out.size:
            where.section_fail("alpha_val", f"{val.size} values but {out.size} output ids")
        _check_pointers(ptr, out.size, where, "alpha_ptr")
        _check_range(out, 0, K, where, "alpha_out")
        _check_rows_ascending(ptr, out, where, "alpha_out")
        _check_finite(val, where, "alpha_val")
        return (val,)
    if alpha.shape[0] != n_sv:
        where.section_fail("alpha", f"{alpha.shape[0]} rows, expected {n_sv} (one per support vector)")
    if ptr.size or out.size or val.size:
        where.fail(f"sections {where.prefix}alpha_ptr/out/val must be empty when alpha is dense")
    _check_finite(alpha, where, "alpha")
    return (alpha,)


def _col_map(arrays: Arrays, where: _Where, n_columns: int, n_features: Optional[int] = None) -> int:
    """Column -> internal id map: a bijection from the used columns onto 0..F-1 (the
    others -1). Returns F, which is ``n_features`` when given."""
    cm = _section(arrays, where, "col_map", "<i4", (n_columns,))
    F = int(np.count_nonzero(cm >= 0)) if n_features is None else n_features
    if F > cm.size:  # before anything of size F is allocated
        where.meta_fail("params.n_features", f"is {F}, more than the {cm.size} columns of the column map")
    _check_range(cm, -1, F, where, "col_map")
    counts = np.zeros(F, dtype=np.int64)
    for s, e in _blocks(cm.size):
        block = cm[s:e]
        counts += np.bincount(block[block >= 0], minlength=F)
    if F and int(counts.min()) != 1:
        i = int(np.argmin(counts)) if int(counts.min()) == 0 else int(np.argmax(counts))
        where.section_fail("col_map", f"internal id {i} is used by {int(counts[i])} columns, expected exactly one")
    return F


def _trie(arrays: Arrays, where: _Where, n_labels: int, *, descending: bool, max_depth: Optional[int],
          label_limit: Optional[int] = None) -> int:
    """A breadth-first trie (util/trie.h): node 0 the root, children of n are
    [child_begin[n], child_begin[n+1]) with strictly ascending labels in
    [0, label_limit), root_map[f] the root's child labelled f (or -1). Labels
    along a path descend (conjunction stores: rarest first) or ascend (fstrie:
    frequent first). Returns the number of nodes."""
    label = _section(arrays, where, "label", "<i4", (None,))
    n = label.size
    if n == 0:
        where.section_fail("label", "no nodes (a trie has at least its root)")
    child_begin = _section(arrays, where, "child_begin", "<i4", (n + 1,))
    root_map = _section(arrays, where, "root_map", "<i4", (n_labels,))
    # The child lists partition nodes 1..n-1 (monotone offsets from 1 to n), and
    # every node's children come after it: each non-root node has one parent, before it.
    _check_pointers(child_begin, n, where, "child_begin", first=1)
    internal = np.flatnonzero(child_begin[1:] > child_begin[:-1])  # nodes with children
    late = np.flatnonzero(child_begin[internal] <= internal)
    if late.size:
        v = int(internal[late[0]])
        where.section_fail("child_begin", f"node {v}'s children start at {int(child_begin[v])}, not after the node")
    limit = n_labels if label_limit is None else label_limit
    _check_range(label[1:], 0, limit, where, "label", first_index=1)
    # Siblings ascend: a label may drop only where a child list starts.
    starts = np.zeros(n + 1, dtype=bool)
    starts[child_begin[internal]] = True
    rising = starts[2:n] | (label[2:] > label[1:-1])
    if not rising.all():
        c = 2 + int(np.argmin(rising))
        where.section_fail("label", f"node {c}'s label {int(label[c])} does not exceed its previous sibling's "
                                    f"({int(label[c - 1])})")
    # Path order: a node's children all descend (ascend) from its label, so its last (first) child does.
    inner = internal[internal > 0]
    child = child_begin[inner + 1] - 1 if descending else child_begin[inner]
    bad = np.flatnonzero(label[child] >= label[inner] if descending else label[child] <= label[inner])
    if bad.size:
        v = int(child[bad[0]])
        order = "smaller" if descending else "larger"
        where.section_fail("label", f"node {v}'s label {int(label[v])} is not {order} than its parent's")
    # The root map lists exactly the root's children.
    _check_range(root_map, -1, n, where, "root_map")
    first = label[1:int(child_begin[1])]
    if np.any(root_map[first] != np.arange(1, first.size + 1, dtype=np.int64)):
        where.section_fail("root_map", "does not point to the root's children by their labels")
    if int(np.count_nonzero(root_map >= 0)) != first.size:
        where.section_fail("root_map", f"has {int(np.count_nonzero(root_map >= 0))} entries for {first.size} root children")
    if max_depth is not None:
        lo, hi, depth = 0, 1, 0
        while lo < hi:
            lo, hi = int(child_begin[lo]), int(child_begin[hi])
            depth += 1 if lo < hi else 0
            if depth > max_depth:
                where.section_fail("child_begin", f"the trie is deeper than {max_depth} (the degree)")
    return n


def _store(arrays: Arrays, where: _Where, *, degree: int, n_dense: int, n_features: int, K: int,
           label_limit: Optional[int] = None) -> None:
    """A conjunction store (classify/conjunction_store.h): dense levels for the
    n_dense most frequent features, a trie keyed rarest member first."""
    st = where.sub("store")
    # Early-exit prediction keeps two bounds per feature and output.
    _check_budget(16 * n_features * K, f"the early-exit bounds of {n_features} features x {K} outputs", where,
                  "params.n_features")
    if n_dense > 0 and degree > MAX_DENSE_DEGREE:
        where.meta_fail("params.n_dense", f"a dense table needs degree <= {MAX_DENSE_DEGREE}, the degree is {degree}")
    entries = sum(math.comb(n_dense, r) for r in range(1, min(degree, MAX_DENSE_DEGREE) + 1)) if n_dense else 0
    dense = _section(arrays, st, "dense", "<f8", (None,))
    if dense.size != entries * K:
        st.section_fail("dense", f"{dense.size} values, expected {entries * K} ({entries} conjunctions of the "
                                 f"{n_dense} dense features x {K} outputs)")
    _check_finite(dense, st, "dense")
    n_nodes = _trie(arrays, st, n_features, descending=True, max_depth=degree, label_limit=label_limit)
    if st.prefix + "row_begin" not in arrays:
        weight = _section(arrays, st, "weight", "<f8", (n_nodes * K,))
        _check_finite(weight, st, "weight")
        return
    # Sparse rows: each trie node's non-zero outputs, ascending.
    if K < 2:
        st.section_fail("row_begin", f"sparse rows need K >= 2 outputs, the model has {K}")
    if st.prefix + "weight" in arrays:
        st.section_fail("weight", "a store has dense or sparse rows, not both")
    begin = _section(arrays, st, "row_begin", "<i8", (n_nodes + 1,))
    values = _section(arrays, st, "row_value", "<f8", (None,))
    outputs = _section(arrays, st, "row_output", "<i4", (values.size,))
    if begin[0] != 0 or begin[-1] != values.size:
        st.section_fail("row_begin", f"must run from 0 to the number of values ({values.size}), "
                                     f"runs from {begin[0]} to {begin[-1]}")
    if np.any(np.diff(begin) < 0):
        st.section_fail("row_begin", f"decreases at index {int(np.argmax(np.diff(begin) < 0)) + 1}")
    if outputs.size and (outputs.min() < 0 or outputs.max() >= K):
        bad = int(np.argmax((outputs < 0) | (outputs >= K)))
        st.section_fail("row_output", f"value {int(outputs[bad])} at index {bad} is outside [0, {K})")
    # Ascending within each row: a step that does not rise must start a new row.
    falls = np.flatnonzero(np.diff(outputs) <= 0) + 1
    if falls.size and not np.all(np.isin(falls, begin)):
        bad = int(falls[~np.isin(falls, begin)][0])
        st.section_fail("row_output", f"does not ascend within its row at index {bad}")
    _check_finite(values, st, "row_value")


def _stats(params: _Meta, keys: Sequence[str]) -> None:
    """Counts shown by ``info`` only."""
    for key in keys:
        params.int(key, 0, 1 << 62, optional=True, none=True)
    sizes = params.list("conjunctions_by_size", optional=True)
    if sizes is not None and not all(_is_int(v) and v >= 0 for v in sizes):
        params.where.meta_fail(params._p("conjunctions_by_size"), "expected a list of counts")


def _bias(arrays: Arrays, where: _Where, K: int) -> np.ndarray:
    bias = _section(arrays, where, "bias", "<f8", (K,))
    _check_finite(bias, where, "bias")
    return bias


# -- classifier methods ----------------------------------------------------------------------------------------------
class MethodSpec:
    """How one classification method's data are checked.

    Parameters
    ----------
    params : callable
        ``params(meta) -> dict`` checks the method's scalar parameters (a
        :class:`_Meta` of ``params``) and returns the values the checks need.
    check : callable
        ``check(params, arrays, where, K, n_columns) -> int`` checks the
        sections (names relative to ``where.prefix``) and returns the number of
        internal features.
    """

    def __init__(self, params: Callable, check: Callable):
        self.params = params
        self.check = check


def _pkb_params(p: _Meta) -> dict:
    return {"kernel": _kernel(p, MAX_CLASSIFIER_DEGREE)}


def _pkb_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns)
    ptr, _ = _csr(arrays, where, "sv_indptr", "sv_indices", None, F)
    alpha = _alpha(arrays, where, ptr.size - 1, K)
    _bias(arrays, where, K)
    if ptr.size > 1:
        _check_kernel_magnitude(p["kernel"], _max_row_length(ptr), alpha, where, "alpha")
    return F


def _pki_params(p: _Meta) -> dict:
    return {"kernel": _kernel(p, MAX_CLASSIFIER_DEGREE), "n_sv": p.int("n_sv", 0, MAX_COLUMNS), "max_sv_length": p.int("max_sv_length", 0, MAX_COLUMNS)}


def _pki_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns)
    n_sv = p["n_sv"]
    alpha = _alpha(arrays, where, n_sv, K)  # first: its sections bound n_sv by the file's size
    _bias(arrays, where, K)
    _, ids = _csr(arrays, where, "inv_indptr", "inv_indices", F, n_sv)
    # The overlap |s ∩ x| indexes a kernel table of max_sv_length + 1 entries.
    longest = int(np.bincount(ids, minlength=1).max()) if ids.size else 0
    if not longest <= p["max_sv_length"] <= F:
        where.meta_fail("params.max_sv_length", f"is {p['max_sv_length']}, but the longest support vector has {longest} "
                                                f"features (and there are {F})")
    if n_sv:
        _check_kernel_magnitude(p["kernel"], longest, alpha, where, "alpha")
    return F


def _pke_params(p: _Meta) -> dict:
    _stats(p, ("n_conjunctions",))
    p.float("sigma", 0.0, optional=True)
    p.int("min_support", 1, 1 << 62, optional=True)
    return {"degree": p.int("degree", 1, MAX_CLASSIFIER_DEGREE), "n_dense": p.int("n_dense", 0, MAX_COLUMNS),
            "n_features": p.int("n_features", 0, MAX_COLUMNS)}


def _pke_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns, p["n_features"])
    if p["n_dense"] > F:
        where.meta_fail("params.n_dense", f"is {p['n_dense']}, more than the {F} features")
    _bias(arrays, where, K)
    _store(arrays, where, degree=p["degree"], n_dense=p["n_dense"], n_features=F, K=K)
    return F


def _split_params(p: _Meta) -> dict:
    _stats(p, ("n_conjunctions",))
    out = _pke_params(p)
    out.update(kernel=_kernel(p, MAX_CLASSIFIER_DEGREE), n_common=p.int("n_common", 0, MAX_COLUMNS),
               max_sv_length=p.int("max_sv_length", 0, MAX_COLUMNS))
    return out


def _split_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns, p["n_features"])
    n_common, n_dense = p["n_common"], p["n_dense"]
    if not n_dense <= n_common <= F:
        where.meta_fail("params.n_common", f"expected n_dense ({n_dense}) <= n_common ({n_common}) <= features ({F})")
    _bias(arrays, where, K)
    _store(arrays, where, degree=p["degree"], n_dense=n_dense, n_features=F, K=K, label_limit=n_common)
    sv_ptr, sv_ids = _csr(arrays, where, "sv_indptr", "sv_indices", None, F)
    n_sv = sv_ptr.size - 1
    rare_ptr, rare_ids = _csr(arrays, where, "rare_indptr", "rare_indices", F - n_common, n_sv)
    # The rare postings must be the support vectors' rare features, transposed:
    # overlaps then never exceed a support vector's length (the kernel table's size).
    _check_transpose(sv_ptr, sv_ids, rare_ptr, rare_ids, n_common, F, where)
    longest = _max_row_length(sv_ptr)
    if not longest <= p["max_sv_length"] <= F:
        where.meta_fail("params.max_sv_length", f"is {p['max_sv_length']}, but the longest support vector has "
                                                f"{longest} features (and there are {F})")
    alpha = _alpha(arrays, where, n_sv, K)
    if n_sv:
        _check_kernel_magnitude(p["kernel"], longest, alpha, where, "alpha")
    return F


def _check_transpose(sv_ptr, sv_ids, rare_ptr, rare_ids, n_common: int, F: int, where: _Where) -> None:
    import scipy.sparse as sp

    n_sv = sv_ptr.size - 1
    S = sp.csr_matrix((np.ones(sv_ids.size, dtype=np.int8), sv_ids, sv_ptr), shape=(n_sv, F))
    T = S.T.tocsr()  # rows: features; ids: support vectors, ascending (a counting sort, O(nnz))
    begin = int(T.indptr[n_common])
    same = (np.array_equal(T.indptr[n_common:] - begin, rare_ptr)
            and np.array_equal(T.indices[begin:], rare_ids))
    if not same:
        where.section_fail("rare_indices", "the rare-feature postings do not match the support vectors")


def _fstrie_params(p: _Meta) -> dict:
    base = p.str("base", ("pke", "split"))
    base_meta = p.obj("base_params")
    base_params = METHOD_SPECS[base].params(base_meta)
    degree = p.int("degree", 1, MAX_CLASSIFIER_DEGREE)
    if degree != base_params["degree"]:
        p.where.meta_fail("params.degree", f"is {degree}, but the base's degree is {base_params['degree']}")
    p.int("max_nodes", 0, 1 << 62, optional=True, none=True)
    _stats(p, ("events", "distinct_events", "nodes_before_pruning", "nodes"))
    return {"base": base, "base_params": base_params}


def _fstrie_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    base_where = where.sub("base")
    F = METHOD_SPECS[p["base"]].check(p["base_params"], arrays, base_where, K, n_columns)
    col_map = _section(arrays, where, "col_map", "<i4", (n_columns,))
    if not np.array_equal(col_map, arrays[base_where.prefix + "col_map"]):
        where.section_fail("col_map", "differs from the base classifier's column map")
    trie = where.sub("trie")
    n_nodes = _trie(arrays, trie, F, descending=False, max_depth=None)
    weight = _section(arrays, trie, "weight", "<f8", (n_nodes * K,))
    _check_finite(weight, trie, "weight")
    return F


def _adaptive_params(p: _Meta) -> dict:
    warm = p.bool("warm_start")
    p.int("cache_rows", 0, MAX_COLUMNS)
    p.str("eviction", ("lru", "lfu"))
    p.bool("doorkeeper")
    p.str("sharing", ("thread", "shared"))
    p.int("shards", 1, 4096)
    if warm:  # a static fstrie under the cache: the fstrie's own parameters
        return dict(_fstrie_params(p), warm_start=True)
    base = p.str("base", ("pke", "split"))
    base_params = METHOD_SPECS[base].params(p.obj("base_params"))
    degree = p.int("degree", 1, MAX_CLASSIFIER_DEGREE)
    if degree != base_params["degree"]:
        p.where.meta_fail("params.degree", f"is {degree}, but the base's degree is {base_params['degree']}")
    return {"base": base, "base_params": base_params, "warm_start": False}


def _adaptive_check(p: dict, arrays: Arrays, where: _Where, K: int, n_columns: int) -> int:
    if p["warm_start"]:
        return _fstrie_check(p, arrays, where, K, n_columns)
    base_where = where.sub("base")
    F = METHOD_SPECS[p["base"]].check(p["base_params"], arrays, base_where, K, n_columns)
    col_map = _section(arrays, where, "col_map", "<i4", (n_columns,))
    if not np.array_equal(col_map, arrays[base_where.prefix + "col_map"]):
        where.section_fail("col_map", "differs from the base classifier's column map")
    return F


#: Per classification method: its scalar parameters and its sections.
METHOD_SPECS: Dict[str, MethodSpec] = {
    "pkb": MethodSpec(_pkb_params, _pkb_check),
    "pki": MethodSpec(_pki_params, _pki_check),
    "pke": MethodSpec(_pke_params, _pke_check),
    "split": MethodSpec(_split_params, _split_check),
    "fstrie": MethodSpec(_fstrie_params, _fstrie_check),
    "adaptive": MethodSpec(_adaptive_params, _adaptive_check),
}


# -- kinds ------------------------------------------------------------------------------------------------------
def _classifier(meta: _Meta, arrays: Arrays, where: _Where) -> None:
    method = meta.str("method", tuple(METHOD_SPECS))
    _, _, K = _rule(meta)
    n_columns = meta.int("n_columns", 0, MAX_COLUMNS)
    named, n_names = _optional_features(meta, arrays, where)
    if named and n_names > n_columns:
        where.meta_fail("n_columns", f"is {n_columns}, fewer than the {n_names} named features")
    spec = METHOD_SPECS[method]
    params = spec.params(meta.obj("params"))
    spec.check(params, arrays, where.sub("m"), K, n_columns)


def _check_budget(nbytes: int, what: str, where: _Where, field: str) -> None:
    """A few bytes of a file must not make a later call allocate gigabytes."""
    from .budget import MemoryBudgetError, check_memory

    try:
        check_memory(nbytes, what)
    except MemoryBudgetError as e:
        where.meta_fail(field, str(e))


def _model_width(meta: _Meta, arrays: Arrays, where: _Where) -> Tuple[int, int]:
    """(K, n_columns) of a model (kernel or linear): its rule, width, source and
    feature index, and the per-column tables its width implies."""
    _, _, K = _rule(meta)
    n_columns = meta.int("n_columns", 0, MAX_COLUMNS)
    meta.str("source", optional=True, none=True)
    named, n_names = _optional_features(meta, arrays, where)
    if named and n_names < n_columns:
        where.meta_fail("n_columns", f"is {n_columns}, more than the {n_names} named features")
    width = max(n_columns, n_names)
    _check_budget(width * BYTES_PER_COLUMN, f"the per-column tables of {width} columns", where, "n_columns")
    return K, n_columns


def _kernel_model(meta: _Meta, arrays: Arrays, where: _Where) -> None:
    kernel = _kernel(meta)
    K, n_columns = _model_width(meta, arrays, where)
    ptr, _ = _csr(arrays, where, "sv_indptr", "sv_indices", None, n_columns)
    n_sv = ptr.size - 1
    alpha = _section(arrays, where, "dual_coef", "<f8", (n_sv, K))
    _check_finite(alpha, where, "dual_coef")
    _check_finite(_section(arrays, where, "intercept", "<f8", (K,)), where, "intercept")
    if n_sv:
        _check_kernel_magnitude(kernel, _max_row_length(ptr), (alpha,), where, "dual_coef")


def _linear_model(meta: _Meta, arrays: Arrays, where: _Where) -> None:
    K, n_columns = _model_width(meta, arrays, where)
    ptr, _ = _csr(arrays, where, "conj_indptr", "conj_indices", None, n_columns)
    if ptr.size > 1 and _min_row_length(ptr) == 0:
        where.section_fail("conj_indptr", "an empty conjunction (the intercept is a section of its own)")
    if _max_row_length(ptr) > MAX_DEGREE:
        where.section_fail("conj_indptr", f"a conjunction of more than {MAX_DEGREE} features")
    n = ptr.size - 1
    _check_finite(_section(arrays, where, "weights", "<f8", (n, K)), where, "weights")
    _check_finite(_section(arrays, where, "intercept", "<f8", (K,)), where, "intercept")


def _min_row_length(ptr: np.ndarray) -> int:
    return min(int(np.min(ptr[s + 1:e] - ptr[s:e - 1])) for s, e in _blocks(ptr.size - 1, 1))


def _feature_index_kind(meta: _Meta, arrays: Arrays, where: _Where) -> None:
    _feature_index(meta, arrays, where)


def _tagger(meta: _Meta, arrays: Arrays, where: _Where, kind: str) -> None:
    from .tagging.chain import DECODERS

    params = meta.obj("params")
    params.str("decoder", DECODERS)
    params.int("beam_width", 1, 1 << 30)
    if kind == "perceptron_tagger":
        params.int("n_iter", 1, 1 << 30)
        templates = params.list("templates", none=True)
        if templates is not None:
            if not all(isinstance(t, str) for t in templates):
                where.meta_fail("params.templates", "expected a list of template names")
            from .tagging.features import Featurizer

            try:
                Featurizer(templates)
            except ValueError as e:
                where.meta_fail("params.templates", str(e))
        for key in ("average", "shuffle"):
            params.bool(key)
        params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
        params.raw("verbose", optional=True)
        meta.list("train_log", optional=True)
        if meta.int("feature_version", 1, 2, optional=True) != 2:  # absent in version 1
            where.meta_fail("feature_version", "saved with feature version 1 (unescaped feature strings), which this "
                                               "version of conjunct no longer reads: retrain the tagger (conjunct tag train)")
        allowed = {"decoder", "beam_width", "n_iter", "templates", "average", "shuffle", "random_state", "verbose"}
    else:
        _hmm_smoothing(meta, params, where)
        allowed = {"decoder", "beam_width", "transition_smoothing", "emission_smoothing"}
    unknown = sorted(set(params.d) - allowed)
    if unknown:
        where.meta_fail(f"params.{unknown[0]}", "unknown parameter")
    meta.str("tag_field", optional=True)
    labels = meta.list("labels")
    if not labels or not all(isinstance(y, str) and y for y in labels) or len(set(labels)) != len(labels):
        where.meta_fail("labels", "expected distinct non-empty label strings")
    L = len(labels)
    blob = _section(arrays, where, "names_blob", "|u1", (None,))
    offsets = _section(arrays, where, "names_offsets", "<i8", (None,))
    _check_pointers(offsets, blob.size, where, "names_offsets")
    _check_strings(blob, offsets, where, "names_blob", "names_offsets")
    n_features = offsets.size - 1
    ptr = _section(arrays, where, "w_indptr", "<i8", (n_features + 1,))
    labs = _section(arrays, where, "w_labels", "<i4", (None,))
    _check_pointers(ptr, labs.size, where, "w_indptr")
    _check_range(labs, 0, L, where, "w_labels")
    _check_rows_ascending(ptr, labs, where, "w_labels")
    _check_finite(_section(arrays, where, "w_values", "<f8", (labs.size,)), where, "w_values")
    for key, shape in (("transitions", (L, L)), ("start", (L,)), ("end", (L,))):
        _check_finite(_section(arrays, where, key, "<f8", shape), where, key)


def _hmm_smoothing(meta: _Meta, params: _Meta, where: _Where) -> None:
    """Each smoothing parameter is a positive number or "auto"; the amounts used
    (``smoothing``, with the held-out table that chose them) are in files since
    "auto" and must be there when a parameter says "auto"."""
    auto = False
    for key in ("transition_smoothing", "emission_smoothing"):
        if params.raw(key) == "auto":
            auto = True
        else:
            params.float(key, 0.0, lo_open=True)
    used = meta.list("smoothing", optional=not auto)
    if used is not None and (len(used) != 2 or not all(_is_number(v) and math.isfinite(v) and v > 0 for v in used)):
        where.meta_fail("smoothing", f"expected two positive numbers, got {_describe(used)}")
    for i, row in enumerate(meta.list("smoothing_scores", optional=True) or []):
        entry = _Meta(row, f"smoothing_scores[{i}]", where)
        entry.float("transition_smoothing", 0.0, lo_open=True)
        entry.float("emission_smoothing", 0.0, lo_open=True)
        entry.float("accuracy", 0.0, 1.0)


# Task pipelines: what their runners need beyond the generic checks (see conjunct.tasks).
_TASK_RULES = {"ud-english": ("sign", "argmax"), "ja-segment": ("sign",), "bunsetsu": ("sign",),
               "en-tokenize": ("sign", "argmax", "ovo")}
# The class a component's runner needs: (task, component or None for every component) -> class.
_TASK_CLASS = {("ja-segment", None): "1",  # the segmenter's "a word ends here" class
               ("en-tokenize", "sentence"): "1"}  # the tokenizer's "a sentence ends here" class
_TASK_MAX_CLASSES = {("ud-english", "transition"): 8}  # the arc-eager loop's table of transitions
_TASK_CONFIG = {"conll2000-chunk": {"window": (0, 32)}, "ja-segment": {"ngram": (1, 3)}, "en-tokenize": {"ngram": (1, 3)}}
_PIPELINE_PARAMS = ("degree", "C", "n_iter", "margin", "common_features", "method", "random_state", "verbose")


# The bunsetsu parser's feature groups (conjunct.tasks.bunsetsu.features.FEATURE_GROUPS;
# a test keeps the two equal, this module does not import the task layer).
BUNSETSU_GROUPS = ("core", "edge", "context", "particles", "siblings", "coord", "brackets")


def _bunsetsu_groups(config: _Meta) -> None:
    """The bunsetsu parser's feature groups: the templates its C++ extractor
    builds (files from before the groups existed used other templates)."""
    groups = config.raw("groups", optional=True)
    if groups is _MISSING:
        config.where.meta_fail(config._p("groups"), "missing: the model was saved with the bunsetsu feature templates of an "
                               "older conjunct, which this version does not build; retrain it")
    if (not isinstance(groups, list) or not all(isinstance(g, str) for g in groups) or "core" not in groups
            or len(set(groups)) != len(groups)
            or any(g not in BUNSETSU_GROUPS for g in groups)):
        config.where.meta_fail(config._p("groups"), f"expected distinct names of {list(BUNSETSU_GROUPS)} including 'core', "
                               f"got {_describe(groups)}")


def _pipeline(meta: _Meta, arrays: Arrays, where: _Where, tasks) -> None:
    task = meta.str("task", sorted(tasks))
    cls = tasks.get(task, where.name)
    params = meta.obj("params")
    unknown = sorted(set(params.d) - set(_PIPELINE_PARAMS))
    if unknown:
        where.meta_fail(f"params.{unknown[0]}", "unknown parameter")
    params.int("degree", 1, MAX_DEGREE, optional=True)
    params.float("C", 0.0, lo_open=True, optional=True)
    params.int("n_iter", 1, 1 << 30, optional=True)
    params.str("margin", optional=True)
    params.int("common_features", 0, MAX_COLUMNS, optional=True, none=True)
    params.str("method", tuple(METHOD_SPECS), optional=True)
    params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
    params.raw("verbose", optional=True)
    method_params = meta.raw("method_params", optional=True)
    if method_params is not None and method_params is not _MISSING:
        mp = _Meta(method_params, "method_params", where)
        for k, v in mp.d.items():
            if not (v is None or isinstance(v, (str, bool)) or _is_int(v) or (isinstance(v, float) and math.isfinite(v))):
                where.meta_fail(f"method_params.{k}", f"expected a number, string or null, got {_describe(v)}")
    config = meta.obj("config", optional=True)
    if config is not None:
        for key, (lo, hi) in _TASK_CONFIG.get(task, {}).items():
            config.int(key, lo, hi, optional=True)
        config.int("skipped_sentences", 0, 1 << 62, optional=True, none=True)
        if task == "bunsetsu":
            _bunsetsu_groups(config)
        if task == "ud-english":
            # conjunct.tasks.english.features.FEATURE_SETS (this module does not import the task layer)
            config.str("features", ("malt", "rich"), optional=True)
    elif task == "bunsetsu":
        where.meta_fail("config", "missing (a bunsetsu parser names its feature groups there)")
    components = meta.obj("components")
    expected = tuple(getattr(cls, "COMPONENTS", None) or (cls.COMPONENT,))
    if sorted(components.d) != sorted(expected):
        where.meta_fail("components", f"has {sorted(components.d)}, the {task} task needs {list(expected)}")
    for name in expected:
        entry = components.obj(name)
        for part, kinds in (("model", ("kernel_model", "conjunctive_linear_model")), ("classifier", ("classifier",))):
            if part == "model" and part not in entry.d:
                continue  # saved without its kernel model (TaskPipeline.keep_models)
            nested = entry.obj(part)
            nested.str("kind", kinds)
            inner = nested.obj("meta")
            features = inner.obj("features", optional=True)
            if features is None or features.bool("numeric"):
                where.meta_fail(f"{inner.path}.features", "a task component needs named features")
            rules = _TASK_RULES.get(task)
            if rules is not None:
                inner.obj("rule").str("kind", rules)
            if part == "classifier":
                classes = inner.obj("rule").list("classes")
                needed = _TASK_CLASS.get((task, name), _TASK_CLASS.get((task, None)))
                # As the decision rule will hold them: [-0.5, 1] becomes floats, and "1.0" is not "1".
                if needed is not None and needed not in [str(c) for c in labels_array(classes)]:
                    where.meta_fail(f"{inner.path}.rule.classes", f"the {task} task needs a class {needed!r}")
                most = _TASK_MAX_CLASSES.get((task, name))
                if most is not None and len(classes) > most:
                    where.meta_fail(f"{inner.path}.rule.classes", f"the {task} task's {name} component has at most "
                                                                  f"{most} classes, got {len(classes)}")


# Text pipelines: per language, each stage's kinds, its task (for a task pipeline) and whether it may be absent.
_TAGGER_KINDS = ("perceptron_tagger", "hmm_tagger")
_TEXT_STAGES = {
    "en": {"tokenizer": (("task_pipeline",), "en-tokenize", True), "tagger": (_TAGGER_KINDS, None, False),
           "parser": (("task_pipeline",), "ud-english", False), "chunker": (("task_pipeline",), "conll2000-chunk", True)},
    "ja": {"segmenter": (("task_pipeline",), "ja-segment", False), "tagger": (_TAGGER_KINDS, None, False),
           "bunsetsu": (("task_pipeline",), "conll2000-chunk", False), "parser": (("task_pipeline",), "bunsetsu", False)},
}
_TEXT_PARAMS = ("folds", "random_state", "verbose")


def _text_pipeline(meta: _Meta, arrays: Arrays, where: _Where, languages) -> None:
    lang = meta.str("lang", sorted(set(languages) & set(_TEXT_STAGES)))
    params = meta.obj("params")
    unknown = sorted(set(params.d) - set(_TEXT_PARAMS))
    if unknown:
        where.meta_fail(f"params.{unknown[0]}", "unknown parameter")
    params.int("folds", 2, 1 << 20)
    params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
    params.raw("verbose", optional=True)
    stages = meta.obj("stages")
    spec = _TEXT_STAGES[lang]
    # A file written before the tokenizer existed has no entry for it.
    required = sorted(n for n in spec if not (n == "tokenizer" and n not in stages.d))
    if sorted(stages.d) != required:
        where.meta_fail("stages", f"has {sorted(stages.d)}, a {lang} text pipeline needs {sorted(spec)}")
    for name, (kinds, task, optional) in spec.items():
        if optional and (name not in stages.d or stages.raw(name) is None):
            continue
        entry = stages.obj(name)
        entry.str("kind", kinds)
        inner = entry.obj("meta")
        if task is not None:
            inner.str("task", (task,))
        else:
            labels = inner.list("labels")
            if not all(isinstance(y, str) and "|" in y for y in labels):
                where.meta_fail(f"{inner.path}.labels", "a text pipeline's tagger has joint UPOS|XPOS labels")
        prefix = f"stage.{name}."
        if not any(k.startswith(prefix) for k in arrays):
            where.meta_fail(f"stages.{name}", f"no sections under {prefix!r}")


_VALIDATORS: Dict[str, Callable[[_Meta, Arrays, _Where], None]] = {
    "kernel_model": _kernel_model,
    "conjunctive_linear_model": _linear_model,
    "classifier": _classifier,
    "feature_index": _feature_index_kind,
    "perceptron_tagger": lambda m, a, w: _tagger(m, a, w, "perceptron_tagger"),
    "hmm_tagger": lambda m, a, w: _tagger(m, a, w, "hmm_tagger"),
}

# Kinds whose valid names live in a registry of their owner class: (its attribute, the check).
_REGISTRY_VALIDATORS = {"task_pipeline": ("tasks", _pipeline), "text_pipeline": ("languages", _text_pipeline)}


def validate(kind: str, meta: dict, arrays: Arrays, name: str = "<model>", owner: Optional[type] = None) -> None:
    """Check the header entry ``meta`` and the sections ``arrays`` of one object
    of ``kind`` (section names relative to the object). ``owner`` is the class
    registered for ``kind``: kinds whose valid values live in a registry of
    their own (the task pipelines' ``tasks``) are checked against it, so this
    module never imports the layers above the file layer.

    Raises
    ------
    ModelFormatError
        Naming the file (``name``), the section or header field, and the problem.
    """
    check = _VALIDATORS.get(kind)
    registered = _REGISTRY_VALIDATORS.get(kind)
    if check is None and registered is None:
        raise ModelFormatError(f"header field 'kind': unknown model kind {kind!r} (written by a newer conjunct?)", name)
    if registered is not None:
        attribute, check_with = registered
        registry = getattr(owner, attribute, None)
        if registry is None:
            raise ModelFormatError(f"a {kind.replace('_', ' ')} needs its class's {attribute} registry to be checked", name)
        check_with(_Meta(meta, "", _Where(name)), arrays, _Where(name), registry)
        return
    check(_Meta(meta, "", _Where(name)), arrays, _Where(name))
