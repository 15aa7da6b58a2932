"""The feature engine: template specs, feature names generated from them,
feature keys in model files (validated as data from strangers) and the C++
tables built from them."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import conjunct
from conjunct import _core
from conjunct._errors import ModelFormatError
from conjunct.features.index import FeatureIndex
from conjunct.features.spec import FeatureKeys, FeatureSpec, Part, Template
from conjunct.io import model_io


def _spec():
    return FeatureSpec([
        Template("w", (Part("form", "t0"),)),
        Template("pair", (Part("form", "t-1"), Part("pos", "t0"))),
        Template("bos", (Part(None, "first"),)),
        Template("p=x", (Part(None, "first"), Part(None, "t0"))),
        Template("nx", (Part("form", "t+1", fallback="-"),)),
    ])


def test_names_are_generated_from_the_spec_and_parse_back():
    spec = _spec()
    assert spec.name(0, ["dog"]) == "w=dog" and spec.name(1, ["the", "N"]) == "pair=the|N"
    assert spec.name(2) == "bos" and spec.name(3) == "p=x"
    for name in ("w=dog", "w=a=b", "pair=the|N", "bos", "p=x", "nx=-", "w="):
        t, values = spec.parse(name)
        assert spec.name(t, values) == name
    for bad in ("wx=dog", "bos=1", "pair=a", "pair=a|b|c", "p"):
        with pytest.raises(ValueError, match="feature"):
            spec.parse(bad)
    assert FeatureSpec.from_meta(spec.to_meta()) == spec


@pytest.mark.parametrize("templates, message", [
    ([Template("a|b", (Part("form", "t0"),))], "may not hold '|'"),
    ([Template("a", (Part("form", "t0"),)), Template("a", (Part("form", "t1"),))], "twice"),
    ([Template("a", ())], "1 to 3 parts"),
    ([Template("a", (Part("form", "t0"),) * 4)], "1 to 3 parts"),
    ([Template("a=b", (Part("form", "t0"),))], "may not hold '='"),
    ([Template("a", (Part("form", "t0"),)), Template("a=b", (Part(None, "t0"),))], "reads as a value"),
    ([Template("a", (Part(None, "t0", fallback="-"),))], "fallback"),
])
def test_spec_checks(templates, message):
    with pytest.raises(ValueError, match=message):
        FeatureSpec(templates)


def _tables(keys: FeatureKeys, **override):
    meta, arrays = keys.to_arrays()
    arrays.update(override)
    spec = FeatureSpec.from_meta(meta)
    return _core.FeatureTables.build(attributes=list(spec.attributes), positions=list(spec.positions),
                                     templates=spec.core_templates(), values_blob=arrays["values_blob"],
                                     values_offsets=arrays["values_offsets"], vocab_ptr=arrays["vocab_ptr"],
                                     template_of=arrays["template"], codes=arrays["codes"])


def test_cxx_tables_find_and_name_every_feature():
    names = ["w=dog", "pair=the|N", "bos", "p=x", "w=犬", "nx=-", "pair=a|V"]
    keys = FeatureKeys.from_names(_spec(), names)
    tables = keys.tables()
    assert len(tables) == len(names) and [tables.name(f) for f in range(len(names))] == names == keys.names()
    for f, name in enumerate(names):
        t, values = keys.spec.parse(name)
        codes = [tables.code(keys.spec.attributes.index(p.attribute), v) if p.attribute else 0
                 for p, v in zip(keys.spec.templates[t].parts, _with_flags(keys.spec.templates[t], values))]
        assert tables.find(t, codes) == f
    assert tables.code(0, "cat") == -1 and tables.find(0, [99]) == -1
    # A known value in a combination the model does not have is no feature.
    assert tables.find(1, [tables.code(0, "a"), tables.code(1, "N")]) == -1


def _with_flags(template, values):
    it = iter(values)
    return [None if p.attribute is None else next(it) for p in template.parts]


def test_cxx_tables_refuse_bad_keys():
    keys = FeatureKeys.from_names(_spec(), ["w=dog", "w=cat", "bos"])
    codes = keys.codes.copy()
    codes[1] = codes[0]
    with pytest.raises(ValueError, match="feature 1: its template and codes are those of an earlier feature"):
        _tables(keys, codes=codes)
    codes = keys.codes.copy()
    codes[1, 0] = 7
    with pytest.raises(ValueError, match="feature 1: code 7 out of range"):
        _tables(keys, codes=codes)
    codes = keys.codes.copy()
    codes[2, 0] = 1
    with pytest.raises(ValueError, match="feature 2: code 1 out of range"):  # a flag's code is 0
        _tables(keys, codes=codes)
    codes = keys.codes.copy()
    codes[0, 2] = 0
    with pytest.raises(ValueError, match="past its template's parts"):
        _tables(keys, codes=codes)
    blob = np.frombuffer(b"dogdog", dtype=np.uint8)
    with pytest.raises(ValueError, match="attribute 'form': a value appears twice"):
        _tables(keys, values_blob=blob, values_offsets=np.array([0, 3, 6], dtype=np.int64))
    template = keys.template_of.copy()
    template[0] = 9
    with pytest.raises(ValueError, match="feature 0: template 9 out of range"):
        _tables(keys, template=template)


def test_keys_too_wide_for_a_template_are_refused():
    # Three parts over a vocabulary of 2^17 values need 51 bits of key: more than the 48 a template has.
    spec = FeatureSpec([Template("t", (Part("form", "a"), Part("form", "b"), Part("form", "c")))])
    values = [f"v{k}" for k in range(1 << 17)]
    keys = FeatureKeys(spec, [values], np.zeros(1, dtype=np.int32), np.array([[0, 1, 2]], dtype=np.int32))
    with pytest.raises(ValueError, match="template 't': its parts' vocabularies need 51 bits"):
        keys.tables()


def _keyed_file(tmp_path):
    index = FeatureIndex(["w=dog", "pair=the|N", "bos", "w=cat"], counts=[3, 2, 1, 1])
    index.keys = FeatureKeys.from_names(_spec(), index.names)
    path = tmp_path / "index.cjt"
    index.save(path)
    return index, path


def test_feature_keys_are_stored_in_the_model_file(tmp_path):
    index, path = _keyed_file(tmp_path)
    kind, meta, arrays = model_io.read_container(path)
    assert "keys" in meta and {"keys.codes", "keys.template", "keys.values_blob"} <= set(arrays)
    for again in (conjunct.load(path), conjunct.load(path, mmap=True)):
        assert again.keys.names() == index.names and again.keys.spec == index.keys.spec


@pytest.mark.parametrize("edit, message", [
    (lambda m, a: a.__setitem__("keys.codes", a["keys.codes"][:2]), "section 'keys.codes': shape"),
    (lambda m, a: a["keys.codes"].__setitem__((1, 0), 40), "section 'keys.codes': feature 1, part 0: code 40"),
    (lambda m, a: a["keys.codes"].__setitem__((0, 2), 0), "section 'keys.codes': feature 0, part 2"),
    (lambda m, a: a["keys.template"].__setitem__(0, 17), "section 'keys.template': value 17"),
    (lambda m, a: a["keys.codes"].__setitem__(3, a["keys.codes"][0]), "section 'keys.codes': features 0 and 3 have the same template and codes"),
    (lambda m, a: a.__setitem__("keys.values_blob", np.frombuffer(b"dogdogtheN", dtype=np.uint8)),
     "section 'keys.values_blob': attribute 'form' holds the value 'dog' twice"),
    (lambda m, a: a["keys.values_blob"].__setitem__(0, 0xFF), "section 'keys.values_blob': string 0 is not UTF-8"),
    (lambda m, a: a["keys.vocab_ptr"].__setitem__(1, 99), "section 'keys.vocab_ptr'"),
    (lambda m, a: a.__setitem__("keys.values_offsets", a["keys.values_offsets"][::-1].copy()), "keys.values_offsets"),
    (lambda m, a: m["keys"]["templates"][0].__setitem__(2, [[5, 0, None]]), "header field 'keys.templates[0]'"),
    (lambda m, a: m["keys"]["templates"][0].__setitem__(2, []), "header field 'keys.templates[0]'"),
    (lambda m, a: m["keys"]["attributes"].__setitem__(0, 3), "header field 'keys.attributes[0]'"),
    (lambda m, a: m["keys"].pop("positions"), "header field 'keys.positions': missing"),
])
def test_bad_feature_keys_sections_are_refused(tmp_path, edit, message):
    _, path = _keyed_file(tmp_path)
    kind, meta, arrays = model_io.read_container(path)
    arrays = {k: np.array(v) for k, v in arrays.items()}
    edit(meta, arrays)
    bad = tmp_path / "bad.cjt"
    model_io.write_container(bad, kind, meta, arrays)
    with pytest.raises(ModelFormatError, match=message.replace("(", r"\(").replace("[", r"\[")):
        conjunct.load(bad)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.binary(max_size=3)), max_size=30))
def test_repeated_string_finds_a_repeat_within_a_group_exactly_when_there_is_one(items):
    from conjunct.features.checks import repeated_string

    items = sorted(items, key=lambda x: x[0])
    values = [v for _, v in items]
    blob = np.frombuffer(b"".join(values), dtype=np.uint8) if values else np.zeros(0, dtype=np.uint8)
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in values], out=offsets[1:])
    got = repeated_string(blob, offsets, np.asarray([g for g, _ in items], dtype=np.int64))
    assert (got >= 0) == (len(set(items)) != len(items))
    if got >= 0:
        assert items[got] in items[:got]
