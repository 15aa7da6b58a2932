"""Reading another tool's text model file: numbered lines, numbers and
``id:value`` features, with errors that name the file and line (the
importers' toolkit)."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional, Tuple

import numpy as np

from .._errors import ModelFormatError

__all__ = ["TextLines", "to_float", "to_int", "feature_ids", "check_poly"]


class TextLines:
    """Numbered lines of a text model file, '\\r' stripped."""

    def __init__(self, path):
        self.name = os.fspath(path)
        try:
            with open(self.name, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise ModelFormatError("no such file", self.name) from None
        if not raw.strip():
            raise ModelFormatError("empty model file", self.name)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFormatError("not a text model file (not UTF-8)", self.name) from None
        self.lines = [ln.rstrip("\r") for ln in text.split("\n")]
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.pos = 0

    def error(self, problem: str, lineno: Optional[int] = None) -> ModelFormatError:
        return ModelFormatError(problem, self.name, lineno if lineno is not None else self.pos)

    def next(self, what: str) -> str:
        if self.pos >= len(self.lines):
            raise self.error(f"unexpected end of file; expected {what}", len(self.lines))
        line = self.lines[self.pos]
        self.pos += 1
        return line

    def rest(self) -> Iterator[Tuple[int, str]]:
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            self.pos += 1
            yield self.pos, line


def to_float(text: str, what: str, lines: TextLines, lineno: Optional[int] = None) -> float:
    try:
        value = float(text)
    except ValueError:
        raise lines.error(f"{what} {text!r} is not a number", lineno) from None
    if not np.isfinite(value):
        raise lines.error(f"{what} is not finite ({text})", lineno)
    return value


def to_int(text: str, what: str, lines: TextLines, lineno: Optional[int] = None) -> int:
    try:
        return int(text)
    except ValueError:
        value = to_float(text, what, lines, lineno)
        if not value.is_integer():
            raise lines.error(f"{what} {text!r} is not an integer", lineno) from None
        return int(value)


def feature_ids(tokens: List[str], lines: TextLines, lineno: int, binarize: bool, allow_strings: bool = False) -> List:
    """Active features of ``id:value`` tokens (values must be 0/1 unless binarize)."""
    out = []
    for tok in tokens:
        fid, sep, value = tok.rpartition(":")
        if not sep or not fid:
            raise lines.error(f"feature {tok!r} is not of the form id:value", lineno)
        v = to_float(value, f"value of feature {fid}", lines, lineno)
        if v == 0.0:
            continue
        if v != 1.0 and not binarize:
            raise lines.error(
                f"support vector feature {fid} has value {value}; conjunct handles binary features only "
                "(pass binarize=True / --binarize to treat non-zero values as 1)",
                lineno,
            )
        try:
            f = int(fid)
            if f < 0:
                raise lines.error(f"feature id {fid} is negative", lineno)
        except ValueError:
            if not allow_strings:
                raise lines.error(f"feature id {fid!r} is not an integer", lineno) from None
            f = fid
        out.append(f)
    return out


def check_poly(kernel: str, lines: TextLines) -> None:
    if kernel not in ("polynomial", "linear"):
        raise lines.error(f"kernel {kernel!r} is not supported: conjunct imports polynomial (and linear) kernels only")
