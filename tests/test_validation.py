"""Model files from strangers: every section is checked on load (reproducers of
issue 16's tour: crafted files with the digest recomputed crashed the process or
gave wrong margins)."""

import copy
import json
import math

import numpy as np
import pytest

import conjunct
from conjunct import ModelFormatError
from conjunct.budget import set_memory_budget
from conjunct.datasets import make_zipf_data
from conjunct.io import model_io
from conjunct.io import persistence
from conjunct.training import PAClassifier


@pytest.fixture(scope="module")
def data():
    feats, y = make_zipf_data(200, n_classes=3, seed=5)
    return feats, y


@pytest.fixture(scope="module")
def model(data):
    return PAClassifier(degree=2, n_iter=2).fit(*data).model_


def compiled(model, method, **params):
    """A classifier whose sections are all non-trivial (split: most features rare)."""
    if method == "split":
        params.setdefault("common_features", 5)
    return full_file(model.compile(method, **params))


def full_file(clf):
    """``clf`` saving every section: a degree-2 split classifier's file leaves
    out what loading recomputes (its refusals are in test_split_derived.py);
    here every section's own checks are exercised."""
    if clf.method == "split":
        clf._derived = []
    return clf


def parts(obj):
    kind, meta, arrays = model_io.loads(model_io.dumps(*obj.to_container()))
    return kind, copy.deepcopy(meta), {k: np.array(v) for k, v in arrays.items()}


def reload(kind, meta, arrays):
    return persistence.from_bytes(model_io.dumps(kind, meta, arrays))


def edited(obj, section=None, change=None, meta=None):
    """The object's file with ``change(array)`` applied to ``section`` and/or
    ``meta(meta)`` to the header, loaded (the digest is recomputed)."""
    kind, m, arrays = parts(obj)
    if section is not None:
        arrays[section] = change(arrays[section])
    if meta is not None:
        meta(m)
    return reload(kind, m, arrays)


def setter(index, value):
    def change(a):
        a.reshape(-1)[index] = value
        return a
    return change


def test_every_kind_round_trips_through_validation(model, data):
    feats = data[0][:40]
    for obj in [model, model.features] + [model.compile(m) for m in ("pkb", "pki", "pke", "split", "fstrie")]:
        again = reload(*parts(obj))
        if hasattr(obj, "decision_function"):
            np.testing.assert_array_equal(again.decision_function(feats), obj.decision_function(feats))


@pytest.mark.parametrize("length", range(0, 14))
def test_pki_max_sv_length_is_checked_against_the_data(model, length):
    """Before: max_sv_length 0-13 was trusted and read past the kernel table."""
    clf = model.compile("pki")
    true_length = clf.meta["max_sv_length"]
    assert true_length > 13

    def shrink(m):
        m["params"]["max_sv_length"] = length

    with pytest.raises(ModelFormatError, match="max_sv_length.*longest support vector"):
        edited(clf, meta=shrink)


@pytest.mark.parametrize("method", ["pkb", "pki", "pke", "split", "fstrie"])
def test_col_map_values_are_range_checked(model, method):
    clf = compiled(model, method)
    for bad in (-2, 10**6, int(clf.arrays["col_map"].max()) + 1):
        with pytest.raises(ModelFormatError, match="m.col_map"):
            edited(clf, "m.col_map", setter(3, bad))


def test_col_map_must_not_map_two_columns_to_one_feature(model):
    clf = model.compile("pke")
    cm = clf.arrays["col_map"]
    a, b = np.flatnonzero(cm >= 0)[:2]
    with pytest.raises(ModelFormatError, match="internal id .* used by"):
        edited(clf, "m.col_map", setter(b, cm[a]))


@pytest.mark.parametrize("method,section", [("pkb", "m.sv_indptr"), ("split", "m.sv_indptr"), ("split", "m.rare_indptr"),
                                            ("pki", "m.inv_indptr")])
def test_csr_pointers_must_be_monotone_and_in_range(model, method, section):
    clf = compiled(model, method)
    ptr = clf.arrays[section[2:]]
    k = int(np.argmax(np.diff(ptr) > 0)) + 1  # an inner pointer after a non-empty row
    for value, problem in ((ptr[k - 1] - 1, "decrease"), (10**9, "decrease|last offset"), (-5, "decrease|first")):
        with pytest.raises(ModelFormatError, match=f"{section}.*({problem})"):
            edited(clf, section, setter(k, value))
    with pytest.raises(ModelFormatError, match="last offset"):
        edited(clf, section, setter(-1, ptr[-1] + 1))
    with pytest.raises(ModelFormatError, match="first offset"):
        edited(clf, section, setter(0, 1))


@pytest.mark.parametrize("section", ["m.sv_indices", "m.rare_indices"])
def test_split_ids_are_range_checked_and_postings_match(model, section):
    clf = compiled(model, "split")
    with pytest.raises(ModelFormatError, match=section):
        edited(clf, section, setter(0, -1))
    with pytest.raises(ModelFormatError, match=section):
        edited(clf, section, setter(0, 2**31 - 1))
    if section == "m.rare_indices":
        a = clf.arrays["rare_indices"]
        # Still in range and ascending, but not the support vectors' postings.
        j = int(np.argmax(np.diff(clf.arrays["rare_indptr"]) == 1))
        pos = int(clf.arrays["rare_indptr"][j])
        other = (int(a[pos]) + 1) % clf.meta["n_features"]
        with pytest.raises(ModelFormatError, match="postings do not match"):
            edited(clf, section, setter(pos, other if other < len(clf.arrays["sv_indptr"]) - 1 else 0))


@pytest.mark.parametrize("method,prefix", [("pke", "m.store."), ("split", "m.store."), ("fstrie", "m.trie."),
                                           ("fstrie", "m.base.store.")])
def test_trie_structure_is_checked(model, method, prefix):
    # Without a dense table every conjunction sits in the trie.
    clf = full_file(model.compile(method, dense_features=0, **({"common_features": 20} if method == "split" else {})))
    label = clf.arrays[prefix[2:] + "label"]
    n = label.size
    assert n > 3, "the fixture's trie is too small to edit"
    cb = clf.arrays[prefix[2:] + "child_begin"]
    cases = [
        ("label", 1, -1, "label"),
        ("label", n - 1, 2**31 - 1, "label"),
        ("child_begin", 0, 0, "child_begin"),
        ("child_begin", n, n + 1, "child_begin"),
        ("child_begin", 1, int(cb[2]) + 1 if cb[2] < n else n + 5, "child_begin"),
        ("root_map", int(np.flatnonzero(clf.arrays[prefix[2:] + "root_map"] >= 0)[0]), n, "root_map"),
        ("root_map", int(np.flatnonzero(clf.arrays[prefix[2:] + "root_map"] >= 0)[0]), -1, "root_map"),
    ]
    for key, index, value, where in cases:
        with pytest.raises(ModelFormatError, match=prefix + where):
            edited(clf, prefix + key, setter(index, value))


def test_dense_table_size_and_n_dense(model):
    clf = model.compile("pke")
    assert clf.meta["n_dense"] > 0

    def fewer(m):
        m["params"]["n_dense"] -= 1

    with pytest.raises(ModelFormatError, match="m.store.dense"):
        edited(clf, meta=fewer)

    def huge(m):
        m["params"]["n_dense"] = 2**31 - 1

    with pytest.raises(ModelFormatError, match="n_dense"):
        edited(clf, meta=huge)
    with pytest.raises(ModelFormatError, match="m.store.dense"):
        edited(clf, "m.store.dense", lambda a: a[:-1])


@pytest.fixture(scope="module")
def binary_model():
    feats, y = make_zipf_data(200, n_classes=2, seed=5)
    return PAClassifier(degree=2, n_iter=2).fit(feats, y).model_


@pytest.fixture(scope="module")
def many_classes():
    """Twelve classes: each support vector moves two or three of the twelve rows, so the
    compiled store keeps sparse rows (and a small dense table leaves conjunctions in its trie)."""
    feats, y = make_zipf_data(300, n_classes=12, seed=5)
    return PAClassifier(degree=2, n_iter=2).fit(feats, y).model_.compile("pke", dense_features=4)


@pytest.mark.parametrize("section", ["m.store.weight", "m.store.row_value", "m.store.dense", "m.bias"])
def test_non_finite_floats_are_refused(binary_model, many_classes, section):
    # A binary model's store has dense rows (a small dense table leaves conjunctions in the trie).
    clf = binary_model.compile("pke", dense_features=4) if section != "m.store.row_value" else many_classes
    assert section in clf.to_container()[2]
    for value in (np.nan, np.inf, -np.inf):
        with pytest.raises(ModelFormatError, match="non-finite"):
            edited(clf, section, setter(0, value))


@pytest.mark.parametrize("section, change, message", [
    ("m.store.row_output", setter(0, 12), "outside \\[0, 12\\)"),
    ("m.store.row_output", setter(0, -1), "outside \\[0, 12\\)"),
    ("m.store.row_begin", setter(-1, 10**9), "must run from 0"),
    ("m.store.row_begin", setter(0, 1), "must run from 0"),
    ("m.store.row_begin", lambda a: a[:-1], "shape"),
    ("m.store.row_value", lambda a: a[:-1], "shape"),
    ("m.store.row_output", lambda a: a.astype(np.int64), "dtype"),
])
def test_sparse_store_rows_checked(many_classes, section, change, message):
    clf = many_classes
    with pytest.raises(ModelFormatError, match=message):
        edited(clf, section, change)


def test_sparse_store_rows_decreasing_or_unordered(many_classes):
    clf = many_classes
    _, _, arrays = parts(clf)
    begin, outputs = arrays["m.store.row_begin"], arrays["m.store.row_output"]
    v = int(np.flatnonzero(np.diff(begin) >= 2)[0])  # a row with two values or more
    with pytest.raises(ModelFormatError, match="decreases"):
        edited(clf, "m.store.row_begin", setter(v + 1, begin[v] - 1))  # row v ends before it starts
    i = int(begin[v])
    swapped = outputs.copy()
    swapped[i], swapped[i + 1] = outputs[i + 1], outputs[i]
    with pytest.raises(ModelFormatError, match="does not ascend"):
        edited(clf, "m.store.row_output", lambda a: swapped)
    with pytest.raises(ModelFormatError, match="not both"):
        kind, m, arrays = parts(clf)
        arrays["m.store.weight"] = np.zeros((begin.size - 1) * 12)
        reload(kind, m, arrays)


def test_alpha_rows_checked(model):
    S = model.support_vectors[:50]
    alpha = np.zeros((50, 3))
    alpha[np.arange(50), np.arange(50) % 3] = 1.0
    ovo = conjunct.KernelModel(S, alpha, np.zeros(3), degree=2, classes=["a", "b", "c"], decision="ovo",
                               features=model.features)
    clf = ovo.compile("pki")
    assert clf.arrays["alpha_ptr"].size  # sparse rows
    with pytest.raises(ModelFormatError, match="m.alpha_out"):
        edited(clf, "m.alpha_out", setter(0, 3))
    with pytest.raises(ModelFormatError, match="m.alpha_ptr"):
        edited(clf, "m.alpha_ptr", setter(5, 10**6))
    with pytest.raises(ModelFormatError, match="m.alpha_val"):
        edited(clf, "m.alpha_val", lambda a: a[:-1])


@pytest.mark.parametrize("key,value,match", [
    ("degree", 0, "degree"), ("degree", 1000, "degree"), ("degree", 2.5, "degree"), ("degree", True, "degree"),
    ("gamma", math.nan, "gamma"), ("coef0", math.inf, "coef0"), ("gamma", "1", "gamma"),
    ("gamma", 1e200, "overflows"), ("coef0", -1e6, None),
])
def test_kernel_scalars(model, key, value, match):
    def change(m):
        m[key] = value

    if match is None:  # (-1e6 + m)^2 is large but finite: loads, and margins stay finite
        again = edited(model, meta=change)
        assert np.all(np.isfinite(again.decision_function(model.support_vectors[:5])))
        return
    with pytest.raises(ModelFormatError, match=match):
        edited(model, meta=change)


def test_kernel_model_arrays_are_checked_before_scipy(model):
    """Before: a crafted sv_indptr / sv_indices crashed inside scipy."""
    ptr = model.support_vectors.indptr
    with pytest.raises(ModelFormatError, match="sv_indptr"):
        edited(model, "sv_indptr", setter(3, 10**9))
    with pytest.raises(ModelFormatError, match="sv_indptr"):
        edited(model, "sv_indptr", setter(3, int(ptr[2]) - 1))
    with pytest.raises(ModelFormatError, match="sv_indices"):
        edited(model, "sv_indices", setter(0, model.n_columns))
    with pytest.raises(ModelFormatError, match="sv_indices.*ascending"):
        edited(model, "sv_indices", lambda a: np.concatenate([a[1::-1], a[2:]]))
    with pytest.raises(ModelFormatError, match="dual_coef"):
        edited(model, "dual_coef", lambda a: a[:, :2].copy())


def test_rule_and_outputs(model):
    def two_classes(m):
        m["rule"]["classes"] = m["rule"]["classes"][:2]

    with pytest.raises(ModelFormatError, match="dual_coef.*shape|intercept"):
        edited(model, meta=two_classes)

    def huge_label(m):
        m["rule"]["classes"][0] = 2**70

    with pytest.raises(ModelFormatError, match="classes"):
        edited(model, meta=huge_label)

    def bad_rule(m):
        m["rule"]["kind"] = "vote"

    with pytest.raises(ModelFormatError, match="rule.kind"):
        edited(model.compile("pkb"), meta=bad_rule)


def test_feature_index_sections(model):
    with pytest.raises(ModelFormatError, match="names_offsets"):
        edited(model.features, "names_offsets", setter(2, 10**9))
    with pytest.raises(ModelFormatError, match="counts"):
        edited(model.features, "counts", setter(0, -1))
    with pytest.raises(ModelFormatError, match="features.counts"):
        edited(model, "features.counts", lambda a: a[:-1])


def test_width_in_the_header_is_checked_against_the_memory_budget(model):
    """A few header bytes must not make the first prediction allocate gigabytes."""
    def wide(m):
        m["n_columns"] = 2**31 - 1
        m.pop("features")

    kind, meta, arrays = parts(model)
    wide(meta)
    arrays = {k: v for k, v in arrays.items() if not k.startswith("features.")}
    set_memory_budget("1G")
    try:
        with pytest.raises(ModelFormatError, match="memory budget"):
            reload(kind, meta, arrays)
    finally:
        set_memory_budget(None)


def test_fstrie_base_and_trie_must_agree(model):
    clf = model.compile("fstrie")

    def degree(m):
        m["params"]["degree"] = 3

    with pytest.raises(ModelFormatError, match="base's degree"):
        edited(clf, meta=degree)
    with pytest.raises(ModelFormatError, match="m.col_map.*base"):
        edited(clf, "m.col_map", lambda a: np.roll(a, 1))
    with pytest.raises(ModelFormatError, match="m.trie.weight"):
        edited(clf, "m.trie.weight", lambda a: a[:-1])


def test_sections_of_a_wrong_dtype_or_shape(model):
    clf = model.compile("pki")
    with pytest.raises(ModelFormatError, match="m.inv_indptr.*dtype"):
        edited(clf, "m.inv_indptr", lambda a: a.astype(np.int32))
    with pytest.raises(ModelFormatError, match="m.bias.*shape"):
        edited(clf, "m.bias", lambda a: a.reshape(1, -1))
    kind, meta, arrays = parts(clf)
    del arrays["m.inv_indices"]
    with pytest.raises(ModelFormatError, match="missing section 'm.inv_indices'"):
        reload(kind, meta, arrays)


def test_errors_name_the_file(tmp_path, model):
    kind, meta, arrays = parts(model.compile("pke"))
    arrays["m.col_map"][0] = 10**6
    path = tmp_path / "crafted.cjt"
    path.write_bytes(model_io.dumps(kind, meta, arrays))
    with pytest.raises(ModelFormatError) as err:
        conjunct.load(path)
    assert str(err.value).startswith(f"{path}: checking sections: section 'm.col_map': value 1000000 at index 0 is outside")


# -- the container's header ---------------------------------------------------------------------------------------
def raw_header(obj):
    data = bytearray(model_io.dumps(*obj.to_container()))
    header_len = int.from_bytes(data[16:24], "little")
    return data, header_len, json.loads(bytes(data[64:64 + header_len]))


def with_header(data, header_len, header):
    import hashlib

    raw = json.dumps(header).encode() if not isinstance(header, bytes) else header
    assert len(raw) <= header_len
    data[64:64 + header_len] = raw.ljust(header_len, b" ")
    data[32:64] = hashlib.blake2b(bytes(data[64:]), digest_size=32).digest()
    return bytes(data)


@pytest.mark.parametrize("edit,match", [
    (lambda h: h["sections"][0].update(shape=[-1]), "non-negative"),
    (lambda h: h["sections"][0].update(shape=[2**40], nbytes=2**43), "past the end"),
    (lambda h: h["sections"][0].update(offset=h["sections"][0]["offset"] + 8), "multiple of 64"),
    (lambda h: h["sections"][1].update(offset=h["sections"][0]["offset"]), "overlaps"),
    (lambda h: h["sections"][1].update(name=h["sections"][0]["name"]), "repeated name"),
    (lambda h: h["sections"][0].update(dtype=">i8"), "dtype"),
    (lambda h: h["sections"][0].update(shape=[True]), "non-negative integers"),
    (lambda h: h.update(kind=["classifier"]), "string 'kind'"),
    (lambda h: h.update(meta=[]), "object 'meta'"),
    (lambda h: h["sections"].append(7), "not an object"),
])
def test_header_records_are_checked(model, edit, match):
    data, n, header = raw_header(model)
    edit(header)
    with pytest.raises(ModelFormatError, match=match):
        persistence.from_bytes(with_header(data, n, header))


def test_deeply_nested_header_is_a_clean_error(model):
    data, n, _ = raw_header(model)
    deep = b"[" * (n - 2) + b"]"
    with pytest.raises(ModelFormatError, match="unreadable header"):
        persistence.from_bytes(with_header(data, n, deep[:n]))


def test_memory_mapped_load_does_not_copy_sections(tmp_path, model, many_classes):
    for clf, store in ((model.compile("pke", dense_features=4), ("store.weight",)),
                       (many_classes, ("store.row_value", "store.row_begin", "store.row_output"))):
        _mapped_views(tmp_path, clf, ("col_map", *store, "store.dense", "store.label"))


def _mapped_views(tmp_path, clf, names):
    import mmap

    clf.save(tmp_path / "m.cjt")
    again = conjunct.load(tmp_path / "m.cjt", mmap=True)
    for name in names:
        a = again.arrays[name]
        while not isinstance(a, mmap.mmap):
            assert a is not None, f"{name} is not a view of the memory map"
            a = a.obj if isinstance(a, memoryview) else a.base


@pytest.mark.parametrize("method", ["pke", "split", "fstrie"])
def test_counts_in_the_header_cannot_ask_for_gigabytes(model, method):
    """Found by the fuzz: n_features = 2**31 - 1 made validation itself allocate 16 GiB."""
    clf = model.compile(method)

    def huge(m):
        params = m["params"]["base_params"] if method == "fstrie" else m["params"]
        params["n_features"] = 2**31 - 1

    with pytest.raises(ModelFormatError, match="n_features"):
        edited(clf, meta=huge)
    pki = model.compile("pki")

    def many(m):
        m["params"]["n_sv"] = 2**31 - 1

    with pytest.raises(ModelFormatError, match="m.alpha"):
        edited(pki, meta=many)


def test_early_exit_tables_are_checked_against_the_budget(model):
    clf = model.compile("pke")
    set_memory_budget("10K")
    try:
        with pytest.raises(ModelFormatError, match="early-exit bounds .* memory budget"):
            reload(*parts(clf))
    finally:
        set_memory_budget(None)


def test_the_last_pair_of_every_array_is_checked():
    """Found by the fuzz: block ends dropped the last neighbour pair, so a reversed
    last row reached scipy (heap corruption in csr_sort_indices)."""
    from conjunct.models.linear import ConjunctiveLinearModel

    clm = ConjunctiveLinearModel([[0], [1], [0, 1], [4, 5]], np.ones((4, 2)), classes=["x", "y"])
    with pytest.raises(ModelFormatError, match="conj_indices.*ascending"):
        edited(clm, "conj_indices", lambda a: np.concatenate([a[:-2], a[:-3:-1]]))
    with pytest.raises(ModelFormatError, match="conj_indptr"):
        edited(clm, "conj_indptr", setter(-2, 7))  # [0, 1, 2, 4, 7, 6]: decreasing at the end


@pytest.mark.parametrize("block", [2, 3, 5])
def test_checks_at_every_block_boundary(model, monkeypatch, block):
    """Element-wise checks run in blocks; with tiny blocks, every position of a
    pointer or id array is a boundary somewhere."""
    from conjunct.io import validation

    monkeypatch.setattr(validation, "_BLOCK", block)
    clf = compiled(model, "split")
    reload(*parts(clf))  # a valid file still loads
    kind, meta, arrays = parts(clf)
    ptr = arrays["m.rare_indptr"]
    inner = range(1, ptr.size - 1)
    for k in sorted(set(inner[:2 * block + 2]) | set(inner[-(2 * block + 2):])):  # both ends, several blocks
        for value in (ptr[k - 1] - 1, ptr[k + 1] + 1):  # below the previous offset, above the next
            bad = dict(arrays)
            bad["m.rare_indptr"] = ptr.copy()
            bad["m.rare_indptr"][k] = value
            with pytest.raises(ModelFormatError, match="m.rare_indptr"):
                reload(kind, meta, bad)
    ids, sv_ptr = arrays["m.sv_indices"], arrays["m.sv_indptr"]
    n_sv = sv_ptr.size - 1
    for r in sorted(set(range(min(8, n_sv))) | set(range(max(0, n_sv - 8), n_sv))):
        a, b = int(sv_ptr[r]), int(sv_ptr[r + 1])
        if b - a >= 2:
            bad = dict(arrays)
            bad["m.sv_indices"] = ids.copy()
            bad["m.sv_indices"][b - 2], bad["m.sv_indices"][b - 1] = ids[b - 1], ids[b - 2]
            with pytest.raises(ModelFormatError, match="m.sv_indices.*ascending"):
                reload(kind, meta, bad)


def test_one_method_list_from_the_core():
    """The core lists the classification methods; the compiler, the file checks
    and the command line read that list."""
    from conjunct import _core
    from conjunct.commands._common import METHODS as CLI_METHODS
    from conjunct.models.classifier_checks import METHOD_SPECS
    from conjunct.models.classifiers import METHODS

    assert METHODS == tuple(_core.METHODS) == ("pkb", "pki", "pke", "split", "fstrie", "adaptive")
    assert tuple(METHOD_SPECS) == METHODS and CLI_METHODS == list(METHODS)
    with pytest.raises(conjunct.ConjunctError, match="expected one of pkb, pki, pke, split, fstrie, adaptive"):
        conjunct.KernelModel([[0, 1]], [1.0], degree=2).compile("nope")


def test_every_kind_checks_its_own_sections():
    """Each saveable kind defines check_sections next to the code that builds it;
    the file layer refuses a kind whose class has none."""
    import importlib

    from conjunct.io.persistence import KINDS, Saveable
    from conjunct.io.validation import validate

    for kind in KINDS:
        cls = KINDS.get(kind)
        assert any("check_sections" in c.__dict__ for c in cls.__mro__[:-1] if c is not Saveable), kind
        importlib.import_module(cls.__module__)

    class Unchecked(Saveable):
        kind = "unchecked_test_kind"

    try:
        with pytest.raises(NotImplementedError, match="does not check its sections"):
            validate("unchecked_test_kind", {}, {}, "x.cjt", Unchecked)
        with pytest.raises(conjunct.ModelFormatError, match="unknown model kind"):
            validate("kernel_model", {}, {}, "x.cjt", Unchecked)
    finally:
        KINDS._classes.pop("unchecked_test_kind", None)
