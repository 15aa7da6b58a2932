"""conjunct: fast, exact NLP models with conjunctive features and many labels.

Polynomial-kernel and conjunctive-linear classifiers (PKB, PKI, ...), model
import from LIBSVM / SVMlight / TinySVM / opal / scikit-learn, and one
memory-mappable model file format.
"""

from ._core import PolyKernel
from ._errors import ConjunctError, DataFormatError, ModelFormatError
from .classifiers import Classifier
from .data import as_binary_csr, read_data, read_strings, read_svmlight, write_strings, write_svmlight
from .features import FeatureIndex, rows_to_csr
from .labels import DecisionRule
from .linear import ConjunctiveLinearModel
from .models import KernelModel
from .persistence import load, save

# The one place the version is written: the build reads it from here (pyproject.toml).
__version__ = "0.1.0"

__all__ = [
    "Classifier",
    "ConjunctError",
    "ConjunctiveLinearModel",
    "DataFormatError",
    "DecisionRule",
    "FeatureIndex",
    "KernelModel",
    "ModelFormatError",
    "PolyKernel",
    "as_binary_csr",
    "load",
    "read_data",
    "read_strings",
    "read_svmlight",
    "rows_to_csr",
    "save",
    "write_strings",
    "write_svmlight",
]
