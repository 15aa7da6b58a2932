r"""Reading, writing and normalising binary feature data.

Formats
-------
svmlight / libsvm
    ``label id:value id:value ...`` with integer ids; ``#`` starts a comment.
    Column ``id`` of the matrix is feature ``id`` as written (no shift).
strings (opal / TinySVM string format)
    ``label feature feature ...``; a feature may carry a value, ``feature:1``.
    Tokens use backslash escapes, so that any string can be a feature or a
    label (see :func:`escape_token`): ``\\`` backslash, ``\s`` space, ``\t``
    tab, ``\n`` newline, ``\r`` carriage return, ``\#`` (not a comment),
    ``\:`` (a colon that does not start a value), ``\uXXXX`` any other
    whitespace or unpaired surrogate, ``\e`` the empty string. A backslash
    before anything else is kept as is, so files written without escapes
    (``1\/2``) read as before.

Features are binary: a value of 1 makes a feature active, 0 leaves it out, and
any other value is an error unless ``binarize=True`` (non-zero -> active).
Duplicate features are removed and rows are sorted. Text is UTF-8; a
byte-order mark at the start of a file is skipped.
"""

from __future__ import annotations

import os
import re
from typing import IO, Any, Iterator, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
from .._lazy import sparse as sp

from .._errors import DataFormatError
from ..features.index import FeatureIndex, _csr_from_flat, rows_to_csr
from ..features.matrices import as_binary_csr
from ..models.labels import labels_array, parse_label
from ._textin import Source
# The text layer (conjunct.io._textin), under the names some task readers import from here.
from ._textin import numbered as _numbered
from ._textin import open_text as _open_text

__all__ = [
    "read_svmlight",
    "write_svmlight",
    "read_strings",
    "write_strings",
    "escape_token",
    "unescape_token",
    "read_data",
    "sniff_format",
]

def _lines(f: IO[str], name: str) -> Iterator[Tuple[int, str]]:
    """(line number, content without comment) of the non-blank lines. A comment
    starts at the first ``#`` not escaped by a backslash."""
    for lineno, line in _numbered(f, name):
        cut = line.find("#")
        if cut >= 0:
            line = line[:_comment_start(line, cut)]
        line = line.strip()
        if line:
            yield lineno, line


def _comment_start(line: str, cut: int) -> int:
    while cut >= 0:
        backslashes = len(line[:cut]) - len(line[:cut].rstrip("\\"))
        if backslashes % 2 == 0:
            return cut
        cut = line.find("#", cut + 1)
    return len(line)


def _binary_value(text: str, feature: str, binarize: bool, name: str, lineno: int, named: bool = False) -> bool:
    """Whether a feature with value ``text`` is active. ``named``: a feature of
    the string format, whose name may itself contain ':'."""
    if text in ("1", "1.0"):
        return True
    # In the string format ':<number>' may be part of a name written without escapes (a time, '5:04').
    hint = f"; if ':{text}' is part of the feature's name, write the ':' as '\\:'" if named else ""
    try:
        value = float(text)
    except ValueError:
        raise DataFormatError(f"feature {feature!r} has a value {text!r} that is not a number", name, lineno) from None
    if not np.isfinite(value):
        raise DataFormatError(f"feature {feature!r} has a non-finite value {text!r}{hint}", name, lineno)
    if value == 0.0:
        return False
    if value == 1.0 or binarize:
        return True
    raise DataFormatError(
        f"feature {feature!r} has value {text}, but features must be binary (0 or 1); "
        f"pass binarize=True (--binarize) to treat non-zero values as 1{hint}",
        name,
        lineno,
    )


def read_svmlight(source: Source, *, binarize: bool = False, n_features: Optional[int] = None) -> Tuple[sp.csr_matrix, np.ndarray]:
    """Read an svmlight/libsvm data file into a binary CSR matrix and labels.

    Parameters
    ----------
    source : path, '-' or text file
        The data; '-' reads standard input.
    binarize : bool
        Treat any non-zero value as 1 instead of raising.
    n_features : int, optional
        Number of columns (default: largest id + 1).

    Returns
    -------
    X : scipy.sparse.csr_matrix
        Binary matrix; column ``i`` is feature id ``i``.
    y : numpy.ndarray
        Labels (int when every label is an integer, else float or str).

    Raises
    ------
    DataFormatError
        On a malformed line (naming file and line), a non-binary value, or a
        file without examples.
    """
    fast = _scanned(source, "svmlight", binarize)
    if fast is not None:
        label_tokens, label_ids, lengths_a, ids, _ = fast
        X = _csr_from_flat(ids, lengths_a, n_features)
        return X, _labels_of(label_tokens, label_ids)
    labels: List[Any] = []
    flat: List[int] = []
    lengths: List[int] = []
    with _open_text(source) as (f, name):
        for lineno, line in _lines(f, name):
            tokens = line.split()
            labels.append(parse_label(unescape_token(tokens[0])))
            if _last_unescaped_colon(tokens[0]) >= 0:
                raise DataFormatError(f"line starts with {tokens[0]!r}; expected a label before the features", name, lineno)
            start = len(flat)
            for tok in tokens[1:]:
                fid_text, sep, value_text = tok.partition(":")
                if not sep:
                    raise DataFormatError(f"feature {tok!r} is not of the form id:value", name, lineno)
                if fid_text == "qid":
                    raise DataFormatError("qid is not supported (conjunct reads classification data)", name, lineno)
                try:
                    fid = int(fid_text)
                except ValueError:
                    raise DataFormatError(f"feature id {fid_text!r} is not an integer", name, lineno) from None
                if fid < 0:
                    raise DataFormatError(f"feature id {fid} is negative", name, lineno)
                if fid > np.iinfo(np.int32).max - 1:
                    raise DataFormatError(f"feature id {fid} is too large (ids must fit in 32 bits)", name, lineno)
                if _binary_value(value_text, fid_text, binarize, name, lineno):
                    flat.append(fid)
            lengths.append(len(flat) - start)
        if not labels:
            raise DataFormatError("no examples (the file is empty or only has comments)", name)
    X = _csr_from_flat(np.asarray(flat, dtype=np.int64), np.asarray(lengths, dtype=np.int64), n_features)
    return X, labels_array(labels)


def _scanned(source: Source, fmt: str, binarize: bool) -> Optional[Tuple[Any, ...]]:
    """The C++ scanner's reading of a file (UTF-8, plain binary values):
    (labels as strings, label ids, row lengths, ids, vocabulary), or
    None when the source is not a file or the scanner gave up on something the
    Python reader handles (or reports, with file and line)."""
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-" or not os.path.isfile(source):
        return None
    from .. import _core

    with open(source, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as utf-8-sig skips it
        data = data[3:]
        if data.startswith(b"\xef\xbb\xbf"):  # a second one: the Python reader's rule
            return None
    scan = _core.scan_svmlight if fmt == "svmlight" else _core.scan_strings
    result = cast(Tuple[Any, ...], scan(data, binarize=bool(binarize)))
    if not result[0]:
        return None
    return result[2:]


def _labels_of(tokens: List[str], ids: np.ndarray) -> np.ndarray:
    """Labels from the distinct label tokens and each example's index into
    them (labels_array decides the type from the distinct values alone)."""
    return np.asarray(labels_array([parse_label(t) for t in tokens])[ids])


def read_strings(source: Source, *, binarize: bool = False) -> Tuple[List[List[str]], np.ndarray]:
    """Read the opal/TinySVM string format: ``label feature feature ...``.

    A feature may be written ``feature:value``; the value follows the same binary
    rules as :func:`read_svmlight`. A token whose text after the last ``:`` is not
    a number is a feature name as a whole (``w=a:b`` stays ``w=a:b``).

    Parameters
    ----------
    source : path, '-' or text file
        The data; '-' reads standard input.
    binarize : bool
        Treat any non-zero value as 1 instead of raising.

    Returns
    -------
    features : list of list of str
        Active features of each example, duplicates removed, in file order.
    y : numpy.ndarray
        Labels.
    """
    fast = _scanned(source, "strings", binarize)
    if fast is not None:
        label_tokens, label_ids, lengths_a, ids, vocabulary = fast
        vocab = np.empty(len(vocabulary), dtype=object)
        vocab[:] = vocabulary
        flat = vocab[ids].tolist()
        ends = np.cumsum(lengths_a).tolist()
        starts = [0] + ends[:-1]
        return [flat[a:b] for a, b in zip(starts, ends)], _labels_of(label_tokens, label_ids)
    labels: List[Any] = []
    rows: List[List[str]] = []
    with _open_text(source) as (f, name):
        for lineno, line in _lines(f, name):
            tokens = line.split()
            labels.append(parse_label(unescape_token(tokens[0])))
            row: List[str] = []
            seen = set()
            for tok in tokens[1:]:
                if "\\" in tok:
                    cut = _last_unescaped_colon(tok)
                    feat, value_text = (tok[:cut], tok[cut + 1:]) if cut > 0 else (tok, "")
                    sep = ":" if cut > 0 else ""
                else:
                    feat, sep, value_text = tok.rpartition(":")
                if sep and feat and _is_number(value_text):
                    feat = unescape_token(feat)
                    if not _binary_value(value_text, feat, binarize, name, lineno, named=True):
                        continue
                else:
                    feat = unescape_token(tok)
                if feat not in seen:
                    seen.add(feat)
                    row.append(feat)
            rows.append(row)
        if not labels:
            raise DataFormatError("no examples (the file is empty or only has comments)", name)
    return rows, labels_array(labels)


_ESCAPES = {"\\": "\\\\", " ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "#": "\\#"}
_UNESCAPES = {"\\": "\\", "s": " ", "t": "\t", "n": "\n", "r": "\r", "#": "#", ":": ":", "e": ""}
_NEEDS_ESCAPE = re.compile(r"[\\#\s\ud800-\udfff\ufeff]")


def escape_token(text: str) -> str:
    """``text`` as one token of the string format: backslash, whitespace and
    ``#`` escaped, the last ``:`` escaped when a number follows it (it would
    start a value), ``\\e`` for the empty string. :func:`unescape_token` (and
    :func:`read_strings`) give ``text`` back, for any string."""
    if not text:
        return "\\e"
    if _NEEDS_ESCAPE.search(text):
        text = "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if _NEEDS_ESCAPE.match(c) else c) for c in text)
    cut = text.rfind(":")
    if cut >= 0 and _is_number(text[cut + 1:]):
        text = text[:cut] + "\\:" + text[cut + 1:]
    return text


def unescape_token(token: str) -> str:
    """The string a token of the string format stands for (see :func:`escape_token`)."""
    if "\\" not in token:
        return token
    out, i, n = [], 0, len(token)
    while i < n:
        c = token[i]
        if c != "\\" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        nxt = token[i + 1]
        if nxt in _UNESCAPES:
            out.append(_UNESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", token[i + 2:i + 6]):
            out.append(chr(int(token[i + 2:i + 6], 16)))
            i += 6
        else:  # not an escape: kept as written
            out.append(c)
            i += 1
    return "".join(out)


def _last_unescaped_colon(token: str) -> int:
    """Index of the last ``:`` that no backslash escapes, or -1."""
    last, i = -1, 0
    while i < len(token):
        if token[i] == "\\":
            i += 2
            continue
        if token[i] == ":":
            last = i
        i += 1
    return last


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def sniff_format(source: Union[str, "os.PathLike[str]"], n_lines: int = 50) -> str:
    """'svmlight' when the first lines are all ``label id:value``, else 'strings'."""
    with _open_text(source) as (f, name):
        checked = 0
        for _, line in _lines(f, name):
            for tok in line.split()[1:]:
                fid, sep, value = tok.partition(":")
                if not (sep and fid.isdigit() and _is_number(value)):
                    return "strings"
            checked += 1
            if checked >= n_lines:
                break
    return "svmlight"


def read_data(source: Source, *, format: str = "auto", features: Optional[FeatureIndex] = None,
              binarize: bool = False) -> Tuple[Any, np.ndarray]:
    """Read data for a model: ``(X, y)`` with X a binary CSR matrix.

    String data are mapped through ``features`` (unknown features are dropped);
    svmlight data keep their ids as columns.

    Parameters
    ----------
    source : path, '-' or text file
        The data; '-' reads standard input.
    format : {"auto", "svmlight", "strings"}
        ``"auto"`` sniffs a file (standard input: strings if ``features``
        holds named features, else svmlight).
    features : FeatureIndex, optional
        The model's feature index, needed for string features.
    binarize : bool
        Treat any non-zero value as 1 instead of raising.
    """
    if format == "auto":
        if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
            format = "strings" if features is not None and not features.is_numeric else "svmlight"
        else:
            format = sniff_format(source)
    if format == "svmlight":
        return read_svmlight(source, binarize=binarize)
    if format == "strings":
        rows, y = read_strings(source, binarize=binarize)
        if features is None:
            raise DataFormatError("string features need a feature index (a model with named features)")
        if features.is_numeric:
            return _numeric_strings(rows, source), y
        return features.transform(rows), y
    raise DataFormatError(f"unknown data format {format!r}; expected 'svmlight', 'strings' or 'auto'")


def _numeric_strings(rows: List[List[str]], source: Source) -> sp.csr_matrix:
    """Rows of digit strings as ids (a numeric model given string-format data)."""
    try:
        return rows_to_csr([[int(f) for f in r] for r in rows])
    except ValueError as e:
        raise DataFormatError(f"this model has numeric features but the data has non-numeric ones ({e})", str(source)) from None


def write_svmlight(dest: Source, X: Any, y: Sequence[Any]) -> None:
    """Write a binary matrix and labels in svmlight format (values written as 1).

    Parameters
    ----------
    dest : path, '-' or text file
        Where to write; '-' writes standard output.
    X : sparse matrix or 0/1 array
        The examples (column ids are written as they are).
    y : sequence
        One label per row.
    """
    X = as_binary_csr(X)
    if X.shape[0] != len(y):
        raise DataFormatError(f"X has {X.shape[0]} rows but y has {len(y)} labels")
    with _open_text(dest, "w") as (f, _):
        for i in range(X.shape[0]):
            feats = " ".join(f"{c}:1" for c in X.indices[X.indptr[i]:X.indptr[i + 1]])
            f.write(f"{escape_token(str(y[i]))} {feats}".rstrip() + "\n")


def write_strings(dest: Source, features: Sequence[Sequence[str]], y: Sequence[Any]) -> None:
    """Write examples in the string format (``label feature feature ...``).

    Parameters
    ----------
    dest : path, '-' or text file
        Where to write; '-' writes standard output.
    features : sequence of sequence of str
        Each example's features (no whitespace or '#' in them).
    y : sequence
        One label per example.
    """
    if len(features) != len(y):
        raise DataFormatError(f"{len(features)} examples but {len(y)} labels")
    with _open_text(dest, "w") as (f, _):
        for k, (label, feats) in enumerate(zip(y, features)):
            if isinstance(feats, str):
                raise DataFormatError(f"example {k}: expected a list of feature strings, got a string")
            for feat in feats:
                if not isinstance(feat, str):
                    raise DataFormatError(f"example {k}: feature {feat!r} is not a string")
            f.write(" ".join([escape_token(str(label)), *map(escape_token, feats)]) + "\n")
