"""Training with conjunctive features.

- :class:`PAClassifier`: online perceptron / PA / PA-I / PA-II with the
  polynomial kernel (Crammer et al. 2006), binary and multi-class, averaged,
  with four margin modes that train the same model: ``"kernel"`` (PKI over the
  growing support set), ``"expanded"`` (explicit weights of every
  conjunction), ``"split"`` (explicit weights for the N most frequent features,
  kernel for the rest) and ``"slicing"`` (kernel slicing with reuse of partial
  margins and early termination; Yoshinaga & Kitsuregawa 2010). The result is a
  :class:`~conjunct.models.kernel.KernelModel` that every classifier accepts.
- :class:`L1LogLinearClassifier`: the l1-regularised log-linear baseline over
  explicit conjunctions (SGD with cumulative l1 penalty, Tsuruoka et al. 2009),
  giving a :class:`~conjunct.models.linear.ConjunctiveLinearModel`.
- :func:`expand`: the explicit weights of a kernel model (kernel expansion),
  as a :class:`~conjunct.models.linear.ConjunctiveLinearModel`.

Both estimators follow scikit-learn's conventions (parameters stored verbatim,
fitted attributes ending in ``_``, ``get_params`` / ``set_params``, ``clone``,
pickle) without requiring scikit-learn. Inputs are scipy sparse matrices (any
index dtype), dense 0/1 arrays, or lists of feature lists (strings, through a
:class:`~conjunct.features.index.FeatureIndex` built from the training data, or
integer column ids).

The package: ``base`` (the scikit-learn conventions and what the online
estimators share: epochs, progress, pickling of the C++ trainer),
``encoding`` (features and labels -> the trainers' internal ids),
``checks`` (parameter validation), ``pa`` (:class:`PAClassifier`), ``l1``
(:class:`L1LogLinearClassifier`) and ``expand`` (:func:`expand`).
"""

from .base import not_fitted_error
from .expand import expand
from .l1 import L1LogLinearClassifier
from .pa import LEARNERS, MARGINS, PAClassifier, default_common_features

__all__ = ["PAClassifier", "L1LogLinearClassifier", "NotFittedError", "expand", "LEARNERS", "MARGINS", "default_common_features"]


def __getattr__(name: str):
    if name == "NotFittedError":  # built on first use: it may import scikit-learn
        return not_fitted_error()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
