"""A feature index's sections in a model file: its names, counts and, for
indices built by the feature engine, its keys (the template spec, the
attribute vocabularies, each feature's template and codes). Models and
classifiers that carry an index check it here too (:func:`optional_features`).
"""

from __future__ import annotations

from typing import Dict, Set, Tuple

import numpy as np

from ..io.validation import (MAX_COLUMNS, Arrays, Meta, Where, blocks, check_pointers, check_range, check_strings, describe,
                         is_int, section)

__all__ = ["check_feature_index", "optional_features"]

#: Parts per feature template (spec.MAX_PARTS, the C++ FeatureSpec::kMaxParts).
_MAX_PARTS = 3
_MAX_TEMPLATES = 1 << 14


def check_feature_index(meta: Meta, arrays: Arrays, where: Where) -> Tuple[bool, int]:
    """(named, number of features) of a feature index."""
    numeric = meta.bool("numeric")
    n = meta.int("n_features", 0, MAX_COLUMNS)
    counts = section(arrays, where, "counts", "<i8", (n,))
    if counts.size and int(counts.min()) < 0:
        where.section_fail("counts", f"negative count {int(counts.min())}")
    if not numeric:
        blob = section(arrays, where, "names_blob", "|u1", (None,))
        offsets = section(arrays, where, "names_offsets", "<i8", (n + 1,))
        check_pointers(offsets, blob.size, where, "names_offsets")
        check_strings(blob, offsets, where, "names_blob", "names_offsets")
        _check_distinct(blob, offsets, where, "names_blob")
    keys = meta.obj("keys", optional=True)
    if keys is not None:
        if numeric:
            meta.where.meta_fail(keys.path, "a numeric feature index has no feature keys")
        _feature_keys(keys, arrays, where.sub("keys"), n)
    return not numeric, n


def _check_distinct(blob: np.ndarray, offsets: np.ndarray, where: Where, blob_key: str) -> None:
    """No feature name repeats (the strings are checked already)."""
    if offsets.size <= 2:
        return
    data = blob.tobytes()
    bounds = offsets.tolist()
    names = [data[a:b] for a, b in zip(bounds, bounds[1:])]
    if len(set(names)) == len(names):
        return
    seen: Dict[bytes, int] = {}
    for i, name in enumerate(names):
        first = seen.setdefault(name, i)
        if first != i:
            text = name.decode("utf-8", "surrogatepass")
            where.section_fail(blob_key, f"feature {describe(text)} appears twice (strings {first} and {i})")


def _feature_keys(meta: Meta, arrays: Arrays, where: Where, n: int) -> None:
    """A feature index's keys: the template spec (names, parts within the
    attributes and positions), every attribute's vocabulary, and each
    feature's template and codes within them. The C++ tables check the rest
    (a value or a key given twice) when they are built."""
    names = {}
    for field in ("attributes", "positions"):
        items = meta.list(field)
        for i, v in enumerate(items):
            if not isinstance(v, str):
                meta.where.meta_fail(f"{meta.path}.{field}[{i}]", f"expected a string, got {describe(v)}")
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
                ok = ok and (isinstance(part, list) and len(part) == 3 and is_int(part[0]) and -1 <= part[0] < n_attr
                             and is_int(part[1]) and 0 <= part[1] < n_pos and (part[2] is None or isinstance(part[2], str)))
        if not ok:
            meta.where.meta_fail(path, f"expected [name, group, 1 to {_MAX_PARTS} parts [attribute (-1: flag) < "
                                       f"{n_attr}, position < {n_pos}, fallback or null]], got {describe(tp)}")
        attr_of.append([part[0] for part in tp[2]])
    blob = section(arrays, where, "values_blob", "|u1", (None,))
    offsets = section(arrays, where, "values_offsets", "<i8", (None,))
    check_pointers(offsets, blob.size, where, "values_offsets")
    check_strings(blob, offsets, where, "values_blob", "values_offsets")  # decoded when a name is asked for
    vocab_ptr = section(arrays, where, "vocab_ptr", "<i8", (n_attr + 1,))
    check_pointers(vocab_ptr, offsets.size - 1, where, "vocab_ptr")
    sizes = np.diff(vocab_ptr)
    attribute_of = np.repeat(np.arange(n_attr, dtype=np.int64), sizes)
    twice = repeated_string(blob, offsets, attribute_of)
    if twice >= 0:
        a = int(attribute_of[twice])
        value = blob[int(offsets[twice]):int(offsets[twice + 1])].tobytes()
        where.section_fail("values_blob", f"attribute {names['attributes'][a]!r} holds the value "
                                          f"{value.decode('utf-8', 'replace')!r} twice")
    template = section(arrays, where, "template", "<i4", (n,))
    check_range(template, 0, len(templates), where, "template")
    codes = section(arrays, where, "codes", "<i4", (n, _MAX_PARTS))
    # Per part, the largest code its attribute allows (a flag's code is 0, -1 past a template's parts).
    limit = np.full((max(len(templates), 1), _MAX_PARTS), -1, dtype=np.int64)
    low = np.full((max(len(templates), 1), _MAX_PARTS), -1, dtype=np.int64)
    for t, attrs in enumerate(attr_of):
        for p, a in enumerate(attrs):
            limit[t, p] = 0 if a == -1 else int(sizes[a]) - 1
            low[t, p] = 0
    for s, e in blocks(n):
        c = codes[s:e].astype(np.int64)
        bad = (c > limit[template[s:e]]) | (c < low[template[s:e]]) | ((low[template[s:e]] < 0) & (c != -1))
        if bad.any():
            f, p = np.argwhere(bad)[0]
            t = int(template[s + f])
            where.section_fail("codes", f"feature {s + int(f)}, part {int(p)}: code {int(codes[s + f, p])} is outside "
                                        f"[{int(low[t, p])}, {int(limit[t, p])}] (template {templates[t][0]!r})")
    if n > 1:
        order, same = _repeated_keys(template, codes, limit, len(templates))
        if same.size:
            f = sorted(order[same[0]:same[0] + 2].tolist())
            where.section_fail("codes", f"features {f[0]} and {f[1]} have the same template and codes")


def _repeated_keys(template: np.ndarray, codes: np.ndarray, limit: np.ndarray,
                   n_templates: int) -> Tuple[np.ndarray, np.ndarray]:
    """(order, positions in it) of features whose (template, codes) equal the next one's in that order:
    rows sorted by template, then codes, stably. Codes are within their limits already, so when
    their bit widths fit, each row is one int64 and one sort of them does (about 6x faster than a
    lexsort over the columns, whose order it equals)."""
    widths = [int(limit[:, p].max() + 1).bit_length() for p in range(codes.shape[1])]  # a code + 1 in [0, limit + 1]
    if n_templates.bit_length() + sum(widths) <= 63:
        key = template.astype(np.int64)
        for p, w in enumerate(widths):
            key <<= w
            key |= codes[:, p].astype(np.int64) + 1
        ordered = np.sort(key)  # no two equal (the usual case): no stable order needed
        if not (ordered[1:] == ordered[:-1]).any():
            return np.arange(key.size), np.zeros(0, dtype=np.int64)
        order = np.argsort(key, kind="stable")
        key = key[order]
        return order, np.flatnonzero(key[1:] == key[:-1])
    rows = np.concatenate([template.reshape(-1, 1), codes], axis=1)
    order = np.lexsort(rows.T[::-1])  # (np.unique with axis=0 took 7x as long)
    return order, np.flatnonzero(np.all(rows[order[1:]] == rows[order[:-1]], axis=1))


def optional_features(meta: Meta, arrays: Arrays, where: Where) -> Tuple[bool, int]:
    """(named, size) of an object's optional feature index; (False, 0) without one."""
    sub = meta.obj("features", optional=True)
    if sub is None:
        return False, 0
    return check_feature_index(sub, arrays, where.sub("features"))


def repeated_string(blob: np.ndarray, offsets: np.ndarray, group: np.ndarray) -> int:
    """The index of a string of ``blob`` (string k is ``blob[offsets[k]:offsets[k + 1]]``)
    equal to an earlier one of the same ``group`` (equal groups contiguous), or -1.
    One set of byte strings per group: C-level passes, faster on a pipeline's
    vocabularies than sorting them with numpy."""
    raw, bounds = blob.tobytes(), offsets.tolist()
    starts = [0, *(np.flatnonzero(np.diff(group)) + 1).tolist(), len(bounds) - 1]
    for a, b in zip(starts, starts[1:]):
        values = [raw[bounds[k]:bounds[k + 1]] for k in range(a, b)]
        if len(set(values)) != len(values):
            seen: Set[bytes] = set()
            for k, v in enumerate(values):
                if v in seen:
                    return int(a) + k
                seen.add(v)
    return -1
