import numpy as np
import pytest

import conjunct
from conjunct.tasks.bunsetsu import (
    BunsetsuParser,
    BunsetsuSegmenter,
    Token,
    dependency_accuracy,
    is_head_final_projective,
    load_gsd_bunsetsu,
    read_cabocha_heads,
    sassano_oracle,
    sassano_parse,
    segmentation_agreement,
    training_examples,
)


def random_head_final_tree(rng, n):
    """A random head-final projective tree: each bunsetsu attaches to a later one without crossing."""
    heads = [-1] * n
    for i in range(n - 2, -1, -1):
        # Allowed heads: i+1 and the heads reachable by following heads from i+1 (no crossing).
        allowed, h = [], i + 1
        while h != -1:
            allowed.append(h)
            h = heads[h]
        heads[i] = int(rng.choice(allowed))
    return heads


def test_sassano_oracle_reconstructs_every_head_final_tree():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        heads = random_head_final_tree(rng, n)
        assert is_head_final_projective(heads)
        asked = sassano_oracle(heads)
        assert all(i < j for i, j, _ in asked)
        # Replaying the answers reproduces the tree.
        answers = {(i, j): dep for i, j, dep in asked}
        assert sassano_parse(n, lambda i, j: answers[(i, j)]) == heads
    assert not is_head_final_projective([2, 3, -1, -1])
    assert not is_head_final_projective([2, 3, 3, -1])  # crossing arcs 0->2 and 1->3
    with pytest.raises(ValueError):
        sassano_oracle([2, 3, 3, -1])


def test_segmenter_needs_gold_labels():
    tok = [Token(1, "a", "a", "NOUN", "名詞-普通名詞-一般", 0, "root", None)]
    with pytest.raises(conjunct.DataFormatError, match="gold"):
        BunsetsuSegmenter().fit([tok])


@pytest.mark.realdata
def test_gsd_derivation_against_gold(shared_data):
    data = shared_data / "ud_japanese_gsd"
    agreement = segmentation_agreement(data)
    assert agreement["dev->test"]["token_accuracy"] > 0.98 and agreement["dev 5-fold"]["token_accuracy"] > 0.98
    dev = load_gsd_bunsetsu(data, "dev")
    gold = read_cabocha_heads(shared_data / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha")
    same = sum(1 for s, (surfaces, heads) in zip(dev, gold) if [b.surface for b in s.bunsetsu] == surfaces and s.heads == heads)
    assert same / len(dev) > 0.95  # the rest differ in how numbers are split into words
    train = load_gsd_bunsetsu(data, "train")
    assert len(train) == 7050 and all(s.derived_segmentation for s in train)
    assert np.mean([is_head_final_projective(s.heads) for s in train]) > 0.99


@pytest.mark.realdata
def test_pipeline_with_imported_model_save_load(tmp_path, shared_data):
    """A pipeline adopts an imported model, compiles an fstrie from its own
    vectors, parses like PKI, and saves / loads / pickles as one file."""
    import pickle

    from conjunct.io.importers import from_sklearn
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser

    SVC = pytest.importorskip("sklearn.svm").SVC
    data = shared_data / "ud_japanese_gsd"
    train = load_gsd_bunsetsu(data, "train")[:800]
    dev = load_gsd_bunsetsu(data, "dev")[:120]
    feats, labels, _ = training_examples(train)
    index = conjunct.FeatureIndex.from_data(feats)
    model = from_sklearn(SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=0.05).fit(index.transform(feats), labels),
                         features=index)
    pipeline = BunsetsuDependencyParser(method="fstrie", method_params={"max_nodes": 5000}).fit(train, models={"depends": model})
    assert pipeline.classifier_.method == "fstrie" and 0 < pipeline.classifier_.meta["nodes"] <= 5000
    reference = BunsetsuParser(model.compile("pki")).parse_many(dev)
    assert pipeline.parse(dev) == reference
    report = pipeline.evaluate(dev)
    assert report["decisions"] > len(dev) and 0 < report["classifier_seconds"] <= report["seconds"]
    pipeline.save(tmp_path / "parser.cjt")
    for again in (conjunct.load(tmp_path / "parser.cjt"), conjunct.load(tmp_path / "parser.cjt", mmap=True),
                  pickle.loads(pickle.dumps(pipeline))):
        assert isinstance(again, BunsetsuDependencyParser) and again.parse(dev) == reference


@pytest.mark.realdata
def test_pa_trained_pipeline_degrees_methods_and_python_reference(shared_data):
    """PA-I (kernel slicing) trains the pipeline; d = 2 beats d = 1; every
    classification method parses identically; the C++ parsing loop equals
    Sassano's algorithm run in Python with the classifier called per decision."""
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, SentenceFeatures

    data = shared_data / "ud_japanese_gsd"
    train = load_gsd_bunsetsu(data, "train")[:2500]
    dev = load_gsd_bunsetsu(data, "dev")[:250]
    acc = {}
    for d in (1, 2):
        p = BunsetsuDependencyParser(degree=d, n_iter=5, method="pke").fit(train)
        acc[d] = p.evaluate(dev)["dependency_accuracy"]
    assert acc[2] > acc[1] + 0.01, acc
    right_branching = dependency_accuracy(dev, [[k + 1 if k + 1 < len(s) else -1 for k in range(len(s))] for s in dev])[0]
    assert acc[2] > right_branching + 0.1, (acc, right_branching)
    heads = {}
    for method in ("pkb", "pki", "pke", "split", "fstrie"):
        p.compile(method, events=train[:300])
        heads[method] = p.parse(dev)
    assert all(h == heads["pkb"] for h in heads.values())
    clf = p.classifier_
    python = []
    for s in dev:
        f, h = SentenceFeatures(s), [-1] * len(s)
        python.append(sassano_parse(len(s), lambda i, j: clf.predict_one(f.pair(i, j, h)) == 1, h))
    assert python == heads["pkb"]


def _cxx_oracle(sentences, groups, index):
    from conjunct import _core
    from conjunct.tasks.bunsetsu.runner import feature_keys

    gold = np.asarray([h for s in sentences for h in s.heads], dtype=np.int32)
    engine = _core.BunsetsuFeatures(tables=feature_keys(index, groups).tables())
    heads, decisions, _, _, (ptr, ids), labels, _ = engine.oracle(sentences=sentences, gold=gold)
    return heads, ptr, ids, labels


GROUP_SETS = [("core",), ("core", "siblings", "coord"), ("core", "edge", "context"), ("core", "particles", "brackets"), None]


@pytest.mark.realdata
@pytest.mark.parametrize("groups", GROUP_SETS)
def test_engine_ids_equal_python_reference(shared_data, groups):
    """The feature engine gives exactly the ids of the Python reference path
    (names from the same spec, looked up in the feature index) for every
    oracle decision of real sentences, features the model does not know
    dropped on both sides; and it names every feature id as the index does."""
    from conjunct.features.index import FeatureIndex
    from conjunct.tasks.bunsetsu import FEATURE_GROUPS
    from conjunct.tasks.bunsetsu.runner import feature_keys

    groups = FEATURE_GROUPS if groups is None else groups
    data = shared_data / "ud_japanese_gsd"
    train = [s for s in load_gsd_bunsetsu(data, "train")[:1500] if is_head_final_projective(s.heads)]
    dev = [s for s in load_gsd_bunsetsu(data, "dev") if is_head_final_projective(s.heads)]
    feats, labels, _ = training_examples(train, groups)
    index = FeatureIndex.from_data(feats)
    tables = feature_keys(index, groups).tables()
    assert [tables.name(f) for f in range(len(index))] == index.names == index.keys.names()
    for sents in (train, dev):  # dev: many features unknown to the index
        feats, labels, _ = training_examples(sents, groups)
        heads, ptr, ids, cxx_labels = _cxx_oracle(sents, groups, index)
        assert cxx_labels.tolist() == labels
        assert heads.tolist() == [h for s in sents for h in s.heads]
        for r, f in enumerate(feats):
            expected = sorted({i for i in map(index.get, f) if i >= 0})
            assert ids[ptr[r]:ptr[r + 1]].tolist() == expected, (r, f)


def _tiny_parser():
    from conjunct.training import PAClassifier

    est = PAClassifier(degree=1, n_iter=2).fit([["dist=1", "m.h.w=犬"], ["dist=2-5"], ["h.h.w=犬", "dist=1"]], [1, -1, 1])
    return BunsetsuParser(est.model_.compile("pkb"))


def test_engine_rejects_bad_input():
    from conjunct.tasks.bunsetsu import Bunsetsu, BunsetsuSentence
    from conjunct.tasks.bunsetsu.runner import token_buffers

    parser = _tiny_parser()
    dog = Token(1, "犬", "犬", "NOUN", "名詞-普通名詞-一般", 2, "nsubj")
    ga = Token(2, "が", "が", "ADP", "助詞-格助詞", 0, "case")
    sents = [BunsetsuSentence([Bunsetsu([dog]), Bunsetsu([ga])])]
    text, field_ptr, bunsetsu_ptr, sentence_ptr = token_buffers(sents)
    assert parser.parse_buffers(text, field_ptr, bunsetsu_ptr, sentence_ptr) == parser.parse_many(sents) == [[1, -1]]
    with pytest.raises(ValueError, match="cover the text"):
        parser.parse_buffers(text + b"x", field_ptr, bunsetsu_ptr, sentence_ptr)
    with pytest.raises(ValueError, match="three entries per token"):
        parser.parse_buffers(text, field_ptr[:-1], bunsetsu_ptr, sentence_ptr)
    with pytest.raises(ValueError, match="no tokens"):
        parser.parse_buffers(text, field_ptr, np.array([0, 2, 2]), sentence_ptr)
    with pytest.raises(ValueError, match="sentence offsets"):
        parser.parse_buffers(text, field_ptr, bunsetsu_ptr, np.array([0, 3]))
    with pytest.raises(ValueError, match="bunsetsu 1 has no tokens"):
        parser.parse_many([BunsetsuSentence([Bunsetsu([dog]), Bunsetsu([])])])
    bad = Token(1, "犬", "犬", "NOUN", "名詞", 0, "root")
    bad.xpos = 7
    with pytest.raises(TypeError, match="xpos is not a string"):
        parser.parse_many([BunsetsuSentence([Bunsetsu([bad])])])
    with pytest.raises(AttributeError):
        parser.parse_many([object()])
    # The loop takes the classifier's compiled handle, which brings its own rule and classes.
    heads = parser.features.parse(classifier=parser.classifier.compiled, depends=1, early_exit=True, sentences=sents)[0]
    assert heads.tolist() == [1, -1]
    with pytest.raises(TypeError):
        parser.features.parse(classifier=parser.classifier, depends=1, early_exit=True, sentences=sents)
    # Strings are read in C++ as they are: a newline in a form is a character like any other.
    odd = Token(1, "犬\n", "犬", "NOUN", "名詞-普通名詞-一般", 0, "root")
    assert parser.parse_many([BunsetsuSentence([Bunsetsu([odd]), Bunsetsu([ga])])]) == [[1, -1]]


def test_old_feature_index_converts_or_is_refused(tmp_path):
    """A model file written before feature keys has only feature names: the
    parser reads its keys from them through the templates (and the next save
    stores them); names the templates do not read are refused: retrain it."""
    from conjunct._errors import ModelFormatError
    from conjunct.features.index import FeatureIndex
    from conjunct.tasks.bunsetsu.runner import feature_keys

    index = FeatureIndex(names=["dist=1", "m.h.w=犬", "coord.m", "h+1.h.w=-", "m.pos=begin"])
    keys = feature_keys(index)
    assert index.keys is keys and keys.names() == index.names
    meta, arrays = index.to_arrays()
    again = FeatureIndex.from_arrays(meta, arrays)
    assert again.keys.names() == index.names and again.keys.spec == keys.spec
    for names in (["dist=1", "m.hw=犬"], ["b.case"], ["sib.pt=が"]):  # unknown template, no value, a group not used
        with pytest.raises(ModelFormatError, match="retrain it"):
            feature_keys(FeatureIndex(names=names))
    with pytest.raises(ValueError, match="groups"):
        feature_keys(index, ("core",))
    index.add("m.h.w=猫")
    assert index.keys is None  # new features: the keys are read again


def test_model_file_names_its_feature_groups(tmp_path):
    """A bunsetsu model names the templates it was trained with; files without
    them (older templates) or with unknown ones are refused, naming the field."""
    from conjunct._errors import ModelFormatError
    from conjunct.io import validation
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser

    p = BunsetsuDependencyParser()
    base = {"task": "bunsetsu", "params": {}, "components": {}}
    for config, message in (({}, "older conjunct"), ({"groups": ["edge"]}, "including 'core'"),
                            ({"groups": ["core", "nope"]}, "including 'core'"), (None, "config")):
        meta = dict(base) if config is None else {**base, "config": config}
        with pytest.raises(ModelFormatError, match=message):
            validation.validate("task_pipeline", meta, {}, "x.cjt", owner=type(p))


def test_feature_keys_the_cxx_tables_refuse_name_the_section():
    """Keys that pass the file checks but not the C++ tables' (a value twice in
    a vocabulary) are a model format error naming the section."""
    from conjunct._errors import ModelFormatError
    from conjunct.features.spec import FeatureKeys

    clf = _tiny_parser().classifier
    keys = clf.features.keys
    form = keys.spec.attributes.index("form")
    vocabs = [list(v) for v in keys.vocabs]
    vocabs[form] = vocabs[form] + [vocabs[form][0]]
    clf.features.keys = FeatureKeys(keys.spec, vocabs, keys.template_of, keys.codes)
    with pytest.raises(ModelFormatError, match="section features.keys: attribute 'form': a value appears twice"):
        BunsetsuParser(clf)


@pytest.fixture(scope="module")
def gsd_train_head(shared_data):
    """The first 800 GSD train sentences (some not head-final and projective)."""
    return load_gsd_bunsetsu(shared_data / "ud_japanese_gsd", "train")[:800]


@pytest.mark.realdata
@pytest.mark.parametrize("groups", GROUP_SETS)
def test_engine_training_rows_equal_python_reference(gsd_train_head, groups):
    """The engine's training rows (one C++ call) index the same features as the
    strings of the reference path: same names in the same order (first
    occurrence), same counts and keys, every decision's features and label,
    and the same sentences skipped (not head-final and projective)."""
    from conjunct.features.index import FeatureIndex
    from conjunct.features.spec import FeatureKeys
    from conjunct.tasks.bunsetsu import FEATURE_GROUPS, training_rows
    from conjunct.tasks.bunsetsu.features import spec_for

    groups = FEATURE_GROUPS if groups is None else groups
    train = gsd_train_head
    feats, labels, skipped = training_examples(train, groups)
    assert skipped > 0  # the slice holds trees the oracle cannot build
    rows, cxx_labels, cxx_skipped = training_rows(train, groups)
    index = FeatureIndex.from_data(feats)
    assert (cxx_skipped, cxx_labels.tolist()) == (skipped, labels)
    assert rows.index.names == index.names
    assert rows.index.counts.tolist() == index.counts.tolist()
    keys, expected = rows.index.keys, FeatureKeys.from_names(spec_for(groups), index.names)
    assert keys.vocabs == expected.vocabs
    assert np.array_equal(keys.template_of, expected.template_of) and np.array_equal(keys.codes, expected.codes)
    M = rows.matrix
    assert M.shape == (len(feats), len(index)) and M.has_sorted_indices
    for r, f in enumerate(feats):
        assert M.indices[M.indptr[r]:M.indptr[r + 1]].tolist() == sorted(map(index.get, f)), r


@pytest.mark.realdata
@pytest.mark.parametrize("degree", [2, 3])
def test_engine_trained_model_equals_string_trained(gsd_train_head, degree):
    """Training on the engine's rows gives exactly the model training on the
    reference path's strings gives: support vectors, weights, bias, feature
    names and counts; the pipeline's fit uses the engine's rows."""
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, training_rows
    from conjunct.training import PAClassifier

    train = gsd_train_head[:400]
    feats, labels, _ = training_examples(train)
    rows, cxx_labels, _ = training_rows(train)
    models = []
    for X, y in ((feats, labels), (rows, cxx_labels)):
        models.append(PAClassifier(degree=degree, n_iter=3, random_state=0).fit(X, y).model_)
    a, b = models
    assert a.n_support_vectors > 100
    assert (a.support_vectors != b.support_vectors).nnz == 0 and a.support_vectors.shape == b.support_vectors.shape
    assert np.array_equal(a.dual_coef, b.dual_coef) and np.array_equal(a.intercept, b.intercept)
    assert a.features.names == b.features.names and np.array_equal(a.features.counts, b.features.counts)
    pipeline = BunsetsuDependencyParser(degree=degree, n_iter=3, random_state=0, method="pkb").fit(train)
    c = pipeline.model_
    assert (c.support_vectors != a.support_vectors).nnz == 0 and np.array_equal(c.dual_coef, a.dual_coef)
    assert c.features.names == a.features.names and c.features.keys is not None


def test_parse_text_equals_parse_many(shared_data):
    """J.DepP's input text parsed in C++ gives the heads of the sentence
    objects; a malformed line is refused naming the input and its line."""
    from conjunct._errors import DataFormatError
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser
    from conjunct.tasks.bunsetsu.runner import cabocha_text

    data = shared_data / "ud_japanese_gsd"
    parser = BunsetsuDependencyParser(degree=2, n_iter=3, method="pke").fit(load_gsd_bunsetsu(data, "train")[:400])
    dev = [s for s in load_gsd_bunsetsu(data, "dev")[:300] if not any(t.form[0] in "*#" for b in s.bunsetsu for t in b.tokens)]
    runner = parser.runner()
    text = cabocha_text(dev)
    assert text.startswith("* 0 ") and text.endswith("EOS\n") and "\t*,*,*," in text
    heads = runner.parse_many(dev)
    assert any(h != [k + 1 if k + 1 < len(h) else -1 for k in range(len(h))] for h in heads)  # not all trivial
    assert runner.parse_text(text) == runner.parse_text(text.encode()) == heads
    assert runner.parse_text(text.replace("\n", "\r\n")) == heads
    assert runner.parse_text("# a comment\n" + text) == heads
    assert runner.parse_text("") == []
    one = "* 0 1D\n犬\t*,*,*,名詞-普通名詞-一般,*,*\n* 1 -1D\nが\t*,*,*,助詞-格助詞,*,*\nEOS\n"
    assert runner.parse_text(one) == [[1, -1]]
    for bad, line, problem in [
        ("犬\t*,*,*,名詞,*,*\nEOS\n", 1, "before the first"),
        ("* 0 -1D\n犬\t*,*,*,名詞\nEOS\n", 2, "6 comma-separated fields"),
        ("* 0 -1D\n犬 名詞\nEOS\n", 2, "<surface>"),
        ("* 0 1D\n* 1 -1D\n犬\t*,*,*,名詞,*,*\nEOS\n", 2, "no tokens"),
        ("* 0 -1D\n犬\t*,*,*,名詞,*,*\n", 3, "no EOS"),
        ("*0 -1D\nEOS\n", 1, "bunsetsu line"),
    ]:
        with pytest.raises(DataFormatError, match=problem) as e:
            runner.parse_text(bad, name="test.JDP")
        assert e.value.line == line and "test.JDP" in str(e.value)
    from conjunct.tasks.bunsetsu import Bunsetsu, BunsetsuSentence

    star = Token(1, "*注", "*注", "SYM", "補助記号-一般", 0, "root")
    with pytest.raises(ValueError, match="no CaboCha line"):
        cabocha_text([BunsetsuSentence([Bunsetsu([star])])])
