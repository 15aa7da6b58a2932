"""The taggers' sections in a model file (``check_tagger``: what
``PerceptronTagger`` and ``HMMTagger`` check before they are built)."""

from __future__ import annotations

import math

from ..io.validation import Arrays
from ..io.validation import Meta as _Meta
from ..io.validation import Where as _Where
from ..io.validation import check_finite as _check_finite
from ..io.validation import check_pointers as _check_pointers
from ..io.validation import check_range as _check_range
from ..io.validation import check_rows_ascending as _check_rows_ascending
from ..io.validation import check_strings as _check_strings
from ..io.validation import describe as _describe
from ..io.validation import is_number as _is_number
from ..io.validation import section as _section

__all__ = ["check_tagger"]


def _tagger(meta: _Meta, arrays: Arrays, where: _Where, kind: str) -> None:
    from .chain import DECODERS

    params = meta.obj("params")
    params.str("decoder", DECODERS)
    params.int("beam_width", 1, 1 << 30)
    if kind == "perceptron_tagger":
        params.int("n_iter", 1, 1 << 30)
        templates = params.list("templates", none=True)
        if templates is not None:
            if not all(isinstance(t, str) for t in templates):
                where.meta_fail("params.templates", "expected a list of template names")
            from .features import Featurizer

            try:
                Featurizer(templates)
            except ValueError as e:
                where.meta_fail("params.templates", str(e))
        for key in ("average", "shuffle"):
            params.bool(key)
        params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
        params.raw("verbose", optional=True)
        meta.list("train_log", optional=True)
        allowed = {"decoder", "beam_width", "n_iter", "templates", "average", "shuffle", "random_state", "verbose"}
    else:
        _hmm_smoothing(meta, params, where)
        allowed = {"decoder", "beam_width", "transition_smoothing", "emission_smoothing"}
    params.only(sorted(allowed))
    meta.str("tag_field", optional=True)
    labels = meta.list("labels")
    if not labels or not all(isinstance(y, str) and y for y in labels) or len(set(labels)) != len(labels):
        where.meta_fail("labels", "expected distinct non-empty label strings")
    L = len(labels)
    if kind == "perceptron_tagger":  # feature keys, checked next to the tagger's feature engine
        from ..features.checks import _feature_keys
        from .features import check_sections

        n_features = check_sections(meta, arrays, where, _section, _feature_keys)
    else:
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


check_tagger = _tagger
