"""The Japanese text pipeline in one C++ call per batch
(``_core.JapanesePipeline``): the texts' whitespace-free pieces as UTF-8 in,
the segmenter's boundary decisions, the tagger, the bunsetsu chunker and the
bunsetsu parser without returning to Python between them, arrays out. Python then
only turns label ids into tag strings (one table look-up per batch) and cuts
the flat lists into per-sentence :class:`~conjunct.analysis.result.Analysis`
objects. The stages are those each task runs alone, so the output is the one
of the stage-by-stage path (:meth:`JapaneseTextPipeline.analyze_reference`);
a test compares the two on real data."""

from __future__ import annotations

import gc
from typing import List, Optional, Sequence

import numpy as np

from .. import _core
from .._jobs import resolve_n_jobs
from ..tagging import PerceptronTagger
from ..tagging.features import token_buffers
from ..tasks.bunsetsu.runner import BunsetsuParser
from ..tasks.chunk.runner import YamchaChunker
from ..tasks.segment.runner import BoundaryClassifier, text_buffers
from .result import Analysis, collector_paused, split_joint_tag

__all__ = ["JapaneseEngine", "engine_for", "stage_arguments"]


def stage_arguments(key) -> dict:
    """The arguments of ``_core.JapanesePipeline`` for the stages (tagger,
    segmenter, chunker, parser runners): each classifier goes as its compiled
    handle, which carries its decision rule and classes."""
    tagger, segmenter, chunker, parser = key
    chunk_clf, parser_clf, segment_clf = chunker.classifier, parser.classifier, segmenter.classifier
    return dict(
        tag_features=tagger.compiled_features, chain=tagger.model_.compiled, method=tagger.decoder,
        beam_width=int(tagger.beam_width), tag_xpos=[split_joint_tag(t)[1] for t in tagger.labels_],
        chunk_tables=chunk_clf.features.keys.tables(), chunk_classes=[str(c) for c in chunk_clf.rule.classes],
        chunk_classifier=chunk_clf.compiled, chunk_early_exit=bool(chunker.early_exit),
        parser_tables=parser_clf.features.keys.tables(), parser_classifier=parser_clf.compiled, depends=1,
        parser_early_exit=bool(parser.early_exit), segment_features=segmenter.features,
        segment_classifier=segment_clf.compiled, segment_classes=[str(c) for c in segment_clf.rule.classes],
        segment_early_exit=bool(segmenter.early_exit))


class JapaneseEngine:
    """The C++ stages of one fitted pipeline (tagger, chunker, parser as they
    are now) and the segmenter's runner."""

    def __init__(self, nlp, key):
        self.key = key
        tagger, segmenter, chunker, parser = key
        split = [split_joint_tag(t) for t in tagger.labels_]
        self.upos = np.array([u for u, _ in split], dtype=object)
        self.xpos = np.array([x for _, x in split], dtype=object)
        self.segmenter = segmenter
        self.batch_size = int(getattr(nlp.segmenter, "batch_size", 4096))
        self.core = _core.JapanesePipeline(**stage_arguments(key))

    def analyze_texts(self, texts: Sequence[str], n_jobs: int = 1) -> List[Analysis]:
        """Checked raw texts (whitespace separates words and is dropped) -> analyses."""
        out: List[Analysis] = []
        threads = resolve_n_jobs(n_jobs)
        for k in range(0, len(texts), self.batch_size):
            pieces = [t.split() for t in texts[k:k + self.batch_size]]
            piece_ptr = np.zeros(len(pieces) + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)), out=piece_ptr[1:])
            blob, offsets = text_buffers([p for ps in pieces for p in ps])
            out.extend(self._results(self.core.analyze_pieces(text=blob, piece_offsets=offsets, piece_ptr=piece_ptr,
                                                              n_threads=threads)))
        return out

    def analyze_words(self, sentences: Sequence[Sequence[str]], n_jobs: int = 1) -> List[Analysis]:
        """Checked word sequences -> analyses."""
        text, offsets, sent_ptr = token_buffers(sentences)
        return self._results(self.core.analyze_words(text=text, offsets=offsets, sent_ptr=sent_ptr,
                                                     n_threads=resolve_n_jobs(n_jobs)))

    def _results(self, arrays) -> List[Analysis]:
        words, sent_ptr, tags, bunsetsu, heads, bunsetsu_ptr = arrays
        with collector_paused():
            upos, xpos = self.upos[tags].tolist(), self.xpos[tags].tolist()
            groups, heads = bunsetsu.tolist(), heads.tolist()
            sp, bp = sent_ptr.tolist(), bunsetsu_ptr.tolist()
            return [Analysis(words[a:b], upos[a:b], xpos[a:b], None, None, None, groups[a:b], heads[c:d])
                    for a, b, c, d in zip(sp, sp[1:], bp, bp[1:])]


def engine_for(nlp) -> Optional[JapaneseEngine]:
    """The engine of a fitted pipeline's current stages (rebuilt when one of
    them changed: a new classifier, another decoder), or None when a stage is
    one the engine does not run (an HMM tagger): the stage-by-stage path then
    serves."""
    tagger = nlp.tagger
    if not isinstance(tagger, PerceptronTagger) or getattr(tagger, "_features", None) is None:
        return None
    segmenter, chunker, parser = nlp.segmenter.runner(), nlp.bunsetsu.runner(), nlp.parser.runner()
    if not (isinstance(segmenter, BoundaryClassifier) and isinstance(chunker, YamchaChunker)
            and isinstance(parser, BunsetsuParser)):
        return None
    key = (tagger, segmenter, chunker, parser)
    state = (tagger.model_, tagger._features, tagger.labels_, tagger.decoder, tagger.beam_width)
    engine = nlp.__dict__.get("_engine")
    if engine is None or any(a is not b for a, b in zip(engine.key + engine.state[:3], key + state[:3])) \
            or engine.state[3:] != state[3:]:
        engine = JapaneseEngine(nlp, key)
        engine.state = state
        nlp.__dict__["_engine"] = engine
        # A loaded file leaves about a million strings in Python lists (feature
        # names, vocabularies) that the process's first full collection walks:
        # done here, at the end of loading, it does not land in the first batch.
        gc.collect()
    return engine
