"""Training rows of character-boundary decisions (the tokenizer's gaps, the
segmenter's boundaries) from the C++ feature engine that decides them at run
time (``_core.BoundaryFeatures``), so training and run-time features are the
same code.

The engine maps values to ids through a model's tables; training has no model
yet, so :func:`boundary_rows` first builds tables of every value the texts can
give each attribute (every character n-gram of the padded texts, every class
n-gram, every part of every whitespace-delimited piece: a superset, never
stored), runs the engine over them, and renumbers the ids in order of first
occurrence. The index, counts and rows are then what the feature strings give
(:class:`~conjunct.tasks.rows.RowBuilder`), so the model trained on them is the
same -- without a string per feature -- and the index holds its feature keys,
as a runner would read them from its names. The names stay one UTF-8 blob
until one is asked for (as in a feature index read from a file): on GSD
train, 900,000 strings and their hashes would add about 130 MB beside the
rows while the learner trains.
"""

from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._lazy import sparse as sp
from ..features.spec import MAX_PARTS, FeatureKeys, FeatureSpec

__all__ = ["boundary_rows", "value_tables", "FirstSeen"]

PAD = "\x02"  # the engine's padding character (conjunct.tasks.segment.features.PAD)
WINDOW = 3    # padding characters on each side of a text
PART = 12     # characters of a piece kept whole (conjunct.tasks.tokenize.features.PART)
CLASSES = "KHTNASO"
BATCH = 250   # texts per engine call (a bar step)


def _char_ngrams(texts: Sequence[str], n: int) -> List[str]:
    """Every distinct character n-gram of the padded texts (and some that
    cross from one text to the next: harmless, the engine never reads them)."""
    joined = "".join(PAD * WINDOW + t + PAD * WINDOW for t in texts)
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if len(cps) < n:
        return []
    windows = np.lib.stride_tricks.sliding_window_view(cps, n)
    if n <= 3:  # a code point takes 21 bits: the n-gram as one integer sorts fast
        packed = np.zeros(len(windows), dtype=np.uint64)
        for j in range(n):
            packed = (packed << np.uint64(21)) | windows[:, j].astype(np.uint64)
        uniq = np.unique(packed)
        grams = np.empty((len(uniq), n), dtype=np.uint32)
        for j in range(n):
            grams[:, j] = (uniq >> np.uint64(21 * (n - 1 - j))) & np.uint64((1 << 21) - 1)
    else:
        rows = np.ascontiguousarray(windows).view(np.dtype((np.void, 4 * n))).reshape(-1)
        grams = np.frombuffer(np.unique(rows).tobytes(), dtype=np.uint32)
    flat = np.ascontiguousarray(grams, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    return [flat[k:k + n] for k in range(0, len(flat), n)]


def _piece_values(texts: Sequence[str]) -> Dict[str, List[str]]:
    """Every value of the piece attributes the texts' inner gaps can read."""
    pieces = set(itertools.chain.from_iterable(t.split() for t in texts))
    left, right, end, start = set(), set(), {"<p>"}, {"</p>"}
    for p in pieces:
        end.add(p[-PART:])
        start.add(p[:PART])
        m = len(p)
        for k in range(1, m):
            left.add(p[:k] if k <= PART else "~" + p[k - PART:k])
            right.add(p[k:] if m - k <= PART else p[k:k + PART] + "~")
    return {"piece.left": sorted(left), "piece.right": sorted(right), "piece.end": sorted(end),
            "piece.start": sorted(start), "piece.kind": ["link"], "piece.link": ["in", "edge"]}


def value_tables(spec: FeatureSpec, texts: Sequence[str]) -> FeatureKeys:
    """Keys of every feature ``spec``'s boundary templates can give on ``texts``."""
    vocabs: List[List[str]] = []
    pieces: Optional[Dict[str, List[str]]] = None
    for a in spec.attributes:
        if len(a) == 2 and a[0] == "c" and a[1].isdigit():
            vocabs.append(_char_ngrams(texts, int(a[1])))
        elif len(a) == 2 and a[0] == "t" and a[1].isdigit():
            vocabs.append(["".join(p) for p in itertools.product(CLASSES, repeat=int(a[1]))])
        elif a.startswith("piece."):
            if pieces is None:
                pieces = _piece_values(texts)
            if a not in pieces:
                raise ValueError(f"boundary training rows: unknown piece attribute {a!r}")
            vocabs.append(pieces[a])
        else:
            raise ValueError(f"boundary training rows: unknown attribute {a!r}")
    template_of, codes = [], []
    for t, tp in enumerate(spec.templates):
        if len(tp.parts) != 1:
            raise ValueError(f"boundary training rows: template {tp.name!r} has {len(tp.parts)} parts (one is read)")
        attr = tp.parts[0].attribute
        n = 1 if attr is None else len(vocabs[spec.attributes.index(attr)])
        template_of.append(np.full(n, t, dtype=np.int32))
        codes.append(np.arange(n, dtype=np.int32))
    c = np.full((sum(map(len, codes)), MAX_PARTS), -1, dtype=np.int32)
    c[:, 0] = np.concatenate(codes)
    return FeatureKeys(spec, vocabs, np.concatenate(template_of), c)


def _engine(tables, dictionary):
    from .. import _core

    if dictionary is None:
        return _core.BoundaryFeatures(tables=tables)
    words, offsets = dictionary.to_arrays()
    return _core.BoundaryFeatures(tables=tables, dictionary_words=words.tobytes(), dictionary_offsets=offsets)


class FirstSeen:
    """Ids renumbered in order of first occurrence, a batch at a time (what a
    growing feature index gives the same features as strings)."""

    def __init__(self, n: int):
        self.new = np.full(n, -1, dtype=np.int32)
        self.order: List[np.ndarray] = []
        self.size = 0

    def map(self, ids: np.ndarray) -> np.ndarray:
        fresh = ids[self.new[ids] < 0]
        if fresh.size:
            uniq, first = np.unique(fresh, return_index=True)
            ordered = uniq[np.argsort(first, kind="stable")]
            self.new[ordered] = np.arange(self.size, self.size + ordered.size, dtype=np.int32)
            self.size += ordered.size
            self.order.append(ordered)
        return self.new[ids]

    def kept(self) -> np.ndarray:
        """The original id of every new id."""
        return np.concatenate(self.order) if self.order else np.zeros(0, dtype=np.int32)


def _compact(keys: FeatureKeys, kept: np.ndarray) -> Tuple[FeatureKeys, Tuple[bytes, np.ndarray]]:
    """The keys of features ``kept`` (original ids, in new id order), each
    vocabulary holding its values in order of first use, as
    :meth:`FeatureKeys.from_names` gives them, and their names as a UTF-8 blob
    and offsets (what a feature index read from a file holds until a name is asked for)."""
    spec = keys.spec
    template_of = keys.template_of[kept]
    old = keys.codes[kept, 0]
    attr_of = np.asarray([-1 if t.parts[0].attribute is None else spec.attributes.index(t.parts[0].attribute)
                          for t in spec.templates], dtype=np.int64)
    feature_attr = attr_of[template_of] if len(kept) else np.zeros(0, dtype=np.int64)
    codes = np.full((len(kept), MAX_PARTS), -1, dtype=np.int32)
    codes[:, 0] = np.where(feature_attr < 0, 0, -1)
    vocabs: List[List[str]] = []
    for a, values in enumerate(keys.vocabs):
        mask = np.flatnonzero(feature_attr == a)
        uniq, first, inverse = np.unique(old[mask], return_index=True, return_inverse=True)
        rank = np.empty(len(uniq), dtype=np.int32)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uniq), dtype=np.int32)
        codes[mask, 0] = rank[inverse.reshape(-1)]
        ordered = uniq[np.argsort(first, kind="stable")].tolist()
        vocabs.append([values[c] for c in ordered])
    # A name is its template's prefix ("c-1:2=", a flag's bare name) and its value (none for a flag),
    # encoded per feature as bytes: a string per feature would be held, with its hash, until training ends.
    prefixes = [(spec.name(t, ("",)) if tp.valued else spec.name(t)).encode("utf-8")
                for t, tp in enumerate(spec.templates)]
    values = [[v.encode("utf-8", "surrogatepass") for v in vocab] for vocab in vocabs]
    encoded = [prefixes[t] if a < 0 else prefixes[t] + values[a][c]
               for t, a, c in zip(template_of.tolist(), feature_attr.tolist(), codes[:, 0].tolist())]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    blob = b"".join(encoded)
    return FeatureKeys(spec, vocabs, template_of, codes), (blob, offsets)


def boundary_rows(texts: Sequence[str], spec: FeatureSpec, gaps: str, dictionaries: Optional[Sequence] = None,
                  desc: str = "collecting training examples"):
    """(rows as :class:`~conjunct.training.inputs.IndexedRows`, per text the
    boundaries decided, in order): every decided boundary of every text
    (``gaps``: "all" or "inner", as the engine reads them), text k's flags
    from ``dictionaries[k]``."""
    from ..features.index import FeatureIndex
    from ..progress import bar
    from ..training.inputs import IndexedRows
    from .rows import release_free_memory
    from .runner import text_buffers

    texts = list(texts)
    full = value_tables(spec, texts)
    tables = full.tables()
    engines: Dict[int, object] = {}
    seen = FirstSeen(len(full))
    lengths: List[np.ndarray] = []
    indices: List[np.ndarray] = []
    positions: List[np.ndarray] = []
    with bar(total=len(texts), desc=desc, unit=" texts") as shown:
        for s in range(0, len(texts), BATCH):
            part = range(s, min(s + BATCH, len(texts)))
            # One engine call per dictionary of the batch; the rows then go back in text order.
            groups: Dict[int, List[int]] = {}
            for k in part:
                d = None if dictionaries is None else dictionaries[k]
                if id(d) not in engines:
                    engines[id(d)] = (_engine(tables, d), d)  # d kept alive: its id stays its own
                groups.setdefault(id(d), []).append(k)
            got = {}
            for key, members in groups.items():
                blob, offsets = text_buffers([texts[k] for k in members])
                pos, text_ptr, indptr, ids = engines[key][0].features(text=blob, offsets=offsets, gaps=gaps)
                for j, k in enumerate(members):
                    a, b = int(text_ptr[j]), int(text_ptr[j + 1])
                    got[k] = (pos[a:b], np.diff(indptr[a:b + 1]), ids[indptr[a]:indptr[b]])
            for k in part:
                pos, n, ids = got[k]
                positions.append(pos)
                lengths.append(n)
                indices.append(seen.map(ids))
            shown.update(len(part))
    # The engines and the C++ tables of every value go before the index and the rows are built.
    engines.clear()
    del tables
    full._tables = None
    kept = seen.kept()
    keys, names = _compact(full, kept)
    del full
    flat = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int32)
    indices.clear()  # the batches' ids go before the rows are sorted and counted
    n_rows = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    lengths.clear()
    indptr = np.zeros(len(n_rows) + 1, dtype=np.int64)
    np.cumsum(n_rows, out=indptr[1:])
    # One byte per stored 1 and each row's ids ascending, as RowBuilder's rows.
    M = sp.csr_matrix((np.ones(flat.size, dtype=np.int8), flat, indptr), shape=(len(n_rows), len(kept)))
    M.has_sorted_indices = False
    M.sort_indices()
    index = FeatureIndex.from_arrays({"numeric": False}, {"counts": np.bincount(flat, minlength=len(kept)),
                                                          "names_blob": np.frombuffer(names[0], dtype=np.uint8),
                                                          "names_offsets": names[1]})
    index.keys = keys
    release_free_memory()
    return IndexedRows(M, index), positions
