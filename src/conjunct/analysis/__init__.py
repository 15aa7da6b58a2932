"""Text in, analysis out: chains of the taggers, segmenter, chunker and parsers
that read raw or tokenized text, saved as one model file.

- :class:`EnglishTextPipeline`: (raw text -> tokens and sentences ->) tokens ->
  UPOS/XPOS -> dependency trees and chunks.
- :class:`JapaneseTextPipeline`: raw text -> words -> UPOS/XPOS -> bunsetsu ->
  bunsetsu dependencies.

Downstream stages are trained on jackknifed (k-fold predicted) tags.
:func:`read_text` and :func:`analyze_stream` take a file through a pipeline to
CoNLL-U (``conjunct analyze``).

Modules: ``stages`` (the shared base: stages, swapping, the file), ``jackknife``,
``result`` (one analysed sentence), ``textio`` (input and CoNLL-U), ``rawtext``
(raw English paragraphs through the tokenizer, offsets kept), ``english``,
``japanese``, ``metrics`` (end-to-end scores against gold).
"""

from .english import EnglishTextPipeline
from .japanese import JapaneseTextPipeline
from .jackknife import fold_of, jackknife_tags
from .result import Analysis
from .stages import TextPipeline
from .textio import analyze_stream, read_text

__all__ = [
    "TextPipeline",
    "EnglishTextPipeline",
    "JapaneseTextPipeline",
    "Analysis",
    "jackknife_tags",
    "fold_of",
    "read_text",
    "analyze_stream",
]
