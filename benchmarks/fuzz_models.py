"""Structural fuzzing of conjunct model files: crafted edits, digest recomputed.

A model file's digest only detects accidents: anyone can edit a file and
recompute it. This script builds a small model of every kind (kernel and
conjunctive linear models, feature indices, classifiers of every method,
taggers, task pipelines), applies seeded random edits to its file -- section
values at boundaries, shuffled pointers, out-of-range ids, negative counts,
wrong shapes and dtypes, huge lengths, swapped, missing or extra sections,
header scalars, the kind -- recomputes the digest, and loads each edited file
in a worker process (so a crash is seen rather than fatal), running
predictions on what loads. It also flips bits of unedited files and loads them
with ``verify=False``.

Every outcome must be a clean ``ModelFormatError`` / ``ConjunctError``, or a
load whose predictions run; for edits that change nothing the model means
(section order, an extra section, ``source``, counts shown by ``info``,
header padding) the predictions must equal the original's. Crashes (signals),
hangs, other exceptions and wrong neutral loads are failures.

    python benchmarks/fuzz_models.py --edits 20000 --seed 0

The test suite runs a short seeded loop of the same engine
(``tests/test_model_fuzz.py``).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import multiprocessing as mp
import os
import struct
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _fuzz_samples import derived_samples  # noqa: E402

_PREAMBLE = struct.Struct("<8sIIQQ32s")
_DTYPES = ["<f8", "<f4", "<i8", "<i4", "<i2", "<u8", "<u4", "<u2", "|u1", "|i1", "|b1"]
# Outcomes that are fine; everything else is a failure.
GOOD = ("rejected", "loaded", "late-error", "neutral-ok")


# -- samples: one small model of every kind, with probe inputs -------------------------------------------------
@dataclass
class Sample:
    name: str
    data: bytes
    probe: dict  # what the worker runs on a loaded object (inputs fixed from the original)
    expected: Any = None  # the original's probe result


def _zipf_model(n: int, n_classes: int, degree: int, seed: int):
    from conjunct.datasets import make_zipf_data
    from conjunct.training import PAClassifier

    feats, y = make_zipf_data(n, n_classes=n_classes, seed=seed)
    return PAClassifier(degree=degree, n_iter=2).fit(feats, y).model_, feats


def _chunk_corpus(rng, n: int):
    words = [f"w{i}" for i in range(40)]
    tags = ["NN", "VB", "DT", "JJ"]
    sents = []
    for _ in range(n):
        sent, inside = [], False
        for _ in range(int(rng.integers(2, 9))):
            w = words[int(rng.integers(0, len(words)))]
            p = tags[int(rng.integers(0, len(tags)))]
            if p == "VB":
                c, inside = "B-VP", False
            elif p == "DT" or not inside:
                c, inside = "B-NP", True
            else:
                c = "I-NP"
            sent.append((w, p, c))
        sents.append(sent)
    return sents


def _dep_corpus(rng, n: int):
    from conjunct.tasks.english import DepSentence

    out = []
    for _ in range(n):
        k = int(rng.integers(2, 8))
        forms = [f"w{int(rng.integers(0, 30))}" for _ in range(k)]
        upos = [("NOUN", "VERB", "ADJ")[int(rng.integers(0, 3))] for _ in range(k)]
        heads = [i + 2 for i in range(k - 1)] + [0]  # a chain: every word depends on the next
        labels = [("dep", "amod", "nsubj")[int(rng.integers(0, 3))] for _ in range(k - 1)] + ["root"]
        out.append(DepSentence(forms, upos, list(upos), heads, labels))
    return out


def _raw_corpus(rng, n: int):
    """Tokenized paragraphs of random words, glued punctuation and a multiword token."""
    from conjunct.tasks.tokenize import TokenizedText

    vocab = [("the",), ("dog",), ("runs",), ("ca", "n't"), ("it", "'s"), ("Mr.",), ("cat",)]
    out = []
    for _ in range(n):
        text, spans, words, lengths = "", [], [], []
        for _ in range(int(rng.integers(1, 4))):
            count = 0
            for _ in range(int(rng.integers(2, 6))):
                w = vocab[int(rng.integers(0, len(vocab)))]
                if text:
                    text += " "
                spans.append((len(text), len(text) + len("".join(w))))
                words.append(w)
                text += "".join(w)
                count += 1
            spans.append((len(text), len(text) + 1))
            words.append((".",))
            text += "."
            lengths.append(count + 1)
        out.append(TokenizedText(text, spans, words, lengths))
    return out


def build_samples(*, quick: bool = False, shared_data: Optional[Path] = None) -> List[Sample]:
    """Small models of every kind (deterministic)."""
    import conjunct
    from conjunct.analysis import EnglishTextPipeline
    from conjunct.io import model_io
    from conjunct.models.linear import ConjunctiveLinearModel
    from conjunct.tagging import HMMTagger, PerceptronTagger
    from conjunct.tasks.bunsetsu.runner import feature_keys
    from conjunct.tasks.chunk import Chunker
    from conjunct.tasks.english import EnglishDependencyParser
    from conjunct.tasks.segment import WordSegmenter
    from conjunct.tasks.tokenize import EnglishTokenizer

    rng = np.random.default_rng(0)
    objects: List[Tuple[str, Any, dict]] = []

    multi, feats3 = _zipf_model(150, 3, 2, seed=1)
    binary, feats2 = _zipf_model(120, 2, 3, seed=2)
    rows3 = [list(f) for f in feats3[:30]] + [["f_unseen"], []]
    rows2 = [list(f) for f in feats2[:30]]
    ids3 = [sorted(set(rng.integers(0, multi.n_columns + 3, size=int(rng.integers(0, 12))).tolist())) for _ in range(20)]
    objects.append(("kernel_model", multi, {"kind": "model", "rows": ids3}))
    objects.append(("kernel_model_d3", binary, {"kind": "model", "rows": rows2}))
    # One-vs-one with mostly zero coefficients (sparse alpha rows in the classifiers).
    S = multi.support_vectors[:60]
    alpha = rng.normal(size=(60, 3))
    alpha[rng.random(alpha.shape) < 0.7] = 0.0
    ovo = conjunct.KernelModel(S, alpha, rng.normal(size=3), degree=2, classes=["a", "b", "c"], decision="ovo",
                               features=multi.features)
    objects.append(("kernel_model_ovo", ovo, {"kind": "model", "rows": rows3}))
    objects.append(("feature_index", multi.features, {"kind": "features", "rows": rows3}))
    keyed = conjunct.FeatureIndex(["dist=1", "m.h.w=犬", "coord.m", "h+1.h.w=-", "m.pos=begin", "h.h.w=猫", "m.br=none"],
                                  counts=[5, 3, 2, 2, 1, 1, 1])
    keyed.keys = feature_keys(keyed)
    objects.append(("feature_index_keys", keyed, {"kind": "features", "rows": [["dist=1", "m.h.w=犬"], ["coord.m", "x"]]}))
    objects.append(("feature_index_numeric", conjunct.FeatureIndex.numeric(50, counts=rng.integers(0, 9, size=50)),
                    {"kind": "features", "rows": None}))
    # Small dense tables keep the files (and each load) small; the trie then holds most conjunctions.
    small = {"dense_features": 16}
    for method, params in (("pkb", {}), ("pki", {}), ("pke", small), ("split", {"common_features": 40, **small}),
                           ("fstrie", small), ("fstrie", {"base": "split", "common_features": 40, **small})):
        tag = method + ("_split" if params.get("base") == "split" else "")
        objects.append((f"classifier_{tag}", multi.compile(method, **params), {"kind": "classifier", "rows": rows3}))
    objects += derived_samples(multi, rows3, rng, small)  # margins left out, shifted labels
    objects.append(("classifier_adaptive", multi.compile("adaptive", cache_rows=64, **small), {"kind": "classifier", "rows": rows3}))
    objects.append(("classifier_adaptive_warm", multi.compile("adaptive", cache_rows=64, warm_start=rows3, **small),
                    {"kind": "classifier", "rows": rows3}))
    objects.append(("classifier_pke_d3", binary.compile("pke", **small), {"kind": "classifier", "rows": rows2}))
    objects.append(("classifier_split_d3", binary.compile("split", **small), {"kind": "classifier", "rows": rows2}))
    objects.append(("classifier_pki_ovo", ovo.compile("pki"), {"kind": "classifier", "rows": rows3}))
    objects.append(("classifier_split_ovo", ovo.compile("split", common_features=20), {"kind": "classifier", "rows": rows3}))
    # One non-zero coefficient per support vector of six outputs: the stores keep sparse rows.
    one_hot = np.zeros((60, 6))
    pick = np.random.default_rng(7)
    one_hot[np.arange(60), pick.integers(0, 6, size=60)] = pick.normal(size=60)
    sparse_rows = conjunct.KernelModel(S, one_hot, pick.normal(size=6), degree=2, classes=[f"c{i}" for i in range(6)],
                                       features=multi.features)
    objects.append(("classifier_pke_sparse_rows", sparse_rows.compile("pke", **small), {"kind": "classifier", "rows": rows3}))
    objects.append(("classifier_split_sparse_rows", sparse_rows.compile("split", common_features=20, **small),
                    {"kind": "classifier", "rows": rows3}))
    conj = [[0], [1], [0, 1], [2, 3], [0, 2, 5], [4]]
    clm = ConjunctiveLinearModel(conj, rng.normal(size=(6, 2)), [0.1, -0.2], classes=["x", "y"],
                                 features=conjunct.FeatureIndex([f"g{i}" for i in range(7)]))
    clm_rows = [[f"g{i}" for i in range(7) if rng.random() < 0.5] for _ in range(15)]
    objects.append(("linear_model", clm, {"kind": "model", "rows": clm_rows}))
    objects.append(("classifier_pke_linear", clm.compile("pke"), {"kind": "classifier", "rows": clm_rows}))
    objects.append(("classifier_fstrie_linear", clm.compile("fstrie", events=clm_rows), {"kind": "classifier", "rows": clm_rows}))

    sents = [["the", "dog", "runs"], ["a", "cat", "sleeps", "now"], ["dogs", "run"], ["the", "cat", "runs", "fast"]]
    tags = [["D", "N", "V"], ["D", "N", "V", "R"], ["N", "V"], ["D", "N", "V", "R"]]
    probe_sents = sents + [["unseen", "words", "here"], []]
    objects.append(("perceptron_tagger", PerceptronTagger(n_iter=3).fit(sents, tags), {"kind": "tagger", "sentences": probe_sents}))
    # Every token attribute, offsets and a three-part conjunction: the feature keys' vocabularies and codes.
    every = ["bias", "w", "lw", "p1", "s6", "shape", "len", "hyphen", "digit", "upper", "title", "allcaps", "w-1",
             "shape+2", "w-1|w", "s3|w-1|title"]
    odd = [["The", "Dog-1", "RUNS"], ["a|b", "\\", "<s>", "Ωμέγα"], ["3.14", "x"], ["ΣΑΣ", "İ"]]
    objects.append(("perceptron_tagger_every_attribute", PerceptronTagger(n_iter=2, templates=every).fit(
        odd, [["D", "N", "V"], ["X", "X", "X", "N"], ["C", "N"], ["N", "N"]]), {"kind": "tagger", "sentences": odd + probe_sents}))
    # Ten sentences or more: the smoothing is chosen on held-out ones (the file keeps the table).
    objects.append(("hmm_tagger", HMMTagger().fit(sents * 3, tags * 3), {"kind": "tagger", "sentences": probe_sents}))

    chunk_train = _chunk_corpus(rng, 40)
    chunker = Chunker(degree=2, n_iter=2, method_params=small).fit(chunk_train)
    objects.append(("chunker", chunker, {"kind": "chunker", "sentences": [[t[:2] for t in s] for s in chunk_train[:12]]}))
    # As shipped (above): no kernel models, integer sections narrowed; with its models, as files kept for recompiling.
    kept = Chunker(degree=2, n_iter=2, method_params=small).fit(chunk_train)
    kept.keep_models = True
    objects.append(("chunker_with_models", kept, {"kind": "chunker", "sentences": [[t[:2] for t in s] for s in chunk_train[:12]]}))
    if not quick:
        chars = "日本語のテキストを分割する試験文字列"
        seg_train = [["".join(rng.choice(list(chars), size=int(rng.integers(1, 4)))) for _ in range(int(rng.integers(2, 7)))]
                     for _ in range(40)]
        segmenter = WordSegmenter(degree=2, n_iter=2, method_params=small).fit(seg_train)
        objects.append(("segmenter", segmenter, {"kind": "segmenter", "texts": ["".join(s) for s in seg_train[:12]]}))
        # The same segmenter as a file written before feature keys: its names are read at load.
        objects.append(("segmenter_names_only", _without_keys(segmenter),
                        {"kind": "segmenter", "texts": ["".join(s) for s in seg_train[:12]]}))
        dep_train = _dep_corpus(rng, 40)
        parser = EnglishDependencyParser(degree=2, n_iter=2, method_params=small).fit(dep_train)
        objects.append(("english_parser", parser, {"kind": "parser", "sentences": dep_train[:10]}))
        raw_train = _raw_corpus(rng, 30)
        tokenizer = EnglishTokenizer(degree=2, n_iter=2, method_params=small).fit(raw_train)
        objects.append(("tokenizer", tokenizer, {"kind": "tokenizer", "texts": [t.text for t in raw_train[:8]]}))
        nlp = EnglishTextPipeline(PerceptronTagger(n_iter=2), EnglishDependencyParser(degree=2, n_iter=2, method_params=small),
                                  Chunker(degree=2, n_iter=2, method_params=small),
                                  EnglishTokenizer(degree=2, n_iter=2, method_params=small), folds=2)
        nlp.fit(dep_train, chunk_data=chunk_train, raw_text=raw_train)
        objects.append(("text_pipeline_en", nlp, {"kind": "text", "sentences": [s.forms for s in dep_train[:8]]}))
    if shared_data is not None and not quick:
        bunsetsu = _bunsetsu_sample(shared_data)
        if bunsetsu is not None:
            objects.append(bunsetsu)

    samples = []
    for name, obj, probe in objects:
        data = model_io.dumps(*obj.to_container(), compact=obj.compact_sections)  # the form save() writes
        sample = Sample(name, data, probe)
        sample.expected = run_probe(load_bytes(data, "bytes"), probe)
        samples.append(sample)
    return samples


def _without_keys(pipeline):
    """A task pipeline's container without its feature keys (a file written before them)."""
    kind, meta, arrays = pipeline.to_container()
    for entry in (e for c in meta["components"].values() for e in c.values()):
        entry.get("meta", {}).get("features", {}).pop("keys", None)
    arrays = {k: v for k, v in arrays.items() if ".features.keys." not in k}
    return SimpleNamespace(to_container=lambda: (kind, meta, arrays), compact_sections=pipeline.compact_sections)


def _bunsetsu_sample(shared_data: Path):
    try:
        from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
    except ImportError:
        return None
    base = shared_data / "ud_japanese_gsd"
    if not base.is_dir():
        return None
    train = load_gsd_bunsetsu(base, "train")[:80]
    parser = BunsetsuDependencyParser(degree=2, n_iter=2, method_params={"dense_features": 16}).fit(train)
    return ("bunsetsu_parser", parser, {"kind": "bunsetsu", "sentences": train[:10]})


# -- loading and probing (run in the worker) -------------------------------------------------------------------------
def load_bytes(data: bytes, mode: str, directory: Optional[str] = None):
    """Load model-file bytes: ``bytes`` (the pickle path), ``file`` / ``mmap`` (a
    file, digest verified) or ``noverify`` / ``noverify-mmap`` (verify=False)."""
    from conjunct.io import persistence

    if mode == "bytes":
        return persistence.from_bytes(data)
    fd, path = tempfile.mkstemp(suffix=".cjt", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return persistence.load(path, mmap=mode.endswith("mmap"), verify=not mode.startswith("noverify"))
    finally:
        os.unlink(path)  # a memory map keeps the inode alive


def run_probe(obj, probe: dict):
    """Predictions of a loaded object on the sample's fixed inputs (a comparable value)."""
    kind = probe["kind"]
    if kind == "model":
        return _margins(obj.decision_function(probe["rows"])), obj.predict(probe["rows"]).tolist()
    if kind == "classifier":
        rows = probe["rows"]
        margins = _margins(obj.decision_function(rows))
        threaded = _margins(obj.decision_function(rows, n_jobs=2))
        labels = obj.predict(rows, early_exit=False).tolist()
        fast = obj.predict(rows, early_exit=True).tolist()
        one = [obj.predict_one(r) for r in rows[:5]]
        return margins, threaded, labels, fast, [str(v) for v in one]
    if kind == "features":
        if probe["rows"] is None or obj.is_numeric:
            return len(obj), obj.counts.tolist()
        X = obj.transform(probe["rows"])
        if obj.keys is None:
            return X.indptr.tolist(), X.indices.tolist()
        # Feature keys: the C++ tables are built from them and name every feature.
        tables = obj.keys.tables()
        return X.indptr.tolist(), X.indices.tolist(), [tables.name(f) for f in range(len(tables))]
    if kind == "tagger":
        return obj.predict(probe["sentences"])
    if kind == "chunker":
        return obj.chunk(probe["sentences"])
    if kind == "segmenter":
        return obj.segment(probe["texts"])
    if kind == "tokenizer":
        return [(t.spans, t.words, t.sentence_lengths) for t in obj.tokenize(probe["texts"])]
    if kind == "parser":
        return obj.parse(probe["sentences"])
    if kind == "bunsetsu":
        return obj.parse(probe["sentences"])
    if kind == "text":
        return [a.to_conllu() for a in obj.analyze(probe["sentences"])]
    if kind == "selftest-signal":  # the harness's own test: a dying worker must be reported as a crash
        os.kill(os.getpid(), probe["signal"])
    raise ValueError(f"unknown probe {kind}")


def _margins(m) -> List[float]:
    with np.errstate(all="ignore"):  # crafted weights may give huge margins: fine, they are compared as is
        return np.asarray(m, dtype=np.float64).round(9).tolist()


def _same(a, b) -> bool:
    try:
        return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return a == b


def _worker(conn, memory_limit: int, samples: Dict[str, dict], directory: str) -> None:
    """Loop: receive (case id, sample, bytes, mode, neutral), answer (case id, outcome, detail)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    except (ImportError, ValueError, OSError):
        pass
    import faulthandler

    faulthandler.enable()
    from conjunct import ConjunctError, ModelFormatError

    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        case, name, data, mode, neutral = msg
        probe, expected = samples[name]
        try:
            obj = load_bytes(data, mode, directory)
        except ModelFormatError as e:
            conn.send((case, "rejected", str(e)[:300]))
            continue
        except ConjunctError as e:
            conn.send((case, "rejected", f"{type(e).__name__}: {str(e)[:300]}"))
            continue
        except BaseException as e:  # noqa: BLE001 - anything else is a finding
            conn.send((case, "unclean-load", f"{type(e).__name__}: {str(e)[:300]}"))
            continue
        try:
            result = run_probe(obj, probe)
        except ConjunctError as e:
            conn.send((case, "late-error", f"{type(e).__name__}: {str(e)[:300]}"))
            continue
        except BaseException as e:  # noqa: BLE001
            conn.send((case, "unclean-probe", f"{type(e).__name__}: {str(e)[:300]}"))
            continue
        if neutral:
            ok = _same(result, expected)
            conn.send((case, "neutral-ok" if ok else "neutral-mismatch", "" if ok else "predictions changed"))
        else:
            conn.send((case, "loaded", ""))


class WorkerPool:
    """Worker processes that load and probe edited files; a dead worker is a crash."""

    def __init__(self, samples: List[Sample], jobs: int = 1, timeout: float = 60.0, memory_limit: int = 3 << 30):
        self.ctx = mp.get_context("spawn")
        self.table = {s.name: (s.probe, s.expected) for s in samples}
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.tmp = tempfile.TemporaryDirectory(prefix="conjunct-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.workers = [self._start() for _ in range(max(1, jobs))]

    def _start(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=_worker, args=(child, self.memory_limit, self.table, self.tmp.name), daemon=True)
        p.start()
        child.close()
        return [p, parent]

    def run(self, cases: List[Tuple[int, str, bytes, str, bool]]) -> Dict[int, Tuple[str, str]]:
        """Outcome of every case: (outcome, detail)."""
        results: Dict[int, Tuple[str, str]] = {}
        pending = list(reversed(cases))
        busy: Dict[int, Tuple[tuple, float]] = {}
        while pending or busy:
            for i, (p, conn) in enumerate(self.workers):
                if i not in busy and pending:
                    case = pending.pop()
                    conn.send(case)
                    busy[i] = (case, time.monotonic())
            conns = [self.workers[i][1] for i in busy]
            ready = mp.connection.wait(conns, timeout=1.0)
            for i in list(busy):
                p, conn = self.workers[i]
                case, started = busy[i]
                if conn in ready:
                    try:
                        answer = conn.recv()
                    except (EOFError, ConnectionResetError):
                        answer = None
                    if answer is not None:
                        results[answer[0]] = (answer[1], answer[2])
                        del busy[i]
                        continue
                timed_out = time.monotonic() - started > self.timeout
                if conn in ready or not p.is_alive() or timed_out:
                    if timed_out and p.is_alive():
                        p.kill()
                    p.join()
                    code = p.exitcode
                    results[case[0]] = ("hang", f"no answer in {self.timeout:.0f} s") if timed_out else (
                        "crash", f"worker died with exit code {code}" + (f" (signal {-code})" if code and code < 0 else ""))
                    self.workers[i] = self._start()
                    del busy[i]
        return results

    def close(self) -> None:
        for p, conn in self.workers:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p, conn in self.workers:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
        self.tmp.cleanup()


# -- the file and its edits ---------------------------------------------------------------------------------------------
class ModelFile:
    """A model file taken apart: kind, meta, arrays (in file order)."""

    def __init__(self, data: bytes):
        from conjunct.io import model_io

        kind, meta, arrays = model_io.loads(data)
        self.kind, self.meta = kind, meta
        self.arrays = {k: np.array(v) for k, v in arrays.items()}

    def dumps(self, kind=None, meta=None, arrays=None) -> bytes:
        from conjunct.io import model_io

        return model_io.dumps(self.kind if kind is None else kind, self.meta if meta is None else meta,
                              self.arrays if arrays is None else arrays)


def redigest(buf: bytearray) -> bytes:
    """Recompute the digest of a (possibly edited) file."""
    magic, version, reserved, header_len, total, _ = _PREAMBLE.unpack_from(buf, 0)
    digest = hashlib.blake2b(bytes(buf[_PREAMBLE.size:total]), digest_size=32).digest()
    _PREAMBLE.pack_into(buf, 0, magic, version, reserved, header_len, total, digest)
    return bytes(buf)


def _interesting_ints(mf: ModelFile) -> List[int]:
    values = {0, 1, 2, -1, -2, 3, 4, 5, 7, 8, 13, 255, 256, 65535, 65536, 2**31 - 1, -2**31, 2**31, 2**32, 2**62,
              2**63 - 1, -2**63}
    for a in mf.arrays.values():
        for n in (a.size, *a.shape):
            values.update({n - 1, n, n + 1})
    def walk(v):
        if isinstance(v, bool):
            return
        if isinstance(v, int):
            values.update({v - 1, v, v + 1, 2 * v})
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v[:50]:
                walk(x)
    walk(mf.meta)
    return sorted(values)


_FLOATS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e308, -1e308, 5e-324, 1.0, -1.0, 1e200, 0.5]


def _boundary_value(rng, a: np.ndarray, ints: List[int]):
    if a.dtype.kind == "f":
        return _FLOATS[int(rng.integers(0, len(_FLOATS)))]
    info = np.iinfo(a.dtype) if a.dtype.kind in "iu" else None
    if a.dtype.kind == "b":
        return bool(rng.integers(0, 2))
    v = ints[int(rng.integers(0, len(ints)))] if rng.random() < 0.8 else int(rng.integers(-3, max(4, 2 * a.size + 3)))
    return int(np.clip(v, info.min, info.max))


def _pick_section(rng, mf: ModelFile, index_bias: bool = True) -> Optional[str]:
    names = [k for k, a in mf.arrays.items()]
    if not names:
        return None
    weights = np.array([3.0 if index_bias and mf.arrays[k].dtype.kind in "iu" else 1.0 for k in names])
    weights *= np.array([1.0 if mf.arrays[k].size else 0.3 for k in names])
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def _pick_index(rng, size: int) -> int:
    """A position to edit: often one at either end (first and last pairs are where off-by-ones hide)."""
    if size > 4 and rng.random() < 0.3:
        return int(rng.choice([0, 1, size - 2, size - 1]))
    return int(rng.integers(0, size))


def _edit_values(rng, mf: ModelFile, ints) -> Tuple[bytes, str]:
    key = _pick_section(rng, mf)
    arrays = {k: v.copy() for k, v in mf.arrays.items()}
    a = arrays[key]
    flat = a.reshape(-1)
    op = rng.choice(["set", "set", "set", "swap", "shuffle", "reverse", "bump", "fill", "sort"])
    if flat.size == 0:
        op = "fill"
    if op == "set":
        n = int(rng.integers(1, 4))
        for _ in range(n):
            flat[_pick_index(rng, flat.size)] = _boundary_value(rng, a, ints)
        desc = f"set {n} value(s) of {key}"
    elif op == "swap":
        i = _pick_index(rng, flat.size)
        j = min(flat.size - 1, i + 1) if rng.random() < 0.5 else int(rng.integers(0, flat.size))  # often neighbours
        flat[i], flat[j] = flat[j].copy(), flat[i].copy()
        desc = f"swap two values of {key}"
    elif op == "shuffle":
        rng.shuffle(flat)
        desc = f"shuffle {key}"
    elif op == "reverse":
        flat[:] = flat[::-1].copy()
        desc = f"reverse {key}"
    elif op == "bump":
        i = _pick_index(rng, flat.size)
        if a.dtype.kind == "b":
            flat[i] = not flat[i]
        else:
            delta = int(rng.choice([-1, 1, -2, 2, 100]))
            with np.errstate(all="ignore"):
                flat[i] = flat[i] + np.asarray(delta).astype(a.dtype)
        desc = f"bump a value of {key}"
    elif op == "fill":
        if flat.size:
            flat[:] = _boundary_value(rng, a, ints)
        else:
            arrays[key] = np.full(int(rng.integers(1, 5)), _boundary_value(rng, a, ints), dtype=a.dtype)
        desc = f"fill {key}"
    else:
        flat.sort()
        desc = f"sort {key}"
    return mf.dumps(arrays=arrays), desc


def _edit_structure(rng, mf: ModelFile, ints) -> Tuple[bytes, str]:
    arrays = dict(mf.arrays)
    key = _pick_section(rng, mf, index_bias=False)
    op = rng.choice(["truncate", "extend", "empty", "retype", "reinterpret", "reshape", "delete", "swap", "copy",
                     "huge"])
    a = arrays[key]
    if op == "truncate" and a.size:
        k = int(rng.integers(1, max(2, a.shape[0]) + 1))
        arrays[key] = a[: max(0, a.shape[0] - k)]
        desc = f"truncate {key} by {k}"
    elif op == "extend" or (op == "truncate" and not a.size):
        k = int(rng.integers(1, 4))
        extra = np.full((k,) + a.shape[1:], _boundary_value(rng, a, ints), dtype=a.dtype)
        arrays[key] = np.concatenate([a, extra])
        desc = f"extend {key} by {k}"
    elif op == "empty":
        arrays[key] = a[:0]
        desc = f"empty {key}"
    elif op == "retype":
        dt = _DTYPES[int(rng.integers(0, len(_DTYPES)))]
        with np.errstate(all="ignore"):
            arrays[key] = np.nan_to_num(a, nan=0, posinf=0, neginf=0).astype(dt) if a.dtype.kind == "f" and dt[1] != "f" else a.astype(dt)
        desc = f"convert {key} to {dt}"
    elif op == "reinterpret":
        dt = np.dtype(_DTYPES[int(rng.integers(0, len(_DTYPES)))])
        raw = a.reshape(-1).view(np.uint8)
        raw = raw[: raw.size // dt.itemsize * dt.itemsize]
        arrays[key] = raw.view(dt)
        desc = f"reinterpret {key} as {dt.str}"
    elif op == "reshape":
        arrays[key] = a.reshape(-1) if a.ndim > 1 else a.reshape(-1, 1) if rng.random() < 0.5 else a.reshape(1, -1)
        desc = f"reshape {key} to {arrays[key].shape}"
    elif op == "delete":
        del arrays[key]
        desc = f"delete {key}"
    elif op in ("swap", "copy"):
        other = _pick_section(rng, mf, index_bias=False)
        if op == "swap":
            arrays[key], arrays[other] = arrays[other], arrays[key]
            desc = f"swap {key} and {other}"
        else:
            arrays[key] = arrays[other]
            desc = f"copy {other} over {key}"
    else:
        return _claim_huge(rng, mf, key), f"claim a huge shape for {key}"
    return mf.dumps(arrays=arrays), desc


def _claim_huge(rng, mf: ModelFile, key: str) -> bytes:
    """Edit one section record of the header in place: a huge or negative shape."""
    buf = bytearray(mf.dumps())
    _, _, _, header_len, _, _ = _PREAMBLE.unpack_from(buf, 0)
    header = json.loads(bytes(buf[64:64 + header_len]))
    for s in header["sections"]:
        if s["name"] == key:
            size = int(rng.choice([2**31, 2**40, 2**62, -1, -(2**40)]))
            s["shape"] = [size] + s["shape"][1:]
            if rng.random() < 0.5:
                s["nbytes"] = size * np.dtype(s["dtype"]).itemsize * int(np.prod(s["shape"][1:], dtype=np.int64))
    return _put_header(buf, header, header_len)


def _put_header(buf: bytearray, header: dict, header_len: int) -> bytes:
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    if len(raw) > header_len:
        raw = raw[:header_len]  # does not fit: a truncated (unreadable) header is an edit too
    buf[64:64 + header_len] = raw.ljust(header_len, b" ")
    return redigest(buf)


def _leaves(value, path=()):
    """Paths of every node of a JSON tree (containers included)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:20]):
            yield from _leaves(v, path + (i,))


_ENUMS = ["pkb", "pki", "pke", "split", "fstrie", "adaptive", "lru", "lfu", "thread", "shared", "sign", "argmax", "ovo", "kernel_model", "classifier",
          "feature_index", "conjunctive_linear_model", "perceptron_tagger", "hmm_tagger", "task_pipeline",
          "conll2000-chunk", "ja-segment", "en-tokenize", "ud-english", "bunsetsu", "viterbi", "beam", "greedy", "bogus", ""]


def _meta_value(rng, old, ints):
    pool = [None, True, False, [], {}, "x", float("nan"), float("inf"), 0.5, -0.5, 1e308, -1e308]
    r = rng.random()
    if isinstance(old, str) and r < 0.6:
        return _ENUMS[int(rng.integers(0, len(_ENUMS)))]
    if isinstance(old, (int, float)) and not isinstance(old, bool) and r < 0.7:
        return ints[int(rng.integers(0, len(ints)))] if isinstance(old, int) or rng.random() < 0.5 else float(
            _FLOATS[int(rng.integers(0, len(_FLOATS)))])
    if isinstance(old, list) and r < 0.5:
        return old[:-1] if old and rng.random() < 0.5 else old + [copy.deepcopy(old[-1]) if old else 0]
    return pool[int(rng.integers(0, len(pool)))]


def _edit_meta(rng, mf: ModelFile, ints) -> Tuple[bytes, str]:
    meta = copy.deepcopy(mf.meta)
    paths = [p for p in _leaves(meta) if p]
    path = paths[int(rng.integers(0, len(paths)))]
    parent = meta
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    op = rng.random()
    if op < 0.15 and isinstance(parent, dict):
        del parent[last]
        desc = f"delete meta {'.'.join(map(str, path))}"
    else:
        parent[last] = _meta_value(rng, parent[last], ints)
        desc = f"set meta {'.'.join(map(str, path))} = {str(parent[last])[:40]}"
    kind = mf.kind
    if rng.random() < 0.05:
        kind = _ENUMS[int(rng.integers(0, 15))]
        desc += f", kind {kind}"
    return mf.dumps(kind=kind, meta=meta), desc


def _edit_header_bytes(rng, mf: ModelFile, ints) -> Tuple[bytes, str]:
    """Raw edits of the preamble or of the header text, digest recomputed."""
    buf = bytearray(mf.dumps())
    magic, version, reserved, header_len, total, digest = _PREAMBLE.unpack_from(buf, 0)
    op = rng.choice(["version", "header_len", "total", "text", "kind"])
    if op == "version":
        _PREAMBLE.pack_into(buf, 0, magic, int(rng.choice([0, 2, 2**32 - 1])), reserved, header_len, total, digest)
        return redigest(buf), "format version"
    if op in ("header_len", "total"):
        v = int(rng.choice([0, 1, 63, header_len - 1, header_len + 1, total, total + 1, 2**63, 2**64 - 1]))
        v = min(max(v, 0), 2**64 - 1)
        fields = [magic, version, reserved, header_len, total, digest]
        fields[3 if op == "header_len" else 4] = v
        _PREAMBLE.pack_into(buf, 0, *fields)
        if op == "header_len" or v <= len(buf):
            try:
                return redigest(buf), f"preamble {op} = {v}"
            except (ValueError, OverflowError):
                pass
        return bytes(buf), f"preamble {op} = {v}"
    if op == "text":
        pos = 64 + int(rng.integers(0, header_len))
        buf[pos] = int(rng.choice([ord("{"), ord("}"), ord('"'), ord("["), ord("0"), ord(" "), 0, 255]))
        return redigest(buf), f"header byte {pos}"
    header = json.loads(bytes(buf[64:64 + header_len]))
    header["kind"] = _ENUMS[int(rng.integers(0, 15))]
    return _put_header(buf, header, header_len), f"kind {header['kind']}"


def _edit_neutral(rng, mf: ModelFile, ints) -> Tuple[bytes, str]:
    """Edits that change nothing the model means."""
    op = rng.choice(["order", "extra", "source", "stats", "padding"])
    if op == "order":
        keys = list(mf.arrays)
        rng.shuffle(keys)
        return mf.dumps(arrays={k: mf.arrays[k] for k in keys}), "reorder sections"
    if op == "extra":
        arrays = dict(mf.arrays)
        arrays["zz_unknown.extra"] = rng.integers(-5, 5, size=int(rng.integers(0, 40))).astype(np.int32)
        return mf.dumps(arrays=arrays), "add an unknown section"
    if op == "source" and "source" in mf.meta:
        meta = dict(mf.meta, source=f"edited {int(rng.integers(0, 1000))}")
        return mf.dumps(meta=meta), "edit source"
    if op == "stats":
        meta = copy.deepcopy(mf.meta)
        params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
        keys = [k for k in ("n_conjunctions", "events", "distinct_events", "nodes_before_pruning", "nodes")
                if isinstance(params.get(k), int)]
        if keys:
            k = keys[int(rng.integers(0, len(keys)))]
            params[k] = int(rng.integers(0, 10**6))
            return mf.dumps(meta=meta), f"edit info count {k}"
    buf = bytearray(mf.dumps())
    _, _, _, header_len, _, _ = _PREAMBLE.unpack_from(buf, 0)
    text = bytes(buf[64:64 + header_len])
    end = len(text.rstrip(b" "))
    if end < header_len:
        pos = 64 + int(rng.integers(end, header_len))
        buf[pos] = int(rng.choice([ord("\t"), ord("\n"), ord("\r")]))
    return redigest(buf), "header padding whitespace"


EDITS: Dict[str, Tuple[float, Callable]] = {
    "values": (0.40, _edit_values),
    "structure": (0.25, _edit_structure),
    "meta": (0.22, _edit_meta),
    "header": (0.05, _edit_header_bytes),
    "neutral": (0.08, _edit_neutral),
}


def flip_bits(rng, data: bytes) -> Tuple[bytes, str]:
    """Flip 1-8 random bits anywhere after the preamble (the digest is left as is)."""
    buf = bytearray(data)
    n = int(rng.integers(1, 9))
    for _ in range(n):
        pos = int(rng.integers(64, len(buf)))
        buf[pos] ^= 1 << int(rng.integers(0, 8))
    return bytes(buf), f"flip {n} bit(s)"


def make_cases(samples: List[Sample], n_edits: int, n_flips: int, seed: int):
    """(case id, sample, bytes, load mode, neutral) and a description per case."""
    rng = np.random.default_rng(seed)
    files = {s.name: ModelFile(s.data) for s in samples}
    ints = {name: _interesting_ints(mf) for name, mf in files.items()}
    kinds = list(EDITS)
    probs = np.array([EDITS[k][0] for k in kinds])
    cases, info = [], {}
    for i in range(n_edits + n_flips):
        s = samples[i % len(samples)]
        mf = files[s.name]
        if i < n_edits:
            kind = kinds[int(rng.choice(len(kinds), p=probs / probs.sum()))]
            try:
                data, desc = EDITS[kind][1](rng, mf, ints[s.name])
            except (ValueError, TypeError, IndexError, OverflowError) as e:  # an edit the writer refuses
                data, desc, kind = mf.dumps(), f"(edit failed: {e}) original", "neutral"
            mode = ["bytes", "file", "mmap"][i % 3]
            neutral = kind == "neutral"
        else:
            kind = "bitflip"
            data, desc = flip_bits(rng, s.data)
            mode = ["noverify", "noverify-mmap"][i % 2]
            neutral = False
        cases.append((i, s.name, data, mode, neutral))
        info[i] = (s.name, kind, desc, mode)
    return cases, info


def fuzz(samples: List[Sample], n_edits: int, n_flips: int, seed: int = 0, jobs: int = 1, timeout: float = 60.0):
    """Run the cases; returns (summary per sample and kind, list of failures)."""
    cases, info = make_cases(samples, n_edits, n_flips, seed)
    pool = WorkerPool(samples, jobs=jobs, timeout=timeout)
    try:
        results = pool.run(cases)
    finally:
        pool.close()
    table: Dict[str, Counter] = defaultdict(Counter)
    failures, notes = [], defaultdict(list)
    for case, (outcome, detail) in sorted(results.items()):
        name, kind, desc, mode = info[case]
        table[name][outcome] += 1
        table["(all)"][outcome] += 1
        record = {"case": case, "sample": name, "edit": kind, "what": desc, "mode": mode, "outcome": outcome,
                  "detail": detail}
        if outcome not in GOOD:
            failures.append(record)
        elif len(notes[outcome]) < 20:
            notes[outcome].append(record)  # examples: what rejections say, which loads fail late
    return table, failures, dict(notes)


def main(argv=None) -> int:
    sys.path.insert(0, str(HERE))
    from _common import SHARED_DATA, markdown_table, write_results

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=20000, help="crafted edits (digest recomputed)")
    ap.add_argument("--flips", type=int, default=4000, help="bit-flip cases loaded with verify=False")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--name", default="fuzz_models", help="results file name")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    samples = build_samples(shared_data=SHARED_DATA if SHARED_DATA.is_dir() else None)
    print(f"{len(samples)} sample models: {', '.join(s.name for s in samples)}", flush=True)
    table, failures, notes = fuzz(samples, args.edits, args.flips, seed=args.seed, jobs=args.jobs)
    seconds = time.perf_counter() - t0
    outcomes = ["rejected", "loaded", "neutral-ok", "late-error", "crash", "hang", "unclean-load", "unclean-probe",
                "neutral-mismatch"]
    rows = [[name, sum(c.values())] + [c.get(o, 0) for o in outcomes] for name, c in sorted(table.items())]
    md = (f"{args.edits} crafted edits (digest recomputed) and {args.flips} bit flips loaded with verify=False, "
          f"over {len(samples)} sample models; seed {args.seed}; {seconds:.0f} s.\n\n"
          + markdown_table(["sample", "cases"] + outcomes, rows)
          + f"\n\nFailures (crash, hang, other exceptions, wrong neutral loads): {len(failures)}\n")
    for f in failures[:50]:
        md += f"\n- case {f['case']} {f['sample']}: {f['edit']} / {f['what']} ({f['mode']}): {f['outcome']} {f['detail']}"
    print(md)
    write_results(args.name, {"edits": args.edits, "flips": args.flips, "seed": args.seed, "seconds": seconds,
                              "samples": [s.name for s in samples],
                              "outcomes": {k: dict(v) for k, v in table.items()}, "failures": failures,
                              "examples": notes}, md)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
