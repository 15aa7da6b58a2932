"""Japanese raw text to analysis: word segmenter -> POS tagger (UPOS and
UniDic XPOS as one joint tag) -> bunsetsu chunker -> bunsetsu dependency
parser.

Bunsetsu segmentation from raw text is a chunking task: each word gets
``B-B`` (it starts a bunsetsu) or ``I-B`` from the YamCha-style
:class:`~conjunct.tasks.chunk.Chunker` over the words and predicted XPOS in a
+-2 window and its two previous decisions. (The table of
:class:`~conjunct.tasks.bunsetsu.BunsetsuSegmenter` reads the gold word
dependencies, which raw text does not have; it still derives the training
boundaries of GSD train, which does not mark them.)

Training (UD Japanese GSD, gold words): the segmenter on the words, the tagger
on their joint tags, and the bunsetsu chunker and the parser on jackknifed tags
(k folds, each tagged by a tagger trained on the others). Lemmas are not
predicted: the parser reads every word's lemma as its form, in training and on
text alike (its inflection feature is then always off).
"""

from __future__ import annotations

import sys
from typing import List, Optional, Sequence

from .._errors import DataFormatError
from ..io._textin import check_no_surrogates, has_surrogate
from ..tagging import JAPANESE_TEMPLATES, HMMTagger, PerceptronTagger
from ..tasks.base import shipped_layout
from ..tasks.bunsetsu import Bunsetsu, BunsetsuDependencyParser, BunsetsuSentence, Token
from ..tasks.chunk import Chunker
from ..tasks.segment import WordSegmenter
from .english import _accuracy, _check_tokens
from .jackknife import collect, fold_jobs, fold_of
from .japanese_engine import engine_for
from .result import JOINT, Analysis, split_joint_tag
from .schedule import Job, StageMeter, run_jobs, stage_report
from .stages import TextPipeline, check_stage, clone_stage

__all__ = ["JapaneseTextPipeline", "BUNSETSU_TAGS", "bunsetsu_sentence"]

#: Each stage's share of the training time (full GSD train, defaults), for the shared progress bar.
WEIGHTS = {"segmenter": 12.0, "tagger": 1.0, "parser": 8.0, "chunker": 2.0}

#: The bunsetsu chunker's tags: a word starts a bunsetsu, or continues one.
BUNSETSU_TAGS = ("B-B", "I-B")


def bunsetsu_sentence(forms: Sequence[str], upos: Sequence[str], xpos: Sequence[str], starts: Sequence[bool],
                      heads: Sequence[int] = ()) -> BunsetsuSentence:
    """A bunsetsu sentence of words (lemma = form; no word-level tree) cut
    where ``starts`` is true (the first word always starts one); ``heads`` are
    the bunsetsu heads when known (else -1)."""
    groups: List[Bunsetsu] = []
    for k, (form, u, x) in enumerate(zip(forms, upos, xpos)):
        if k == 0 or starts[k]:
            groups.append(Bunsetsu([]))
        groups[-1].tokens.append(Token(k + 1, form, form, u, x, 0, "_"))
    for b, h in zip(groups, heads):
        b.head = h
    return BunsetsuSentence(groups)


class JapaneseTextPipeline(TextPipeline):
    """Raw Japanese text -> words, UPOS/XPOS tags, bunsetsu and their dependencies.

    >>> nlp = JapaneseTextPipeline().fit(load_gsd_bunsetsu(gsd, "train"))   # doctest: +SKIP
    >>> nlp.analyze(["日本語の文です。"])[0].bunsetsu_heads                   # doctest: +SKIP

    Parameters
    ----------
    segmenter : WordSegmenter, optional
        Default ``WordSegmenter(**shipped_layout())`` (kernel splitting).
    tagger : PerceptronTagger or HMMTagger, optional
        Trained on joint ``UPOS|XPOS`` tags; default
        ``PerceptronTagger(templates=JAPANESE_TEMPLATES)``.
    bunsetsu : Chunker, optional
        The bunsetsu chunker (tags ``B-B`` / ``I-B``); default ``Chunker()``.
    parser : BunsetsuDependencyParser, optional
        Default ``BunsetsuDependencyParser(degree=2)``: on GSD dev from raw text its
        dependency F1 is 0.4 points below degree 3's, for a file, load time and
        memory several times smaller (docs/analysis.md).
    folds : int
        k of the jackknifed training tags (at least 2).
    random_state : int
        Seed of the assignment of sentences to folds.
    verbose : int
        Progress on standard error.
    """

    lang = "ja"
    STAGES = ("segmenter", "tagger", "bunsetsu", "parser")
    STAGE_TASKS = {"segmenter": "ja-segment", "tagger": None, "bunsetsu": "conll2000-chunk", "parser": "bunsetsu"}

    def __init__(self, segmenter=None, tagger=None, bunsetsu=None, parser=None, *, folds: int = 5,
                 random_state: int = 0, verbose: int = 0):
        self.segmenter = segmenter
        self.tagger = tagger
        self.bunsetsu = bunsetsu
        self.parser = parser
        self.folds = folds
        self.random_state = random_state
        self.verbose = verbose

    # -- training -------------------------------------------------------------------------------
    def fit(self, sentences: Sequence[BunsetsuSentence], *, n_jobs: Optional[int] = 1) -> "JapaneseTextPipeline":
        """Train every stage on gold bunsetsu sentences
        (:func:`conjunct.tasks.bunsetsu.load_gsd_bunsetsu`): their words, tags,
        bunsetsu boundaries and bunsetsu heads.

        Parameters
        ----------
        sentences : sequence of BunsetsuSentence
            Gold sentences.
        n_jobs : int or None
            Stages trained at once, in threads (-1: one per core): the
            segmenter, the jackknife folds' taggers, the final tagger, and the
            chunker and the parser once the folds are done. Every stage is the one a serial run
            trains. ``stats_["stages"]`` holds each stage's seconds and peak memory.
        """
        sentences = list(sentences)
        if not sentences:
            raise DataFormatError("no training sentences")
        segmenter = self.segmenter if self.segmenter is not None else WordSegmenter(**shipped_layout())
        tagger = self.tagger if self.tagger is not None else PerceptronTagger(templates=JAPANESE_TEMPLATES)
        chunker = self.bunsetsu if self.bunsetsu is not None else Chunker()
        parser = self.parser if self.parser is not None else BunsetsuDependencyParser(degree=2)
        check_stage(segmenter, "segmenter", (WordSegmenter,), "ja-segment")
        check_stage(tagger, "tagger", (PerceptronTagger, HMMTagger))
        check_stage(chunker, "bunsetsu", (Chunker,), "conll2000-chunk")
        check_stage(parser, "parser", (BunsetsuDependencyParser,), "bunsetsu")
        tokens = [[t for b in s.bunsetsu for t in b.tokens] for s in sentences]
        words = [[t.form for t in ts] for ts in tokens]
        gold = [[t.upos + JOINT + t.xpos for t in ts] for ts in tokens]
        starts = [[k == 0 for b in s.bunsetsu for k in range(len(b.tokens))] for s in sentences]
        del tokens
        self.stats_ = {}
        meter = StageMeter()
        folds = fold_of(len(words), self.folds, self.random_state)
        fold_names = [f"tagger, fold {f + 1}" for f in range(self.folds)]
        n = len(words)

        def jackknifed(done):
            predicted = collect([done[name] for name in fold_names], n)
            self.stats_["jackknife_accuracy"] = _accuracy(predicted, gold)
            jack = []
            for s, ws, tags, st in zip(sentences, words, predicted, starts):
                upos, xpos = (list(c) for c in zip(*map(split_joint_tag, tags)))
                jack.append(bunsetsu_sentence(ws, upos, xpos, st, [b.head for b in s.bunsetsu]))
            chunks = [[(t.form, t.xpos, BUNSETSU_TAGS[k > 0]) for b in s.bunsetsu for k, t in enumerate(b.tokens)]
                      for s in jack]
            return jack, chunks

        # The chunker and parser need the folds only, not the segmenter: they start
        # as soon as the folds are done, the segmenter still training beside them.
        mb = n / 1000 * 2**20  # the memory estimates are per 1,000 sentences (GSD train, defaults)
        parser_mb = 480 if parser.degree >= 3 else 120
        jobs = [Job("segmenter", lambda: segmenter.fit(words), WEIGHTS["segmenter"], memory=170 * mb)]
        jobs += [Job(name, call, WEIGHTS["tagger"], memory=20 * mb)
                 for name, (_, call) in zip(fold_names, fold_jobs(lambda: clone_stage(tagger), words, gold, folds))]
        jobs += [Job("jackknifed sentences", jackknifed, 0.1, after=tuple(fold_names), memory=10 * mb),
                 Job("parser", lambda d: parser.fit(d["jackknifed sentences"][0]), WEIGHTS["parser"],
                     after=("jackknifed sentences",), memory=parser_mb * mb),
                 Job("bunsetsu chunker", lambda d: chunker.fit(d["jackknifed sentences"][1]), WEIGHTS["chunker"],
                     after=("jackknifed sentences",), memory=50 * mb),
                 Job("tagger", lambda: tagger.fit(words, gold), WEIGHTS["tagger"], memory=20 * mb)]
        with meter.stage("training"):
            done = run_jobs(jobs, n_jobs, meter=meter, desc="training the stages")
        self.segmenter, self.tagger, self.folds_ = done["segmenter"], done["tagger"], folds
        self.bunsetsu, self.parser = done["bunsetsu chunker"], done["parser"]
        del done
        self._say(f"jackknifed tags: accuracy {self.stats_['jackknife_accuracy']:.4f} ({self.folds} folds)")
        self.stats_["stages"] = meter.rows
        if self.verbose:
            self._say(stage_report(meter.rows))
        return self

    def _say(self, text: str) -> None:
        if self.verbose:
            print(text, file=sys.stderr, flush=True)

    # -- analysis ---------------------------------------------------------------------------------
    def segment(self, texts: Sequence[str]) -> List[List[str]]:
        """The words of every text; whitespace separates words and is dropped."""
        self._check_fitted()
        texts = _check_texts(texts)
        self._check_memory(texts, "characters")
        pieces = [t.split() for t in texts]
        flat = self.segmenter.segment([p for ps in pieces for p in ps])
        out, k = [], 0
        for ps in pieces:
            out.append([w for words in flat[k:k + len(ps)] for w in words])
            k += len(ps)
        return out

    def analyze(self, texts: Sequence[str], *, n_jobs: int = 1) -> List[Analysis]:
        """Words, tags, bunsetsu and bunsetsu dependencies of raw texts.

        Parameters
        ----------
        texts : sequence of str
            One sentence each.
        n_jobs : int
            Threads for the stages after the segmenter (they share the models).

        Returns
        -------
        list of Analysis
        """
        self._check_fitted()
        texts = _check_texts(texts)
        self._check_memory(texts, "characters")
        engine = engine_for(self)
        if engine is None:
            return self.analyze_reference(texts)
        return engine.analyze_texts(texts, n_jobs)

    def analyze_words(self, sentences: Sequence[Sequence[str]], *, n_jobs: int = 1) -> List[Analysis]:
        """The stages after the segmenter, on segmented sentences (gold words, for evaluation)."""
        self._check_fitted()
        sentences = _check_tokens(sentences, "analyze_words()")
        self._check_memory(sentences, "words")
        engine = engine_for(self)
        if engine is None:
            return self._analyze_words_reference(sentences)
        return engine.analyze_words(sentences, n_jobs)

    def analyze_reference(self, texts: Sequence[str]) -> List[Analysis]:
        """:meth:`analyze` stage by stage, each stage's output going through
        Python (words, tags, :class:`BunsetsuSentence` objects): what the
        one-call path is tested against, and the path of stages it does not run."""
        self._check_fitted()
        return self._analyze_words_reference(self.segment(texts))

    def _analyze_words_reference(self, sentences: Sequence[Sequence[str]]) -> List[Analysis]:
        out = []
        for words, tags in zip(sentences, self.tagger.predict(sentences)):
            upos, xpos = (list(c) for c in zip(*map(split_joint_tag, tags)))
            out.append(Analysis(words, upos, xpos))
        chunks = self.bunsetsu.chunk([list(zip(a.forms, a.xpos)) for a in out])
        bsents = [bunsetsu_sentence(a.forms, a.upos, a.xpos, [c.startswith("B") for c in cs]) for a, cs in zip(out, chunks)]
        for a, b, heads in zip(out, bsents, self.parser.parse(bsents)):
            a.bunsetsu = [k for k, bs in enumerate(b.bunsetsu) for _ in bs.tokens]
            a.bunsetsu_heads = list(heads)
        return out

    def bunsetsu_sentences(self, texts: Sequence[str]) -> List[BunsetsuSentence]:
        """The bunsetsu sentences the parser reads for raw ``texts`` (words, tags
        and bunsetsu all predicted): events for an fstrie built from raw text."""
        return [bunsetsu_sentence(a.forms, a.upos, a.xpos, [k == 0 or a.bunsetsu[k] != a.bunsetsu[k - 1]
                                                            for k in range(len(a))]) for a in self.analyze(texts)]


def _check_texts(texts) -> List[str]:
    if isinstance(texts, str):
        raise TypeError("analyze() takes a sequence of texts; wrap a single text in a list")
    texts = list(texts)
    for k, t in enumerate(texts):
        if not isinstance(t, str):
            raise DataFormatError(f"text {k + 1}: expected a string, got {type(t).__name__}")
        if not t.strip():
            raise DataFormatError(f"text {k + 1} is empty")
        if has_surrogate(t):
            check_no_surrogates(t, f"text {k + 1}")
    return texts
