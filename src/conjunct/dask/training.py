"""One entry point for distributed training: the estimator says which mixing applies."""

from __future__ import annotations

from typing import Optional

from .._errors import ConjunctError

__all__ = ["train"]


def train(estimator, *data, client, n_shards: Optional[int] = None, mix: str = "uniform"):
    """Fit ``estimator`` on ``data`` by iterative parameter mixing on a Dask cluster.

    Parameters
    ----------
    estimator : PerceptronTagger or PAClassifier
        Fitted in place (see :func:`~conjunct.dask.train_tagger` and
        :func:`~conjunct.dask.train_classifier`).
    *data
        What its ``fit`` takes: ``sentences, tags`` or ``X, y``.
    client : distributed.Client or str
        The cluster (see :func:`~conjunct.dask.connect`).
    n_shards : int, optional
        Shards (default: one per worker).
    mix : {"uniform", "size"}
        Weight the shards equally or by their examples.

    Returns
    -------
    estimator
    """
    from ..tagging.taggers import PerceptronTagger
    from ..training import PAClassifier
    from .mixing import train_tagger
    from .mixing_kernel import train_classifier

    if isinstance(estimator, PerceptronTagger):
        return train_tagger(estimator, *data, client=client, n_shards=n_shards, mix=mix)
    if isinstance(estimator, PAClassifier):
        return train_classifier(estimator, *data, client=client, n_shards=n_shards, mix=mix)
    raise ConjunctError(f"distributed training takes a PerceptronTagger or a PAClassifier, not a "
                        f"{type(estimator).__name__}")
