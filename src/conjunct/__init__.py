"""conjunct: fast, exact NLP models with conjunctive features and many labels.

Polynomial-kernel and conjunctive-linear classifiers (PKB, PKI, PKE, split,
the feature sequence trie), training (passive-aggressive learning with kernel
slicing, the l1-regularised log-linear baseline), model import from LIBSVM /
SVMlight / TinySVM / opal / scikit-learn, sequence taggers with staggered
decoding, task pipelines (parsers, a chunker, a word segmenter), text
pipelines that chain them from raw text to analysis, and one
memory-mappable model file format.

The names below are the user-facing API. The models, the compiled
classifier, the data readers and ``load`` / ``save`` are imported with the
package; the estimators, importers, taggers and pipelines on first use, so
that ``import conjunct`` (and loading a model) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, List

from ._core import PolyKernel
from ._errors import ConjunctError, DataFormatError, ModelFormatError, UnknownFeaturesWarning
from .features.index import FeatureIndex, rows_to_csr
from .features.matrices import as_binary_csr
from .io.data import read_data, read_strings, read_svmlight, write_strings, write_svmlight
from .io.persistence import load, save
from .models.classifiers import Classifier
from .models.kernel import KernelModel
from .models.labels import DecisionRule
from .models.linear import ConjunctiveLinearModel

if TYPE_CHECKING:  # the names loaded on first use, as type checkers should see them
    from .analysis import EnglishTextPipeline, JapaneseTextPipeline, TextPipeline
    from .io.corpora import read_conll2000, read_conllu
    from .io.importers import from_sklearn, import_model
    from .io.rendering import render
    from .tagging import HMMTagger, PerceptronTagger
    from .tasks.bunsetsu import BunsetsuDependencyParser
    from .tasks.chunk import Chunker
    from .tasks.english import EnglishDependencyParser
    from .tasks.segment import WordSegmenter
    from .training import L1LogLinearClassifier, PAClassifier
    from .training.expand import expand

# The one place the version is written: the build reads it from here (pyproject.toml).
__version__ = "0.1.0"

# name -> module that defines it, imported on first access
_LAZY = {
    "PAClassifier": "conjunct.training",
    "L1LogLinearClassifier": "conjunct.training",
    "expand": "conjunct.training",
    "import_model": "conjunct.io.importers",
    "from_sklearn": "conjunct.io.importers",
    "PerceptronTagger": "conjunct.tagging",
    "HMMTagger": "conjunct.tagging",
    "BunsetsuDependencyParser": "conjunct.tasks.bunsetsu",
    "EnglishDependencyParser": "conjunct.tasks.english",
    "Chunker": "conjunct.tasks.chunk",
    "WordSegmenter": "conjunct.tasks.segment",
    "EnglishTextPipeline": "conjunct.analysis",
    "JapaneseTextPipeline": "conjunct.analysis",
    "TextPipeline": "conjunct.analysis",
    "read_conllu": "conjunct.io.corpora",
    "read_conll2000": "conjunct.io.corpora",
    "render": "conjunct.io.rendering",
}

__all__ = [
    # models and classifiers
    "KernelModel",
    "ConjunctiveLinearModel",
    "PolyKernel",
    "Classifier",
    "DecisionRule",
    "FeatureIndex",
    # training
    "PAClassifier",
    "L1LogLinearClassifier",
    "expand",
    # model files
    "load",
    "save",
    "import_model",
    "from_sklearn",
    # sequence labeling and pipelines
    "PerceptronTagger",
    "HMMTagger",
    "BunsetsuDependencyParser",
    "EnglishDependencyParser",
    "Chunker",
    "WordSegmenter",
    # text in, analysis out
    "TextPipeline",
    "EnglishTextPipeline",
    "JapaneseTextPipeline",
    "render",
    # data
    "read_data",
    "read_svmlight",
    "read_strings",
    "write_svmlight",
    "write_strings",
    "read_conllu",
    "read_conll2000",
    "as_binary_csr",
    "rows_to_csr",
    # errors
    "ConjunctError",
    "DataFormatError",
    "ModelFormatError",
    "UnknownFeaturesWarning",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'conjunct' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_LAZY))
