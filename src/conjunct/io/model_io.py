"""conjunct's model file: one versioned, little-endian binary container.

Layout (all integers little-endian)::

    offset  size  field
    0       8     magic b"CONJUNCT"
    8       4     format version (uint32), currently 1
    12      4     reserved, 0
    16      8     header length H in bytes (uint64)
    24      8     total file length in bytes (uint64)
    32      32    BLAKE2b-256 digest of bytes [64, total length)
    64      H     header: UTF-8 JSON object
                    {"kind": str, "meta": {...}, "sections": [
                       {"name": str, "dtype": "<f8"|"<i4"|..., "shape": [...],
                        "offset": int, "nbytes": int}, ...]}
    ...           sections: raw little-endian C-order arrays, each starting at an
                  offset that is a multiple of 64 (zero padding in between)

``kind`` says what the file holds (``"kernel_model"``, ``"classifier"``, ...);
``meta`` holds that object's scalar parameters. Files are written to a temporary
file in the same directory and renamed into place, so a failed save never
leaves a half-written model behind. Reading checks the container (preamble,
header records, section bounds); ``conjunct.io.validation`` then checks what the
sections mean. See ``docs/model-format.md`` and ``docs/reliability.md``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mmap as _mmap
import os
import struct
import threading
from typing import Any, BinaryIO, Callable, Dict, List, NoReturn, Optional, Tuple, Union

import numpy as np

from ._atomic import _host_tag, _named, atomic_file, clean_stale_temporaries  # noqa: F401 (names of this module before)
from .._errors import ModelFormatError
from ._narrow import check_record, narrow, uses_offset, widen

__all__ = ["MAGIC", "FORMAT_VERSION", "write_container", "read_container", "dumps", "loads", "read_header",
           "open_model_file"]

MAGIC = b"CONJUNCT"
# Version 2 adds narrowed integer sections (a record's "decode"), version 3
# shifted ones (a decode's "offset"); a file is written with the lowest
# version that holds it, so older readers take what they can read.
FORMAT_VERSION = 3
_VERSIONS = (1, 2, 3)
_PREAMBLE = struct.Struct("<8sIIQQ32s")  # 64 bytes
_ALIGN = 64
_ALLOWED_DTYPES = {"<f8", "<f4", "<i8", "<i4", "<i2", "<u8", "<u4", "<u2", "|u1", "|i1", "|b1"}

Path = Union[str, "os.PathLike[str]"]
Header = Dict[str, Any]
Arrays = Dict[str, np.ndarray]


def _le_array(name: str, a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"section {name!r}: unsupported dtype {a.dtype}")
    return a.astype(a.dtype.newbyteorder("<"), copy=False)


def _layout(kind: str, meta: Header, arrays: Arrays, compact: bool = False) -> Tuple[bytes, List[Tuple[Header, np.ndarray]]]:
    arrays = {k: _le_array(k, v) for k, v in arrays.items()}
    decode: Dict[str, Any] = {}
    if compact:
        for k, a in arrays.items():
            packed = narrow(a)
            if packed is not None:
                arrays[k], decode[k] = packed
    sections: List[Header] = []
    # The header's size depends on the offsets, which depend on the header's size.
    header_guess = 0
    while True:
        offset = _round_up(_PREAMBLE.size + header_guess)
        sections = []
        for name, a in arrays.items():
            sections.append({"name": name, "dtype": a.dtype.str, "shape": list(a.shape), "offset": offset, "nbytes": a.nbytes})
            if name in decode:
                sections[-1]["decode"] = decode[name]
            offset = _round_up(offset + a.nbytes)
        header = json.dumps({"kind": kind, "meta": meta, "sections": sections}, separators=(",", ":"), sort_keys=True).encode()
        if len(header) <= header_guess:
            header = header.ljust(header_guess, b" ")
            return header, [(s, arrays[s["name"]]) for s in sections]
        header_guess = _round_up(len(header) + 256)


def _round_up(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


#: The stages of a load, named by every error of a model file: the container
#: (preamble, JSON header, section table), its digest, the sections' contents
#: (``conjunct.io.validation``), and building the object from them.
STAGES = ("reading the header", "checking the digest", "checking sections", "building")


def staged(e: ModelFormatError, stage: str) -> ModelFormatError:
    """``e`` with the load stage it happened in, unless it names one already
    (a nested object's own stage is the more precise)."""
    if e.problem.startswith(STAGES):
        return e
    return ModelFormatError(f"{stage}: {e.problem}", e.source, e.line)


def _write(f: BinaryIO, kind: str, meta: Header, arrays: Dict[str, np.ndarray], compact: bool = False) -> None:
    header, sections = _layout(kind, meta, arrays, compact)
    total = _round_up(_PREAMBLE.size + len(header))
    if sections:
        last, a = sections[-1]
        total = last["offset"] + a.nbytes
    digest = hashlib.blake2b(digest_size=32)

    def emit(chunk: Union[bytes, memoryview]) -> None:
        digest.update(chunk)
        f.write(chunk)

    f.write(b"\0" * _PREAMBLE.size)  # patched below once the digest is known
    pos = _PREAMBLE.size
    emit(header)
    pos += len(header)
    for s, a in sections:
        emit(b"\0" * (s["offset"] - pos))
        emit(a.tobytes() if a.nbytes < (1 << 26) else a.data.cast("B"))
        pos = s["offset"] + a.nbytes
    f.seek(0)
    decodes = [s["decode"] for s, _ in sections if "decode" in s]
    version = 3 if any(map(uses_offset, decodes)) else 2 if decodes else 1
    f.write(_PREAMBLE.pack(MAGIC, version, 0, len(header), total, digest.digest()))
    f.seek(0, io.SEEK_END)


# -- saving: temporary file + rename (shared with every file conjunct writes) -----------------------------------------
def write_container(path: Path, kind: str, meta: Header, arrays: Dict[str, np.ndarray], *, compact: bool = False) -> None:
    """Write a model file atomically: a temporary file beside the target, then a rename.

    A failed save leaves the previous file (or none) and no temporary file; one
    killed mid-save leaves a temporary that the next save into the directory
    removes. An existing file's mode (and owner, when permitted) is kept; a new
    file gets 0666 less the umask. Readers that memory-mapped the old file keep
    reading it: the file is never truncated in place. Symlinks are written
    through; directories, devices, FIFOs and sockets are refused. ``compact``
    stores integer sections narrowed where that is exact (:mod:`conjunct.io._narrow`).
    """
    with atomic_file(path, action="save a model to") as f:
        try:
            _write(f, kind, meta, arrays, *([True] if compact else []))
        except OSError as e:  # everything _write does is to the file: name it (a full disk says which file)
            raise _named(e, os.fspath(path)) from e


def dumps(kind: str, meta: Header, arrays: Dict[str, np.ndarray], *, compact: bool = False) -> bytes:
    """The model file as bytes (used by pickle)."""
    buf = io.BytesIO()
    _write(buf, kind, meta, arrays, compact)
    return buf.getvalue()


_Later = Optional[List[Callable[[], None]]]  # receives the digest's wait, when it runs on a thread


def _parse(buf: Any, name: str, verify: bool, later: _Later = None) -> Tuple[str, Header, Arrays]:
    try:
        return _parse_container(buf, name, verify, later)
    except ModelFormatError as e:
        if later:  # a damaged file is reported as damaged, not as whatever its damage broke
            later[0]()
        raise staged(e, "reading the header") from None


def _digest_error(name: str) -> ModelFormatError:
    return ModelFormatError("checking the digest: corrupt model file: the content hash does not match the "
                            "preamble's (a truncated, damaged or edited file)", name)


def _matches(buf: Any, total: int, digest: bytes) -> bool:
    h = hashlib.blake2b(digest_size=32)
    view = memoryview(buf)
    step = 1 << 24
    for start in range(_PREAMBLE.size, total, step):
        h.update(view[start:min(total, start + step)])
    return h.digest() == digest


def _digest_on_thread(buf: Any, total: int, digest: bytes, name: str) -> Callable[[], None]:
    """Starts hashing on another thread (hashlib releases the GIL); the function returned waits for it
    and raises the digest error if the content does not match."""
    result: List[bool] = []
    thread = threading.Thread(target=lambda: result.append(_matches(buf, total, digest)), daemon=True)
    thread.start()

    def wait() -> None:
        thread.join()
        if not (result and result[0]):
            raise _digest_error(name) from None
    return wait


def _parse_container(buf: Any, name: str, verify: bool, later: _Later = None) -> Tuple[str, Header, Arrays]:
    size = len(buf)
    if size < _PREAMBLE.size:
        if bytes(buf[:len(MAGIC)]) != MAGIC[: min(size, len(MAGIC))] or size == 0:
            raise ModelFormatError("not a conjunct model file (too short, no magic)", name)
        raise ModelFormatError(f"truncated model file ({size} bytes)", name)
    magic, version, _reserved, header_len, total, digest = _PREAMBLE.unpack_from(buf, 0)
    if magic != MAGIC:
        raise ModelFormatError(
            "not a conjunct model file (bad magic); to import a LIBSVM, SVMlight, TinySVM or opal model use "
            "`conjunct convert` or conjunct.import_model",
            name,
        )
    if version not in _VERSIONS:
        raise ModelFormatError(f"preamble field 'version': model format version {version} is not supported (this "
                               f"conjunct reads version {FORMAT_VERSION})", name)
    if size < total:
        raise ModelFormatError(f"preamble field 'total length': truncated model file: {size} bytes, the preamble "
                               f"says {total}", name)
    if size > total:
        raise ModelFormatError(f"preamble field 'total length': the file has {size - total} unexpected trailing bytes",
                               name)
    if _PREAMBLE.size + header_len > total:
        raise ModelFormatError("preamble field 'header length': corrupt model file: the header runs past the file",
                               name)
    if verify and later is not None:
        later.append(_digest_on_thread(buf, total, digest, name))
    elif verify and not _matches(buf, total, digest):
        raise _digest_error(name)
    kind, meta, sections = _decode_header(bytes(buf[_PREAMBLE.size:_PREAMBLE.size + header_len]), name)
    arrays: Dict[str, np.ndarray] = {}
    end_of_previous = _PREAMBLE.size + header_len
    for s in sorted(sections, key=lambda s: s["offset"]):
        dtype = np.dtype(s["dtype"])
        offset, count = s["offset"], s["nbytes"] // dtype.itemsize
        if offset < end_of_previous or offset + s["nbytes"] > total:
            where = "overlaps the header or another section" if offset < end_of_previous else "runs past the end of the file"
            raise ModelFormatError(f"corrupt model file: section {s['name']!r} {where}", name)
        end_of_previous = offset + s["nbytes"]
        arrays[s["name"]] = np.frombuffer(buf, dtype=dtype, count=count, offset=offset).reshape(s["shape"])
        if "decode" in s:
            arrays[s["name"]] = widen(arrays[s["name"]], s["decode"], repr(s["name"]), name)
    return kind, meta, arrays


def _decode_header(raw: bytes, name: str) -> Tuple[str, Header, List[Header]]:
    """(kind, meta, section records) of the JSON header, each record checked:
    a unique name, a known dtype, a non-negative shape whose size matches
    ``nbytes``, an aligned offset."""
    def bad(problem: str) -> NoReturn:
        raise ModelFormatError(f"corrupt model file: {problem}", name)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad(f"unreadable header: the JSON header is not UTF-8: byte 0x{raw[e.start]:02x} at byte {e.start} of the "
            f"header, {_PREAMBLE.size + e.start} of the file ({e.reason})")
    try:
        header = json.loads(text)
    except json.JSONDecodeError as e:
        bad(f"unreadable header: the JSON header is not valid JSON: {e.msg} at character {e.pos} of the header")
    except (ValueError, RecursionError) as e:  # RecursionError: absurdly nested JSON
        bad(f"unreadable header ({type(e).__name__}: {str(e)[:100]})")
    if not isinstance(header, dict):
        bad("the header is not a JSON object")
    kind, meta, sections = header.get("kind"), header.get("meta"), header.get("sections")
    if not isinstance(kind, str) or not isinstance(meta, dict) or not isinstance(sections, list):
        bad("the header needs a string 'kind', an object 'meta' and a list 'sections'")
    names = set()
    for i, s in enumerate(sections):
        if not isinstance(s, dict):
            bad(f"section record {i} is not an object")
        label = repr(s.get("name")) if isinstance(s.get("name"), str) else f"record {i}"
        fields = [s.get(k) for k in ("offset", "nbytes")]
        shape = s.get("shape")
        if not isinstance(s.get("name"), str) or s["name"] in names:
            bad(f"section {label}: missing or repeated name")
        names.add(s["name"])
        if s.get("dtype") not in _ALLOWED_DTYPES:
            bad(f"section {label}: dtype {s.get('dtype')!r} is not one of {', '.join(sorted(_ALLOWED_DTYPES))}")
        if not isinstance(shape, list) or len(shape) > 8 or not all(_is_count(d) for d in shape + fields):
            bad(f"section {label}: shape, offset and nbytes must be non-negative integers")
        if math.prod(shape) * np.dtype(s["dtype"]).itemsize != s["nbytes"]:
            bad(f"section {label}: {s['nbytes']} bytes do not hold shape {shape} of {s['dtype']}")
        if s["offset"] % _ALIGN:
            bad(f"section {label}: offset {s['offset']} is not a multiple of {_ALIGN}")
        if "decode" in s:
            check_record(s, label, name)
    return kind, meta, sections


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def read_container(path: Path, *, mmap: bool = False, verify: bool = True) -> Tuple[str, Header, Arrays]:
    """Read a model file: (kind, meta, arrays).

    With ``mmap=True`` the arrays are read-only views of a memory map of the file
    (shared between processes by the OS page cache); otherwise they are in memory.
    ``verify`` checks the content hash (reads the whole file once).
    """
    return _read(path, mmap, verify, None)


def read_container_hashing(path: Path, *, mmap: bool = False,
                           verify: bool = True) -> Tuple[str, Header, Arrays, Callable[[], None]]:
    """:func:`read_container` with the content hash computed on another thread meanwhile: the function
    returned with the arrays waits for it and raises the digest error if the content does not match. Call
    it before an error about the content is reported (a damaged file is then reported as damaged) and
    before the object built from the arrays is handed out; the arrays meanwhile only go through the
    checks every file gets, digest or not."""
    later: List[Callable[[], None]] = []
    kind, meta, arrays = _read(path, mmap, verify, later)
    return kind, meta, arrays, (later[0] if later else (lambda: None))


def open_model_file(name: str, missing: str = "no such file") -> BinaryIO:
    """``name`` opened for reading, or a :class:`ModelFormatError` that says
    it is missing (``missing``) or a directory."""
    try:
        return open(name, "rb")
    except FileNotFoundError:
        raise ModelFormatError(missing, name) from None
    except IsADirectoryError:
        raise ModelFormatError("is a directory, not a model file", name) from None


def _read(path: Path, mmap: bool, verify: bool, later: _Later) -> Tuple[str, Header, Arrays]:
    name = os.fspath(path)
    f = open_model_file(name)
    buf: Union[bytes, _mmap.mmap]
    with f:
        if mmap:
            if os.fstat(f.fileno()).st_size == 0:
                raise ModelFormatError("not a conjunct model file (empty file)", name)
            buf = _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ)
        else:
            buf = f.read()
    return _parse(buf, name, verify, later)


def loads(data: bytes, name: str = "<bytes>") -> Tuple[str, Header, Arrays]:
    """Parse model-file bytes."""
    return _parse(data, name, True)


def read_header(path: Path) -> Header:
    """The JSON header of a model file (without reading the sections)."""
    name = os.fspath(path)
    with open(name, "rb") as f:
        pre = f.read(_PREAMBLE.size)
        if len(pre) < _PREAMBLE.size or pre[:8] != MAGIC:
            raise ModelFormatError("not a conjunct model file", name)
        _, version, _, header_len, total, _ = _PREAMBLE.unpack(pre)
        if _PREAMBLE.size + header_len > total:
            raise ModelFormatError("preamble field 'header length': corrupt model file: the header runs past the file",
                               name)
        try:
            kind, meta, sections = _decode_header(f.read(header_len), name)
        except ModelFormatError as e:
            raise staged(e, "reading the header") from None
    header = {"kind": kind, "meta": meta, "sections": sections}
    header["format_version"] = version
    header["file_size"] = total
    return header
