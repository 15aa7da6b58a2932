"""Integer sections stored narrowed (conjunct.io._narrow): exact round trips,
only where smaller, never floats, and crafted records refused cleanly."""

import json
import struct

import numpy as np
import pytest

from conjunct import ModelFormatError
from conjunct.io import model_io
from conjunct.io._narrow import MIN_ENTRIES, narrow


def _arrays(rng):
    n = 5000
    return {
        "ptr": np.cumsum(rng.integers(0, 40, n)).astype(np.int64),         # non-decreasing: differences in |u1
        "labels": rng.integers(0, 60000, n).astype(np.int32),              # <u2
        "codes": rng.integers(-1, 100, (n, 3)).astype(np.int32),           # |i1, 2-D
        "big": rng.integers(-(1 << 40), 1 << 40, n).astype(np.int64),      # nothing narrower holds it
        "small": np.arange(10, dtype=np.int64),                            # too small to bother
        "weights": rng.normal(size=n),                                     # floats stay as they are
        "pointers_with_a_leap": np.concatenate([np.zeros(n - 1), [1 << 40]]).astype(np.int64),
    }


def test_round_trip_is_exact_and_narrower(tmp_path):
    arrays = _arrays(np.random.default_rng(0))
    model_io.write_container(tmp_path / "c.cjt", "x", {}, arrays, compact=True)
    model_io.write_container(tmp_path / "p.cjt", "x", {}, arrays)
    for mmap in (False, True):
        _, _, got = model_io.read_container(tmp_path / "c.cjt", mmap=mmap)
        for k, a in arrays.items():
            assert got[k].dtype == a.dtype and got[k].shape == a.shape and np.array_equal(got[k], a), k
    records = {s["name"]: s for s in model_io.read_header(tmp_path / "c.cjt")["sections"]}
    assert records["ptr"]["dtype"] == "|u1" and records["ptr"]["decode"] == {"dtype": "<i8", "delta": True}
    assert records["labels"]["dtype"] == "<u2" and records["codes"]["dtype"] == "|i1"
    assert not any("decode" in records[k] for k in ("big", "small", "weights", "pointers_with_a_leap"))
    assert model_io.read_header(tmp_path / "c.cjt")["format_version"] == 2
    assert model_io.read_header(tmp_path / "p.cjt")["format_version"] == 1  # readable by readers of version 1
    assert [records[k]["nbytes"] for k in ("ptr", "labels", "codes")] == [5000, 10000, 15000]
    assert narrow(np.arange(MIN_ENTRIES - 1)) is None


def _rewrite(path, edit):
    """Change the header of a file (keeping its length, fixing the digest)."""
    import hashlib

    raw = bytearray(path.read_bytes())
    hlen = struct.unpack_from("<Q", raw, 16)[0]
    header = json.loads(raw[64:64 + hlen])
    edit(header)
    text = json.dumps(header, separators=(",", ":")).encode()
    assert len(text) <= hlen
    raw[64:64 + hlen] = text.ljust(hlen, b" ")
    raw[32:64] = hashlib.blake2b(bytes(raw[64:]), digest_size=32).digest()
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["decode"].update(dtype="<f8"), "'decode' must be an object"),
    (lambda s: s["decode"].update(delta="yes"), "'decode' must be an object"),
    (lambda s: s["decode"].update(extra=1), "'decode' must be an object"),
    (lambda s: s.update(dtype="|i1"), "differences are stored in a 1-D array"),
    (lambda s: s["decode"].update(delta=False, dtype="<i2") or s.update(dtype="<u4", shape=[s["shape"][0] // 4]),
     "does not widen to <i2"),
])
def test_crafted_decode_records_are_refused(tmp_path, edit, message):
    path = tmp_path / "c.cjt"
    model_io.write_container(path, "x", {}, {"ptr": np.arange(4096, dtype=np.int64)}, compact=True)

    def change(header):
        (s,) = header["sections"]
        edit(s)
    _rewrite(path, change)
    with pytest.raises(ModelFormatError, match=message):
        model_io.read_container(path)


def test_differences_past_the_target_dtype_are_refused(tmp_path):
    path = tmp_path / "c.cjt"
    ptr = np.arange(0, 40000 * 60000, 60000, dtype=np.int64)  # differences in <u2, the last past 2**31
    model_io.write_container(path, "x", {}, {"ptr": ptr}, compact=True)
    _rewrite(path, lambda h: h["sections"][0]["decode"].update(dtype="<i4"))
    with pytest.raises(ModelFormatError, match="pass the largest <i4"):
        model_io.read_container(path)


def test_values_from_minus_one_are_stored_shifted_in_version_3(tmp_path):
    # A trie's labels: the root's -1, then ids up to 60,000: <u2 holds them once shifted by 1.
    labels = np.concatenate([[-1], np.random.default_rng(1).integers(0, 60000, 5000)]).astype(np.int32)
    model_io.write_container(tmp_path / "c.cjt", "x", {}, {"label": labels}, compact=True)
    header = model_io.read_header(tmp_path / "c.cjt")
    (record,) = header["sections"]
    assert record["dtype"] == "<u2" and record["decode"] == {"dtype": "<i4", "delta": False, "offset": -1}
    assert header["format_version"] == 3  # older readers refuse it by its version
    for mmap in (False, True):
        got = model_io.read_container(tmp_path / "c.cjt", mmap=mmap)[2]["label"]
        assert got.dtype == np.int32 and np.array_equal(got, labels)


@pytest.mark.parametrize("offset, message", [
    (True, "an 'offset' is a negative integer"),
    (1.5, "an 'offset' is a negative integer"),
    (3, "an 'offset' is a negative integer"),
    (-(1 << 31) - 1, "an 'offset' is a negative integer"),
])
def test_crafted_offsets_are_refused(tmp_path, offset, message):
    path = tmp_path / "c.cjt"
    labels = np.concatenate([[-1], np.arange(40000)]).astype(np.int32)  # <u2 shifted
    model_io.write_container(path, "x", {}, {"label": labels}, compact=True)
    assert model_io.read_header(path)["sections"][0]["decode"]["offset"] == -1
    _rewrite(path, lambda h: h["sections"][0]["decode"].update(offset=offset))
    with pytest.raises(ModelFormatError, match=message):
        model_io.read_container(path)


def test_an_offset_with_differences_or_a_wide_store_is_refused(tmp_path):
    path = tmp_path / "c.cjt"
    model_io.write_container(path, "x", {}, {"label": np.concatenate([[-1], np.arange(40000)]).astype(np.int32)},
                             compact=True)
    _rewrite(path, lambda h: h["sections"][0]["decode"].update(delta=True))
    with pytest.raises(ModelFormatError, match="without 'delta'"):
        model_io.read_container(path)
