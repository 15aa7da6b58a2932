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
    assert agreement["dev->test"]["token_accuracy"] > 0.98 and agreement["test->dev"]["token_accuracy"] > 0.98
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

    from conjunct.importers import from_sklearn
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
    python = [sassano_parse(len(s), lambda i, j, f=SentenceFeatures(s): clf.predict_one(f.pair(i, j)) == 1) for s in dev]
    assert python == heads["pkb"]
