"""Dask collections through a saved model: a ``dask.bag`` of items, or a dask
DataFrame column (Series) of texts, each partition predicted on a worker that
holds the model once (by path, memory-mapped)."""

from __future__ import annotations

import os
from typing import Optional

from .._errors import ConjunctError
from ._cluster import require_distributed
from ._shared import check_model, model_digest, shared_model

__all__ = ["predict"]


def _items(partition, split: bool):
    items = list(partition)
    if split:
        for k, item in enumerate(items):
            if not isinstance(item, str):
                raise ConjunctError(f"split=True needs texts, item {k} of a partition is a {type(item).__name__}")
        items = [item.split() for item in items]
    return items


def _predict_partition(partition, model: str, split: bool, kwargs: dict, digest: Optional[bytes] = None) -> list:
    items = _items(partition, split)
    if not items:
        return []
    out = list(shared_model(model, digest).predict(items, **kwargs))
    if digest is not None:
        check_model(model, digest)  # the file replaced while this partition ran: not this graph's model
    return out


def _predict_series(series, model: str, split: bool, kwargs: dict, digest: Optional[bytes] = None):
    import pandas as pd

    return pd.Series(_predict_partition(series, model, split, kwargs, digest), index=series.index, dtype=object,
                     name=series.name)


def predict(model, collection, *, split: Optional[bool] = None, **kwargs):
    """``obj.predict`` over a Dask collection, partition by partition.

    The task graph holds the model's path, never the model: each worker loads
    the file once (:func:`~conjunct.dask.shared_model`) and every partition it
    gets is predicted with that copy. The graph pins the model the file holds
    when it is built (its content digest): a partition that finds another
    model in the file raises :class:`~conjunct.dask.ModelChangedError`.

    Parameters
    ----------
    model : str or os.PathLike
        Model file (a tagger, a pipeline, a classifier), readable by every worker at this path.
    collection : dask.bag.Bag or dask.dataframe.Series
        Items ``obj.predict`` takes (token lists for a tagger, texts for a
        segmenter, ...), or texts to split on whitespace (``split``).
    split : bool, optional
        Split each item (a text) on whitespace first; by default only for a
        Series of texts.
    **kwargs
        Passed to ``obj.predict`` (``decoder=``, ``n_jobs=``, ...).

    Returns
    -------
    dask.bag.Bag or dask.dataframe.Series
        The predictions, lazily, partition for partition (same index for a Series).
    """
    require_distributed()
    import dask.bag as db

    model = os.path.abspath(os.fspath(model))
    if isinstance(collection, db.Bag):
        return collection.map_partitions(_predict_partition, model, bool(split), kwargs, model_digest(model))
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask without its dataframe extra
        dd = None
    if dd is not None and isinstance(collection, dd.Series):
        return collection.map_partitions(_predict_series, model, True if split is None else bool(split), kwargs,
                                         model_digest(model), meta=(collection.name, object))
    raise ConjunctError(f"predict takes a dask.bag.Bag or a dask DataFrame column (Series), not a "
                        f"{type(collection).__name__}")
