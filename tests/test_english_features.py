"""The English parser on the feature engine: C++ ids equal the Python
reference path's over whole oracle runs, conjunctions and new roles declared
in a spec work on both sides, old files convert at load or are refused."""

import numpy as np
import pytest

import conjunct
from conjunct import _core
from conjunct._errors import ModelFormatError
from conjunct.features.index import FeatureIndex
from conjunct.features.spec import FeatureSpec, Part, Template
from conjunct.tasks.english import DepSentence, EnglishDependencyParser, arc_eager_oracle, is_projective, read_ud_english
from conjunct.tasks.english.features import FAMILIES, FEATURE_SETS, SPEC, SUBSETS, ConfigurationFeatures, spec_for
from conjunct.tasks.english.runner import feature_keys, token_buffers
from conjunct.tasks.english.transitions import LA, RA, ROOT_LABEL, State


@pytest.fixture(scope="module")
def ewt(ewt_sentences):
    train, dev = ewt_sentences
    return list(train), list(dev)


def _oracle_rows(sentences, t_spec, l_spec):
    """Per component, the feature names of every configuration of the static
    oracle's runs (the label component's at LA / RA not from ROOT), and the moves."""
    rows = {"transition": [], "label": []}
    moves = []
    for s in sentences:
        tf, lf = ConfigurationFeatures(s, spec=t_spec), ConfigurationFeatures(s, spec=l_spec)
        state = State(len(s))
        ms = arc_eager_oracle(s.heads, s.labels)
        for t, label in ms:
            rows["transition"].append(tf.features(state))
            if t == LA or (t == RA and state.stack[-1] != 0):
                rows["label"].append(lf.features(state) + lf.arc_features(state, 0 if t == LA else 1))
            state.apply(t, label)
        moves.append(ms)
    return rows, moves


def _replay(sentences, moves, indexes, specs, label_values):
    features = []
    for index, spec, component in zip(indexes, specs, ("transition", "label")):
        from conjunct.features.spec import FeatureKeys

        index.keys = FeatureKeys.from_names(spec, index.names)
        features.append(_core.ArcEagerFeatures(index.keys.tables(), label_values))
    code = {v: k for k, v in enumerate(label_values)}
    flat = [m for ms in moves for m in ms]
    ptr = np.zeros(len(moves) + 1, dtype=np.int64)
    np.cumsum([len(ms) for ms in moves], out=ptr[1:])
    out = _core.replay_arc_eager(features[0], features[1], code[ROOT_LABEL], sentences,
                                 np.asarray([t for t, _ in flat], dtype=np.int32),
                                 np.asarray([-1 if lab is None else code[lab] for _, lab in flat], dtype=np.int32), ptr)
    return {"transition": (out[0], out[1]), "label": (out[2], out[3])}


def _check_equal(train, test_sets, t_spec, l_spec):
    rows, _ = _oracle_rows(train, t_spec, l_spec)
    indexes = [FeatureIndex.from_data(rows["transition"]), FeatureIndex.from_data(rows["label"])]
    for index in indexes:
        assert len(index) > 0
    labels = sorted({lab for sents in test_sets for s in sents for lab in s.labels} | {ROOT_LABEL})
    checked = 0
    for sents in test_sets:
        rows, moves = _oracle_rows(sents, t_spec, l_spec)
        got = _replay(sents, moves, indexes, (t_spec, l_spec), labels)
        for index, component in zip(indexes, ("transition", "label")):
            ptr, ids = got[component]
            assert len(ptr) == len(rows[component]) + 1
            for r, names in enumerate(rows[component]):
                expected = sorted({i for i in map(index.get, names) if i >= 0})
                assert sorted(ids[ptr[r]:ptr[r + 1]].tolist()) == expected, (component, r, names)
                checked += 1
    return indexes, checked


@pytest.mark.parametrize("features", ["malt", "rich", "zn", "richu", "richu-order2"])
def test_engine_ids_equal_python_reference_over_oracle_runs(ewt, features):
    """Every configuration of the static oracle's runs on real sentences gets
    exactly the reference path's ids (names from the same spec looked up in
    the index; unknown ones dropped on both sides), and the engine names every
    feature id as the index does."""
    train, dev = ewt
    train = [s for s in train[:400] if is_projective(s.heads)]
    dev = [s for s in dev[:300] if is_projective(s.heads)]  # many features unknown to the index
    indexes, checked = _check_equal(train, (train, dev), spec_for(features, "transition"), spec_for(features, "label"))
    assert checked > 20000
    for index in indexes:
        tables = index.keys.tables()
        assert [tables.name(f) for f in range(len(index))] == index.names == index.keys.names()


def test_conjunctions_and_new_roles_are_a_line_of_the_spec(ewt):
    """Templates the shipped sets do not use -- conjunctions of parts, deeper
    roles, other pairs, a label set with a token's tag -- need no code: both
    paths read them from the spec and agree."""
    train, dev = ewt
    train = [s for s in train[:250] if is_projective(s.heads)]
    dev = [s for s in dev[:120] if is_projective(s.heads)]
    extra = [
        Template("s0.p+b0.p", (Part("xpos", "s0"), Part("xpos", "b0")), "x"),
        Template("s0.w+b0.u+d", (Part("form", "s0"), Part("upos", "b0"), Part("distance", "s0-b0")), "x"),
        Template("rdhs0.p", (Part("xpos", "rdhs0"),), "x"),
        Template("s2.u", (Part("upos", "s2"),), "x"),
        Template("s1-b0", (Part("distance", "s1-b0"),), "x"),
        Template("s0.sl+b0.p", (Part("deprel", "s0.ldeps"), Part("xpos", "b0")), "x"),
        Template("hs0.l+s1.root", (Part("deprel", "hs0", "NONE"), Part(None, "s1.root")), "x"),
        Template("t+b0.vl", (Part("move", "arc"), Part("valency", "b0.ldeps")), "y"),
    ]
    t_spec = FeatureSpec(list(spec_for("malt", "transition").templates) + extra[:-1])
    l_spec = FeatureSpec(list(spec_for("malt", "label").templates) + extra)
    indexes, _ = _check_equal(train, (train, dev), t_spec, l_spec)
    for template in ("s0.p+b0.p", "rdhs0.p", "s2.u", "s0.sl+b0.p"):
        assert any(n.startswith(template + "=") for n in indexes[0].names), template
    assert any(n.startswith("t+b0.vl=") for n in indexes[1].names)


def test_engine_refuses_positions_and_parts_it_does_not_know():
    index = FeatureIndex.from_data([["s0.w=dog", "s0=ROOT"]])
    for bad, message in (
        (Template("s0.w", (Part("form", "q0"),)), "unknown position 'q0'"),
        (Template("s0.w", (Part("form", "s0.ldeps"),)), "is not a feature"),
        (Template("s0.w", (Part("valency", "s0"),)), "is not a feature"),
        (Template("s0.w", (Part("form", "hhhhhs0"),)), "unknown position"),
        (Template("s0.w", (Part("lemma", "s0"),)), "unknown attribute 'lemma'"),
    ):
        spec = FeatureSpec([bad, Template("s0=ROOT", (Part(None, "s0.root"),))])
        from conjunct.features.spec import FeatureKeys

        tables = FeatureKeys.from_names(spec, index.names).tables()
        with pytest.raises(ValueError, match=message):
            _core.ArcEagerFeatures(tables, ["root"])
        with pytest.raises(ValueError):
            ConfigurationFeatures(DepSentence(["a"], ["X"], ["X"]), spec=spec)


@pytest.fixture(scope="module")
def small(ewt):
    train, _ = ewt
    return EnglishDependencyParser(degree=2, n_iter=2, features="rich").fit(train[:150])


def test_buffers_parse_as_sentence_objects(small, ewt):
    _, dev = ewt
    sample = dev[:60]
    runner = small.runner()
    assert runner.parse_buffers(*token_buffers(sample)) == small.parse(sample)
    text, field_ptr, sentence_ptr = token_buffers(sample)
    with pytest.raises(ValueError, match="field offsets"):
        runner.parse_buffers(text, field_ptr[:-1], sentence_ptr)
    with pytest.raises(ValueError, match="sentence offsets"):
        runner.parse_buffers(text, field_ptr, sentence_ptr[:-1])
    # Tags as ids (a tagger's output): the same parses.
    forms = [w.encode("utf-8") for s in sample for w in s.forms]
    form_ptr = np.concatenate([[0], np.cumsum([len(w) for w in forms])])
    upos_names, xpos_names = sorted({t for s in sample for t in s.upos}), sorted({t for s in sample for t in s.xpos})
    upos = [upos_names.index(t) for s in sample for t in s.upos]
    xpos = [xpos_names.index(t) for s in sample for t in s.xpos]
    tagged = (b"".join(forms), form_ptr, sentence_ptr, upos, upos_names, xpos, xpos_names)
    assert runner.parse_tagged(*tagged) == small.parse(sample)
    with pytest.raises(ValueError, match="XPOS id is outside"):
        runner.parse_tagged(*tagged[:5], [len(xpos_names)] * len(xpos), xpos_names)
    with pytest.raises(ValueError, match="one UPOS id per token"):
        runner.parse_tagged(*tagged[:3], upos[:-1], *tagged[4:])
    with pytest.raises(ValueError, match="differ in length"):
        small.parse([DepSentence(["a", "b"], ["X"], ["X", "Y"])])
    assert small.parse([]) == []


def test_the_parser_takes_the_classifiers_compiled_handles(small, ewt):
    """parse_arc_eager takes each component's handle alone (rule and classes come with it); the
    transition codes must cover the transition classifier's classes; a Classifier itself is refused."""
    from conjunct import _core

    sample = ewt[1][:20]
    runner = small.runner()
    args = runner._args()
    assert args["transitions"] is runner.transitions.compiled and args["labels"] is runner.labels.compiled
    heads, labels = _core.parse_arc_eager(**args, sentences=sample)[:2]
    assert [h for s in runner.parse_many(sample) for h in s[0]] == heads.tolist()
    with pytest.raises(ValueError, match="one transition code per class"):
        _core.parse_arc_eager(**dict(args, transition_of_class=args["transition_of_class"][:-1]), sentences=sample)
    with pytest.raises(TypeError):
        _core.parse_arc_eager(**dict(args, transitions=runner.transitions), sentences=sample)
    # Without a label classifier an arc gets label 0 (or the root's, or a headless token's).
    unlabeled = _core.parse_arc_eager(**dict(args, labels=None), sentences=sample)
    assert len(unlabeled[0]) == len(heads)
    assert set(unlabeled[1].tolist()) <= {0, args["root_label"], args["dep_label"], args["punct_label"]}


def test_every_decision_classifies_the_reference_vector(small, ewt):
    """The vectors the C++ loop classifies (collected) are, decision for
    decision, the reference parser's names looked up in each component's index."""
    from conjunct.tasks.english.runner import reference_parse

    _, dev = ewt
    sample = dev[:40]
    runner = small.runner()
    _, t_events, l_events = runner.parse_many(sample, collect=True)
    trace = []
    clf = small.classifiers_
    for s in sample:
        reference_parse(s, clf["transition"], clf["label"], specs=runner.specs, trace=trace)
    rows = {"transition": [], "label": []}
    for component, names in trace:
        index = clf[component].features
        rows[component].append(sorted({i for i in map(index.get, names) if i >= 0}))
    for component, events in (("transition", t_events), ("label", l_events)):
        assert events.shape[0] == len(rows[component]) > 0
        assert [sorted(events.indices[events.indptr[r]:events.indptr[r + 1]].tolist())
                for r in range(events.shape[0])] == rows[component]


def _with_models(parser):
    """The parser's container with its kernel models (files before keys had them; both checks edit both copies)."""
    keep, parser.keep_models = parser.keep_models, True
    try:
        return parser.to_container()
    finally:
        parser.keep_models = keep


def test_files_without_feature_keys_convert_at_load(small, ewt, tmp_path):
    """A file written before feature keys has only feature names: the parser
    reads its keys from them through the templates (the next save stores
    them); names the templates do not read are refused: retrain it."""
    _, dev = ewt
    sample = dev[:50]
    expected = small.parse(sample)
    kind, meta, arrays = _with_models(small)
    for component in meta["components"].values():
        for entry in (component["model"], component["classifier"]):
            entry["meta"].get("features", {}).pop("keys", None)
    old = {k: v for k, v in arrays.items() if ".features.keys." not in k}
    assert len(old) < len(arrays)
    loaded = EnglishDependencyParser.from_container(meta, old)
    assert all(c.features.keys is None for c in loaded.classifiers_.values())
    assert loaded.parse(sample) == expected
    path = tmp_path / "converted.cjt"
    loaded.save(path)
    again = conjunct.load(path)
    assert all(c.features.keys is not None for c in again.classifiers_.values())
    assert again.parse(sample) == expected
    with pytest.raises(ModelFormatError, match="retrain it"):
        feature_keys(FeatureIndex(names=["s0.w=dog", "w[-1]=the"]), "malt", "transition")
    with pytest.raises(ModelFormatError, match="retrain it"):  # a rich feature in a malt model
        feature_keys(FeatureIndex(names=["s0.w=dog", "s0.vl=1"]), "malt", "transition")
    rich = feature_keys(FeatureIndex(names=["s0.w=dog", "s0.vl=1"]), "rich", "transition")
    index = FeatureIndex(names=["s0.w=dog"])
    index.keys = rich
    with pytest.raises(ModelFormatError, match="disagree"):
        feature_keys(index, "malt", "transition")


def test_spec_names_the_shipped_sets():
    malt, rich = spec_for("malt", "label"), spec_for("rich", "label")
    assert {t.group for t in rich.templates} == {"malt", "rich", "arc"}
    assert [t.name for t in malt.templates][:5] == ["s0.w", "s0.p", "s0.u", "s0=ROOT", "s0=NONE"]
    transition = [t.name for t in spec_for("rich", "transition").templates]
    assert "t" not in transition and "b2.p" in transition
    assert "b2.p" not in [t.name for t in rich.templates]  # the label component does without the lookahead
    assert len(spec_for("rich", None)) == len(set(transition) | {t.name for t in rich.templates})
    zn_transition = {t.name for t in spec_for("zn", "transition").templates}
    zn_label = {t.name for t in spec_for("zn", "label").templates}
    assert {"b2.w", "b0.p+b1.p+b2.p"} <= zn_transition - zn_label and "s0.p+lds0.p+ld2s0.p" in zn_label
    assert set(transition) | {t.name for t in rich.templates} < zn_transition | zn_label
    assert len(spec_for("zn", None)) == len(zn_transition | zn_label)
    # richu: rich plus the UPOS of the tokens rich reads only the XPOS of (s1 and b2 for the transition component).
    richu_transition = {t.name for t in spec_for("richu", "transition").templates}
    richu_label = {t.name for t in spec_for("richu", "label").templates}
    assert richu_transition - set(transition) == {"b1.u", "hs0.u", "lds0.u", "rds0.u", "ldb0.u", "s1.u", "b2.u"}
    assert richu_label - {t.name for t in rich.templates} == {"b1.u", "hs0.u", "lds0.u", "rds0.u", "ldb0.u"}
    assert len(SPEC) == len({t.name for s in FEATURE_SETS for c in ("transition", "label")
                             for t in spec_for(s, c).templates})  # every template belongs to a set


def test_subsets_leave_out_exactly_their_families():
    """A subset (``richu-order2``, ...) is its set without the templates of
    the families it names, in both components; every family's templates are
    templates of the set."""
    assert SUBSETS["richu-order2"] == ("richu", ("order2",))
    for name, (base, families) in SUBSETS.items():
        out = {n for f in families for n in FAMILIES[f]}
        for component in ("transition", "label", None):
            full = [t.name for t in spec_for(base, component).templates]
            assert [t.name for t in spec_for(name, component).templates] == [n for n in full if n not in out]
        assert out <= {t.name for t in spec_for(base, None).templates}
    assert {"s0.vl", "hs0.l", "lds0.w", "b0.sl"} <= {n for names in FAMILIES.values() for n in names}
    with pytest.raises(ValueError, match="unknown feature set"):
        spec_for("richu-nothing")


def test_a_file_whose_spec_the_parser_cannot_read_is_refused(small, ewt):
    """The stored spec is data from the file: a position the parser has no
    role for, or an attribute at a position that does not carry it, is a
    model-format error naming the section (never a crash)."""
    from conjunct.io import persistence

    _, dev = ewt
    kind, meta, arrays = _with_models(small)
    keys = meta["components"]["transition"]["model"]["meta"]["features"]["keys"]
    for edit, match in ((lambda k: k["positions"].__setitem__(0, "q0"), "unknown position 'q0'"),
                        (lambda k: k["attributes"].__setitem__(k["attributes"].index("upos"), "lemma"),
                         "unknown attribute 'lemma'")):
        import copy

        bad = copy.deepcopy(meta)
        for entry in ("model", "classifier"):
            edit(bad["components"]["transition"][entry]["meta"]["features"]["keys"])
        parser = persistence.build(kind, bad, arrays)  # the file's checks pass: the spec is well formed
        with pytest.raises(ModelFormatError, match=match):
            parser.parse(dev[:2])
    assert keys["positions"][0] != "q0"


def test_a_file_written_before_the_feature_engine_parses_as_it_did():
    """tests/data/english_parser_v1 holds a parser file written by the parser
    of before the feature engine, and its parses then: it loads, reads its
    keys from the feature names, and parses the same."""
    import json
    from pathlib import Path

    data = Path(__file__).parent / "data" / "english_parser_v1"
    expected = json.loads((data / "expected.json").read_text(encoding="utf-8"))
    sentences = [DepSentence(*s) for s in expected["sentences"]]
    parser = conjunct.load(data / "parser_malt.cjt")
    assert all(c.features.keys is None for c in parser.classifiers_.values())
    assert [[list(h), list(l)] for h, l in parser.parse(sentences)] == expected["parses"]
    for s, (heads, labels) in zip(sentences, expected["parses"]):
        assert list(parser.reference_parse(s)) == [heads, labels]


def test_richu_parses_as_the_reference_with_every_method(ewt):
    """The richu set through the C++ loop: the reference parser's parses, and
    the same parses from every classification method."""
    train, dev = ewt
    parser = EnglishDependencyParser(degree=2, n_iter=2, features="richu").fit(train[:100])
    sample = dev[:15]
    expected = [parser.reference_parse(s) for s in sample]
    assert parser.parse(sample) == expected
    for method in ("pki", "pke", "split", "fstrie"):
        parser.compile(method, events=train[:100])
        assert parser.parse(sample) == expected, method


def test_a_subset_trains_saves_and_parses_from_the_command_line(shared_data, tmp_path):
    """``parse train --features richu-order2`` trains a parser without the
    second-order templates; its file keeps the set and parses as the reference."""
    from conjunct.cli import main

    base = shared_data / "ud_english_ewt"
    path = tmp_path / "order2.cjt"
    assert main(["parse", "train", str(base / "en_ewt-ud-train.conllu"), "-o", str(path), "--max-sentences", "60", "-i", "1",
                 "--features", "richu-order2", "-q"]) == 0
    parser = conjunct.load(path)
    assert parser.features == "richu-order2"
    names = {t.name for spec in parser.runner().specs for t in spec.templates}
    assert "lds0.w" in names and not names & set(FAMILIES["order2"])
    dev = read_ud_english(base / "en_ewt-ud-dev.conllu")[:10]
    assert parser.parse(dev) == [parser.reference_parse(s) for s in dev]
