"""English text to analysis: (raw text -> tokenizer and sentence splitter ->)
tokens -> POS tagger (UPOS and XPOS as one joint
tag) -> arc-eager dependency parser and YamCha chunker, both reading the
predicted tags.

The parser is trained on UD English EWT with jackknifed tags (each fold of the
training sentences tagged by a tagger trained on the other folds), so it learns
from tags as noisy as the ones it reads on new text. The chunker is trained on
CoNLL-2000 (WSJ) when chunk data is given: the pipeline's tagger never saw
those sentences, so its predictions on them are already held-out tags (EWT
has no chunk annotation; the chunker's XPOS input is the PTB tag set both
corpora share). The tokenizer is trained on the treebank's raw text (its
``# text`` lines, SpaceAfter=No and multiword tokens) when that is given.
"""

from __future__ import annotations

import sys
from itertools import chain
from typing import List, Optional, Sequence

import numpy as np

from .._errors import ConjunctError, DataFormatError
from ..io._textin import check_no_surrogates, has_surrogate
from ..tagging import HMMTagger, PerceptronTagger
from ..tagging.features import token_buffers
from ..tasks.base import shipped_layout
from ..tasks.chunk import Chunker
from ..tasks.english import DepSentence, EnglishDependencyParser
from ..tasks.tokenize import EnglishTokenizer
from .jackknife import collect, fold_jobs, fold_of
from .result import JOINT, Analysis, collector_paused, split_joint_tag
from .schedule import Job, StageMeter, run_jobs, stage_report
from .stages import TextPipeline, check_stage, clone_stage

__all__ = ["EnglishTextPipeline"]

#: Each stage's share of the training time (full EWT train, defaults), for the shared progress bar.
WEIGHTS = {"tokenizer": 20.0, "tagger": 1.0, "parser": 15.0, "chunker": 2.0}


class EnglishTextPipeline(TextPipeline):
    """English raw or tokenized text -> tokens and sentences, UPOS/XPOS tags,
    dependency trees and chunks.

    >>> nlp = EnglishTextPipeline(folds=5).fit(read_ud_english("en_ewt-ud-train.conllu"),
    ...                                        chunk_data=read_conll2000("train.txt"))   # doctest: +SKIP
    >>> nlp.analyze([["The", "dog", "barked", "."]])[0].heads                           # doctest: +SKIP

    Parameters
    ----------
    tagger : PerceptronTagger or HMMTagger, optional
        The POS tagger; it is trained on joint ``UPOS|XPOS`` tags. Default
        ``PerceptronTagger()``.
    parser : EnglishDependencyParser, optional
        Default ``EnglishDependencyParser(**shipped_layout())`` (degree 2, kernel splitting).
    chunker : Chunker, optional
        Default ``Chunker()``; trained only when :meth:`fit` gets chunk data,
        else the fitted pipeline has no chunker.
    tokenizer : EnglishTokenizer, optional
        Tokenizer and sentence splitter of raw text (:meth:`analyze_text`).
        Default ``EnglishTokenizer(**shipped_layout())``; trained only when :meth:`fit` gets raw
        text, else the fitted pipeline reads tokenized text only.
    folds : int
        k of the jackknifed training tags (at least 2).
    random_state : int
        Seed of the assignment of sentences to folds.
    verbose : int
        Progress on standard error.
    """

    lang = "en"
    STAGES = ("tokenizer", "tagger", "parser", "chunker")
    OPTIONAL = ("tokenizer", "chunker")
    STAGE_TASKS = {"tokenizer": "en-tokenize", "tagger": None, "parser": "ud-english", "chunker": "conll2000-chunk"}

    def __init__(self, tagger=None, parser=None, chunker=None, tokenizer=None, *, folds: int = 5, random_state: int = 0,
                 verbose: int = 0):
        self.tokenizer = tokenizer
        self.tagger = tagger
        self.parser = parser
        self.chunker = chunker
        self.folds = folds
        self.random_state = random_state
        self.verbose = verbose

    # -- training -------------------------------------------------------------------------------
    def fit(self, sentences: Sequence[DepSentence], *, chunk_data: Optional[Sequence] = None,
            raw_text: Optional[Sequence] = None, n_jobs: Optional[int] = 1) -> "EnglishTextPipeline":
        """Train every stage: the tagger on gold ``UPOS|XPOS`` of ``sentences``,
        the parser on their trees with jackknifed tags, (with ``chunk_data``,
        CoNLL-2000 ``(word, POS, chunk)`` sentences) the chunker on the
        tagger's XPOS for those words, and (with ``raw_text``) the tokenizer.

        Parameters
        ----------
        sentences : sequence of DepSentence
            Gold treebank sentences (:func:`conjunct.tasks.english.read_ud_english`).
        chunk_data : sequence of token tuples, optional
            Chunk-annotated sentences (:func:`conjunct.read_conll2000`).
        raw_text : sequence of TokenizedText, optional
            Gold tokenized paragraphs
            (:func:`conjunct.tasks.tokenize.read_tokenized_conllu` of the same
            treebank).
        n_jobs : int or None
            Stages trained at once, in threads (-1: one per core): the
            tokenizer, the jackknife folds' taggers and the final tagger, the
            parser once the folds are done and the chunker once the tagger is.
            Every stage is the one a serial run
            trains. ``stats_["stages"]`` holds each stage's seconds and peak memory.
        """
        sentences = list(sentences)
        if not sentences:
            raise DataFormatError("no training sentences")
        for k, s in enumerate(sentences):
            if s.heads is None:
                raise DataFormatError(f"sentence {k + 1}: training needs gold HEAD and DEPREL")
        tagger = self.tagger if self.tagger is not None else PerceptronTagger()
        # Not an fstrie: with sparse rows the multi-output classifiers of the parser and the tokenizer
        # decide as fast through PKE (measured on EWT dev), and through kernel splitting in fewer bytes.
        parser = self.parser if self.parser is not None else EnglishDependencyParser(**shipped_layout())
        chunker = self.chunker if self.chunker is not None else Chunker()
        tokenizer = self.tokenizer if self.tokenizer is not None else EnglishTokenizer(**shipped_layout())
        check_stage(tokenizer, "tokenizer", (EnglishTokenizer,), "en-tokenize")
        check_stage(tagger, "tagger", (PerceptronTagger, HMMTagger))
        check_stage(parser, "parser", (EnglishDependencyParser,), "ud-english")
        check_stage(chunker, "chunker", (Chunker,), "conll2000-chunk")
        words = [s.forms for s in sentences]
        gold = [[u + JOINT + x for u, x in zip(s.upos, s.xpos)] for s in sentences]
        self.stats_ = {}
        meter = StageMeter()
        folds = fold_of(len(words), self.folds, self.random_state)
        fold_names = [f"tagger, fold {f + 1}" for f in range(self.folds)]
        mb = len(words) / 1000 * 2**20  # the memory estimates are per 1,000 sentences (EWT train, defaults)
        jobs = []
        if raw_text is not None:
            raw_text = list(raw_text)
            jobs.append(Job("tokenizer", lambda: tokenizer.fit(raw_text), WEIGHTS["tokenizer"], memory=200 * mb))
        jobs += [Job(name, call, WEIGHTS["tagger"], memory=15 * mb)
                 for name, (_, call) in zip(fold_names, fold_jobs(lambda: clone_stage(tagger), words, gold, folds))]

        def jackknifed(done):
            predicted = collect([done[name] for name in fold_names], len(words))
            self.stats_["jackknife_accuracy"] = _accuracy(predicted, gold)
            return [DepSentence(s.forms, *map(list, zip(*map(split_joint_tag, p))), s.heads, s.labels)
                    for s, p in zip(sentences, predicted)]

        # The parser needs the folds only, the chunker the final tagger only: each starts when they are done.
        jobs += [Job("jackknifed sentences", jackknifed, 0.1, after=tuple(fold_names), memory=5 * mb),
                 Job("parser", lambda d: parser.fit(d["jackknifed sentences"]), WEIGHTS["parser"],
                     after=("jackknifed sentences",), memory=100 * mb),
                 Job("tagger", lambda: tagger.fit(words, gold), WEIGHTS["tagger"], memory=15 * mb)]
        if chunk_data is not None:
            chunk_data = list(chunk_data)

            def fit_chunker(done):
                final = done["tagger"]
                xpos = [[split_joint_tag(t)[1] for t in tags] for tags in final.predict([[t[0] for t in s] for s in chunk_data])]
                self.stats_["chunk_tag_accuracy"] = _accuracy(xpos, [[t[1] for t in s] for s in chunk_data])
                return chunker.fit([[(t[0], x, t[2]) for t, x in zip(s, xs)] for s, xs in zip(chunk_data, xpos)])

            jobs.append(Job("chunker", fit_chunker, WEIGHTS["chunker"], after=("tagger",), memory=20 * mb))
        with meter.stage("training"):
            done = run_jobs(jobs, n_jobs, meter=meter, desc="training the stages")
        self.tokenizer, self.tagger, self.folds_ = done.get("tokenizer"), done["tagger"], folds
        self.parser, self.chunker = done["parser"], done.get("chunker")
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
    def tag(self, sentences: Sequence[Sequence[str]]) -> List[List[str]]:
        """Joint ``UPOS|XPOS`` tags of tokenized sentences."""
        self._check_fitted()
        sentences = _check_tokens(sentences, "tag()")
        self._check_memory(sentences)
        return self.tagger.predict(sentences)

    def _xpos(self, sentences) -> List[List[str]]:
        return [[split_joint_tag(t)[1] for t in tags] for tags in self.tagger.predict(sentences)]

    def analyze(self, sentences: Sequence[Sequence[str]]) -> List[Analysis]:
        """Tags, dependency trees and (with a chunker) chunks of tokenized sentences.

        Parameters
        ----------
        sentences : sequence of list of str
            Tokenized sentences.

        Returns
        -------
        list of Analysis
        """
        self._check_fitted()
        sentences = _check_tokens(sentences)
        self._check_memory(sentences)
        if not sentences:
            return []
        # The tagger and the parser on its tags (UPOS / XPOS ids by a table per tagger label), one C++ call
        # over one UTF-8 buffer, arrays out: no Python step per token.
        tagger = self.tagger
        text, offsets, ptr = token_buffers(sentences)
        upos_of, upos_names, xpos_of, xpos_names = self._tag_tables()
        runner = self.parser.runner()
        if isinstance(tagger, PerceptronTagger):
            tags, heads, labels = runner.tag_and_parse(tagger, text, offsets, ptr, upos_of, upos_names, xpos_of,
                                                       xpos_names)
        else:  # a tagger without compiled token features (HMM): its own call, then the parser's
            tags = np.asarray(tagger._tag(sentences, tagger.decoder, tagger.beam_width, 1)[0], dtype=np.int64)
            heads, labels = runner.parse_tagged_arrays(text.tobytes(), offsets, ptr, upos_of[tags], upos_names,
                                                       xpos_of[tags], xpos_names)
        upos_str, xpos_str = self._tag_split[5:]
        with collector_paused():
            cuts = ptr.tolist()
            heads = heads.tolist()
            labels = runner._label_objects[labels].tolist()
            upos = upos_str[tags].tolist()
            xpos = xpos_str[tags].tolist()
            # The checked sentences are lists of our own: each becomes its analysis' forms as it is.
            out = [Analysis(forms, upos[a:b], xpos[a:b], heads[a:b], labels[a:b])
                   for forms, a, b in zip(sentences, cuts, cuts[1:])]
        if self.chunker is not None:
            for a, chunks in zip(out, self.chunker.chunk([list(zip(a.forms, a.xpos)) for a in out])):
                a.chunks = list(chunks)
        return out

    def _tag_tables(self):
        """Per joint tag id of the tagger, its UPOS and XPOS ids, and the two
        name lists (built once per tagger; ``_tag_split[5:]`` then holds each
        label's UPOS and XPOS strings)."""
        labels = tuple(self.tagger.labels_)
        cached = getattr(self, "_tag_split", None)
        if cached is None or cached[0] != labels:
            pairs = [split_joint_tag(t) for t in labels]
            upos_names = sorted({u for u, _ in pairs})
            xpos_names = sorted({x for _, x in pairs})
            u_index = {u: k for k, u in enumerate(upos_names)}
            x_index = {x: k for k, x in enumerate(xpos_names)}
            cached = self._tag_split = (labels, np.asarray([u_index[u] for u, _ in pairs], dtype=np.int32), upos_names,
                                        np.asarray([x_index[x] for _, x in pairs], dtype=np.int32), xpos_names,
                                        np.asarray([u for u, _ in pairs], dtype=object),
                                        np.asarray([x for _, x in pairs], dtype=object))
        return cached[1:5]

    def tokenize(self, texts: Sequence[str]):
        """Tokens, words and sentences of raw texts (:class:`~conjunct.tasks.tokenize.TokenizedText`)."""
        self._check_fitted()
        if self.tokenizer is None:
            raise ConjunctError("this EnglishTextPipeline has no tokenizer (it was trained without raw text): "
                                "it reads tokenized text only")
        return self.tokenizer.tokenize(texts)

    def analyze_text(self, texts: Sequence[str]) -> List[List[Analysis]]:
        """The analyses of the sentences of raw texts (paragraphs of any length).

        Parameters
        ----------
        texts : sequence of str
            Raw text; each one is cut into sentences (a text with no
            non-whitespace character has none).

        Returns
        -------
        list of list of Analysis
            Per text, its sentences; each knows its tokens' offsets in the text
            (``tokens``), the whitespace after each (``spaces_after``) and
            before the first (``spaces_before``), so the text can be rebuilt.
        """
        tokenized = self.tokenize(texts)
        sentences = [ws for t in tokenized for ws in t.sentence_words()]
        flat = iter(self.analyze(sentences) if sentences else [])
        out: List[List[Analysis]] = []
        for t in tokenized:
            mine = []
            for a, b in t.sentences():
                an = next(flat)
                an.tokens = [(s, e, len(w)) for (s, e), w in zip(t.spans[a:b], t.words[a:b])]
                nexts = [s for s, _ in t.spans[a + 1:b + 1]] + ([] if b < len(t.spans) else [len(t.text)])
                an.spaces_after = [t.text[e:n] for (_, e), n in zip(t.spans[a:b], nexts)]
                an.spaces_before = t.text[:t.spans[0][0]] if a == 0 else ""
                mine.append(an)
            out.append(mine)
        return out


def _check_tokens(sentences, what: str = "analyze()") -> list:
    """The sentences as new lists of tokens, checked: a TypeError or a
    DataFormatError naming the first sentence (and token) that is not a list
    of non-empty strings without whitespace or lone surrogates."""
    if isinstance(sentences, (str, bytes)):
        raise TypeError(f"{what} takes a sequence of tokenized sentences (lists of str)")
    items = list(sentences)
    out = []
    for s in items:
        if isinstance(s, (str, bytes)):
            break
        try:
            s = list(s)
        except TypeError:
            break
        if not s:
            break
        out.append(s)
    # Every token at once (a few C passes over the batch); on a failure the
    # sentences are checked one by one, which names the first bad one.
    if len(out) == len(items):
        words = list(chain.from_iterable(out))
        try:
            joined = "".join(words)
            joined.encode("utf-8")  # strict UTF-8 refuses a lone surrogate
            if all(words) and joined.split() == [joined]:  # without whitespace, split() gives the text back
                return out
        except (TypeError, UnicodeEncodeError):
            pass
    # (The lists made so far stand for their sentences: an iterator is read once.)
    return [_checked_sentence(s, k, what) for k, s in enumerate(out + items[len(out):])]


def _checked_sentence(s, k: int, what: str) -> list:
    if isinstance(s, (str, bytes)):
        # A list of strings is one sentence's tokens only inside another list: never split a string into characters.
        raise DataFormatError(f"sentence {k + 1} is a string ({s[:40]!r}), not a list of tokens: {what} takes "
                              "tokenized sentences, e.g. [['The', 'dog', 'barked', '.']]")
    try:
        s = list(s)
    except TypeError:
        raise DataFormatError(f"sentence {k + 1}: expected a list of tokens (str), got {type(s).__name__}") from None
    if not s:
        raise DataFormatError(f"sentence {k + 1} is empty")
    try:
        joined = " ".join(s)
        ok = joined.split() == s  # one C pass: no empty token, none with whitespace (tab, newline)
    except TypeError:
        ok = False
    if not ok:
        i, w = next((i, w) for i, w in enumerate(s) if not isinstance(w, str) or w.split() != [w])
        raise DataFormatError(f"sentence {k + 1}, token {i + 1}: tokens are non-empty strings without "
                              f"whitespace, got {w!r}")
    if has_surrogate(joined):
        i = next(i for i, w in enumerate(s) if has_surrogate(w))
        check_no_surrogates(s[i], f"sentence {k + 1}, token {i + 1}")
    return s


def _accuracy(predicted, gold) -> float:
    total = sum(len(g) for g in gold)
    if not total:
        raise ConjunctError("no tokens to score")
    return sum(p == g for ps, gs in zip(predicted, gold) for p, g in zip(ps, gs)) / total
