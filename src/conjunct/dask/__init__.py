"""conjunct on a Dask cluster (``pip install 'conjunct[dask]'``).

- :func:`map_files` / :func:`run_action`: files processed in pieces of whole
  sentences by any saved tagger or pipeline, outputs joined in order
  (byte-identical to serial processing); ``--scheduler`` in the CLI.
- :func:`predict`: a ``dask.bag`` or a dask DataFrame column through a model.
- :func:`train` (:func:`train_tagger`, :func:`train_classifier`): a
  perceptron tagger or a PAClassifier (kernel model) trained by iterative
  parameter mixing.

Models travel as paths, never inside the task graph: each worker process loads
a file once, memory-mapped (:func:`shared_model`), so workers on one machine
share the model's pages. Importing this module does not import dask; its
functions do, and say how to install it when it is missing.
"""

from ._cluster import connect, n_workers
from ._pieces import split_ranges
from ._shared import ModelChangedError, model_digest, shared_model
from .collections import predict
from .files import map_files, run_action
from .mixing import MIXES, mix_states, train_tagger
from .mixing_kernel import mix_supports, train_classifier
from .training import train

__all__ = ["connect", "n_workers", "shared_model", "model_digest", "ModelChangedError", "predict", "map_files",
           "run_action", "split_ranges",
           "train", "train_tagger", "train_classifier", "mix_states", "mix_supports", "MIXES"]
