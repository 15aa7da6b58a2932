import pickle

import numpy as np
import pytest

import conjunct
from conjunct.cli import main
from conjunct.tasks.english import (
    LA,
    RA,
    DepSentence,
    EnglishDependencyParser,
    apply_transitions,
    arc_eager_oracle,
    attachment_scores,
    is_projective,
    read_ud_english,
    training_examples,
)

METHODS = ("pkb", "pki", "pke", "split", "fstrie")


def random_projective_tree(rng, n):
    """Heads (1-based, 0 = root) of a random projective tree over words 1..n."""
    heads = [0] * (n + 1)

    def build(lo, hi, parent):  # words lo..hi hang (as one subtree) from parent
        if lo > hi:
            return
        h = int(rng.integers(lo, hi + 1))
        heads[h] = parent
        build(lo, h - 1, h)
        build(h + 1, hi, h)

    build(1, n, 0)
    return heads[1:]


def test_oracle_rebuilds_every_projective_tree():
    rng = np.random.default_rng(0)
    for _ in range(400):
        n = int(rng.integers(1, 15))
        heads = random_projective_tree(rng, n)
        assert is_projective(heads)
        labels = [("root" if h == 0 else f"l{rng.integers(3)}") for h in heads]
        moves = arc_eager_oracle(heads, labels)
        assert len(moves) <= 2 * n
        assert sum(t in (LA, RA) for t, _ in moves) == n
        assert apply_transitions(n, moves) == (heads, labels)


def test_oracle_rejects_non_projective_trees():
    heads = [3, 4, 0, 3]  # 1 <- 3 and 2 <- 4 cross
    assert not is_projective(heads)
    with pytest.raises(ValueError, match="projective"):
        arc_eager_oracle(heads, ["a", "b", "root", "c"])


@pytest.fixture(scope="module")
def ewt(ewt_sentences):
    train, dev = ewt_sentences
    return list(train), list(dev)


@pytest.fixture(scope="module")
def small_parser(ewt):
    train, _ = ewt
    # "malt" keeps pkb / pki fast here; the "rich" set is tested in test_english_features.py.
    return EnglishDependencyParser(degree=2, n_iter=3, features="malt").fit(train[:300])


def test_oracle_on_ewt(ewt):
    train, _ = ewt
    nonprojective = 0
    for s in train[:2000]:
        if not is_projective(s.heads):
            nonprojective += 1
            continue
        assert apply_transitions(len(s), arc_eager_oracle(s.heads, s.labels)) == (s.heads, s.labels)
    assert nonprojective > 0
    examples, skipped = training_examples(train[:2000])
    assert skipped == nonprojective
    # Every word gets one arc: the label decisions are the non-root words of the projective sentences.
    kept = [s for s in train[:2000] if is_projective(s.heads)]
    assert len(examples["label"][1]) == sum(len(s) - 1 for s in kept)
    assert "root" not in set(examples["label"][1])


def test_cpp_loop_matches_python_reference(small_parser, ewt):
    _, dev = ewt
    sample = dev[:60]
    fast = small_parser.parse(sample)
    for s, got in zip(sample, fast):
        assert got == small_parser.reference_parse(s)
        heads, labels = got
        assert sum(h == 0 for h in heads) == 1 and len(labels) == len(s)


def test_every_method_parses_alike(small_parser, ewt):
    _, dev = ewt
    sample = dev[:80]
    parser = pickle.loads(pickle.dumps(small_parser))
    expected = parser.parse(sample)
    for method in METHODS:
        parser.compile(method, events=sample)
        assert parser.classifiers_["transition"].method == method
        assert parser.parse(sample) == expected, method
    collected = parser.collect_events(sample)
    n_arcs = sum(len(s) for s in sample)
    assert collected["transition"].shape[0] >= n_arcs
    assert collected["label"].shape[0] <= n_arcs


def test_save_load_pickle_round_trip(small_parser, ewt, tmp_path):
    _, dev = ewt
    sample = dev[:50]
    expected = small_parser.parse(sample)
    path = tmp_path / "ewt.cjt"
    small_parser.save(path)
    for loaded in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(small_parser))):
        assert isinstance(loaded, EnglishDependencyParser)
        assert loaded.parse(sample) == expected
        assert loaded.skipped_sentences_ == small_parser.skipped_sentences_


def test_small_training_reaches_a_sane_floor(small_parser, ewt):
    _, dev = ewt
    result = small_parser.evaluate(dev[:500])
    assert result["uas"] > 0.70 and result["las"] > 0.62
    assert result["las"] <= result["uas"]
    assert result["transition_decisions"] >= result["words"] and result["label_decisions"] <= result["words"]
    assert 0 < result["classifier_seconds"] <= result["seconds"]
    assert small_parser.skipped_sentences_ > 0


def test_attachment_scores_count_every_word():
    gold = [DepSentence(["a", ".", "b"], ["NOUN", "PUNCT", "VERB"], ["NN", ".", "VB"], [3, 3, 0], ["nsubj", "punct", "root"])]
    scores = attachment_scores(gold, [([3, 1, 0], ["obj", "punct", "root"])])
    assert scores["uas"] == pytest.approx(2 / 3) and scores["las"] == pytest.approx(1 / 3)
    assert scores["uas_no_punct"] == 1.0


def test_cli_train_run_eval(ewt, shared_data, tmp_path, capsys):
    src = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    blocks = src.read_text(encoding="utf-8").split("\n\n")
    small = tmp_path / "small.conllu"
    small.write_text("\n\n".join(blocks[:150]) + "\n\n", encoding="utf-8")
    model = tmp_path / "m.cjt"
    assert main(["parse", "train", str(small), "-o", str(model), "-d", "2", "-i", "2", "--quiet", "--keep-models"]) == 0
    out = tmp_path / "out.conllu"
    assert main(["parse", "run", str(model), str(small), "-o", str(out)]) == 0
    parsed, gold = read_ud_english(out), read_ud_english(small)
    assert [s.forms for s in parsed] == [s.forms for s in gold]
    parser = conjunct.load(model)
    assert [(s.heads, s.labels) for s in parsed] == parser.parse(gold)
    capsys.readouterr()
    assert main(["parse", "eval", str(model), str(out), "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["las"] == 1.0
    assert main(["parse", "eval", str(model), str(small), "--method", "pke"]) == 0
    assert "UAS" in capsys.readouterr().out
    assert main(["parse", "eval", str(model), str(small), "--task", "bunsetsu"]) == 2


def test_cli_bunsetsu(shared_data, tmp_path, capsys):
    src = shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu"
    blocks = src.read_text(encoding="utf-8").split("\n\n")
    small = tmp_path / "gsd.conllu"
    small.write_text("\n\n".join(blocks[:120]) + "\n\n", encoding="utf-8")
    model = tmp_path / "b.cjt"
    assert main(["parse", "train", str(small), "-o", str(model), "--task", "bunsetsu", "-d", "2", "-i", "2",
                 "--quiet", "--keep-models"]) == 0
    out = tmp_path / "heads.txt"
    assert main(["parse", "run", str(model), str(small), "-o", str(out)]) == 0
    sentences = out.read_text(encoding="utf-8").rstrip("\n").split("\n\n")
    assert len(sentences) == 120
    parser = conjunct.load(model)
    from conjunct.commands.parse import _read_bunsetsu

    expected = parser.parse(_read_bunsetsu(str(small), None))
    assert [[int(line.split("\t")[1]) for line in s.split("\n")] for s in sentences] == expected
    capsys.readouterr()
    assert main(["parse", "eval", str(model), str(small), "--method", "pki", "--json"]) == 0
    assert "dependency_accuracy" in capsys.readouterr().out
    assert main(["parse", "eval", str(model), str(shared_data / "ud_japanese_gsd")]) == 2  # a directory needs --split


def test_degree_3_fstrie_sits_on_splitting(ewt):
    train, dev = ewt
    parser = EnglishDependencyParser(degree=3, n_iter=2, features="malt").fit(train[:150])  # rich at d = 3: minutes
    assert all(c.meta["base"] == "split" for c in parser.classifiers_.values())
    sample = dev[:40]
    expected = parser.parse(sample)
    assert parser.compile("pke").parse(sample) == expected
    assert parser.compile("fstrie", events=train[:150], base="pke").parse(sample) == expected
    assert parser.classifiers_["label"].meta["base"] == "pke"


def test_conllu_token_lists_parse_as_read_sentences(shared_data, small_parser, ewt):
    """Token streams (conjunct.io.tokens): conllu TokenLists parse and evaluate as the reader's sentences."""
    conllu = pytest.importorskip("conllu")
    _, dev = ewt
    with open(shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu", encoding="utf-8") as f:
        token_lists = conllu.parse(f.read())[:60]
    assert small_parser.parse(token_lists) == small_parser.parse(dev[:60])
    assert small_parser.evaluate(token_lists)["las"] == small_parser.evaluate(dev[:60])["las"]
    assert small_parser.score(dev[:60]) == small_parser.evaluate(dev[:60])["las"]


def test_state_tracks_second_order_dependents_and_label_sets():
    from conjunct.tasks.english.transitions import RE, SH, State

    # "a b c d e": c heads a and b (LA twice), ROOT -> c, c heads d and e (RA, RE, RA).
    state = State(5)
    for t, label in ((SH, None), (SH, None), (LA, "x"), (LA, "y"), (RA, None), (RA, "z"), (RE, None), (RA, "w")):
        state.apply(t, label)
    assert state.ldep[3] == 1 and state.ldep2[3] == 2
    assert state.rdep[3] == 5 and state.rdep2[3] == 4
    assert state.lsets[3] == ["x", "y"] and state.rsets[3] == ["z", "w"] and state.rsets[0] == ["root"]


def test_rich_features_name_non_local_context():
    from conjunct.tasks.english.features import ConfigurationFeatures
    from conjunct.tasks.english.transitions import SH, State

    s = DepSentence(["the", "big", "dog", "barked", "loudly"], ["DET", "ADJ", "NOUN", "VERB", "ADV"],
                    ["DT", "JJ", "NN", "VBD", "RB"])
    state = State(5)
    for t, label in ((SH, None), (SH, None), (LA, "amod"), (LA, "det"), (SH, None), (LA, "nsubj"), (RA, None)):
        state.apply(t, label)
    # s0 = barked (4, head ROOT, left dependent dog), b0 = loudly (5)
    malt = ConfigurationFeatures(s, "malt").features(state)
    rich = ConfigurationFeatures(s, "rich").features(state)
    assert rich[:len(malt)] == malt
    extra = set(rich[len(malt):])
    assert {"lds0.w=dog", "lds0.p=NN", "rds0=NONE", "ldb0=NONE", "hhs0=NONE", "ld2s0=NONE", "hs0.l=NONE",
            "s0.vl=1", "s0.vr=0", "b0.vl=0", "s0.sl=nsubj"} <= extra
    # dog's dependents: second leftmost (big) and both labels
    dog = State(5)
    for t, label in ((SH, None), (SH, None), (LA, "amod"), (LA, "det"), (SH, None)):
        dog.apply(t, label)
    f = ConfigurationFeatures(s, "rich").features(dog)  # s0 = dog, b0 = barked
    assert {"lds0.w=the", "ld2s0.p=JJ", "ld2s0.l=amod", "s0.vl=2", "s0.sl=det", "s0.sl=amod"} <= set(f)


def test_unknown_feature_set_is_refused(ewt):
    train, _ = ewt
    with pytest.raises(ValueError, match="unknown feature set"):
        EnglishDependencyParser(features="nope", n_iter=1).fit(train[:20])


def test_malt_feature_set_cpp_matches_reference(ewt):
    train, dev = ewt
    parser = EnglishDependencyParser(degree=2, n_iter=2, features="malt").fit(train[:150])
    sample = dev[:40]
    for s, got in zip(sample, parser.parse(sample)):
        assert got == parser.reference_parse(s)
    # Models saved before the feature set was a parameter carry none in their config: they are "malt".
    kind, meta, arrays = parser.to_container()
    del meta["config"]["features"]
    old = EnglishDependencyParser.from_container(meta, arrays)
    assert old.features == "malt"
    assert old.parse(sample) == parser.parse(sample)


def _clone_state(st):
    from conjunct.tasks.english.transitions import State

    s = State(st.n)
    s.stack, s.b, s.heads, s.root_done = list(st.stack), st.b, list(st.heads), st.root_done
    return s


def test_dynamic_oracle_costs_are_exact():
    """Each transition's cost is the drop in the most gold arcs still reachable
    (exhaustive search over every continuation), on random configurations."""
    from conjunct.tasks.english.oracle import transition_costs
    from conjunct.tasks.english.transitions import State

    def best(st, gold, memo):
        key = (tuple(st.stack), st.b, tuple(st.heads), st.root_done)
        if key not in memo:
            if st.done():
                memo[key] = sum(st.heads[k] == gold[k] for k in range(1, st.n + 1))
            else:
                memo[key] = max(best(_apply(st, t), gold, memo) for t, ok in enumerate(st.allowed()) if ok)
        return memo[key]

    def _apply(st, t):
        s = _clone_state(st)
        s.apply(t, "x")
        return s

    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(80):
        n = int(rng.integers(1, 8))
        gold = [-1] + random_projective_tree(rng, n)
        memo = {}
        st = State(n)
        while not st.done():
            here = best(st, gold, memo)
            costs = transition_costs(st, gold)
            assert min(c for c in costs if c >= 0) == 0
            for t, ok in enumerate(st.allowed()):
                assert (costs[t] >= 0) == ok
                if ok:
                    assert costs[t] == here - best(_apply(st, t), gold, memo)
                    checked += 1
            st.apply(int(rng.choice([t for t, ok in enumerate(st.allowed()) if ok])), "x")
    assert checked > 500


def test_exploration_examples_teach_zero_cost_moves(small_parser, ewt):
    from conjunct.tasks.english.oracle import exploration_examples

    train, _ = ewt
    sample = [s for s in train[:40] if is_projective(s.heads)]
    clf = small_parser.classifiers_
    examples = exploration_examples(sample, clf["transition"], clf["label"], small_parser.features)
    tf, tl = examples["transition"]
    lf, ll = examples["label"]
    assert len(tf) == len(tl) >= sum(len(s) for s in sample)
    assert set(tl) <= {"SH", "RE", "LA", "RA"} and 0 < len(lf) == len(ll) <= sum(len(s) for s in sample)
    assert set(ll) <= {lab for s in sample for lab in s.labels} - {"root"}


def test_training_with_exploration_adds_examples_and_parses_exactly(ewt):
    train, dev = ewt
    static = EnglishDependencyParser(degree=2, n_iter=2)
    explored = EnglishDependencyParser(degree=2, n_iter=2, explore=True)
    n_static = {k: len(v[1]) for k, v in static.training_examples(train[:80]).items()}
    n_explored = {k: len(v[1]) for k, v in explored.training_examples(train[:80]).items()}
    assert all(n_explored[k] > n_static[k] for k in n_static)
    explored.fit(train[:80])
    sample = dev[:20]
    for s, got in zip(sample, explored.parse(sample)):
        assert got == explored.reference_parse(s)


def test_a_static_parser_is_the_first_round_of_exploration(ewt):
    from conjunct import ConjunctError

    train, dev = ewt
    static = EnglishDependencyParser(degree=2, n_iter=2).fit(train[:60])
    fresh = EnglishDependencyParser(degree=2, n_iter=2, explore=True).fit(train[:60])
    reused = EnglishDependencyParser(degree=2, n_iter=2, explore=True).fit(train[:60], first_round=static)
    assert reused.parse(dev[:30]) == fresh.parse(dev[:30])
    assert reused.training_stats_["transition"]["examples"] == fresh.training_stats_["transition"]["examples"]
    with pytest.raises(ConjunctError, match="n_iter"):
        EnglishDependencyParser(degree=2, n_iter=1, explore=True).fit(train[:60], first_round=static)
    with pytest.raises(ConjunctError, match="other sentences"):
        EnglishDependencyParser(degree=2, n_iter=2, explore=True).fit(train[:50], first_round=static)
    with pytest.raises(ConjunctError, match="explore=True"):
        EnglishDependencyParser(degree=2, n_iter=2).fit(train[:60], first_round=static)


def test_malt_is_the_default_and_files_without_a_feature_set_load_as_malt():
    """Files saved before the feature set was a parameter were trained on
    "malt", the default of new parsers too."""
    from pathlib import Path

    assert EnglishDependencyParser().features == "malt"
    old = conjunct.load(Path(__file__).parent / "data" / "english_parser_v1" / "parser_malt.cjt")
    assert old.features == "malt"


def test_zn_feature_set_is_exact_across_loops_and_methods(ewt):
    """The "zn" set's conjunctions of three parts: the C++ loop parses as the
    reference, and every method as the other."""
    train, dev = ewt
    parser = EnglishDependencyParser(degree=2, n_iter=2, features="zn").fit(train[:150])
    names = parser.classifiers_["transition"].features.names
    assert any(n.startswith("b0.p+b1.p+b2.p=") for n in names)
    assert not any(n.startswith("b2.w=") for n in parser.classifiers_["label"].features.names)
    sample = dev[:30]
    got = parser.parse(sample)
    for s, parse in zip(sample, got):
        assert parse == parser.reference_parse(s)
    assert parser.compile("pki").parse(sample) == got


def random_tree(rng, n):
    """Heads (1-based, 0 = root) of a random tree over words 1..n, projective or not."""
    order = [int(k) + 1 for k in rng.permutation(n)]
    heads = [0] * n
    for i, w in enumerate(order[1:], 1):
        heads[w - 1] = order[int(rng.integers(i))]
    return heads


def test_projectivize_lifts_crossing_arcs_to_ancestors_until_projective():
    from conjunct.tasks.english.oracle import projectivize

    assert projectivize([3, 4, 0, 3]) == [3, 3, 0, 3]  # 2 <- 4 crosses 3's root arc: 2 moves up to 3
    rng = np.random.default_rng(0)

    def ancestors(heads, k):
        out = []
        while heads[k - 1] != 0:
            k = heads[k - 1]
            out.append(k)
        return out

    lifted_some = 0
    for _ in range(500):
        n = int(rng.integers(1, 13))
        heads = random_tree(rng, n)
        lifted = projectivize(heads)
        assert is_projective(lifted)
        if is_projective(heads):
            assert lifted == heads
            continue
        lifted_some += 1
        assert lifted.count(0) == 1 and lifted.index(0) == heads.index(0)  # the root word stays the one root
        for d in range(1, n + 1):  # a word keeps its head or hangs from one of that head's ancestors
            assert lifted[d - 1] == heads[d - 1] or lifted[d - 1] in ancestors(heads, heads[d - 1])
        labels = [("root" if h == 0 else "x") for h in lifted]
        assert apply_transitions(n, arc_eager_oracle(lifted, labels)) == (lifted, labels)
    assert lifted_some > 100


def test_nonprojective_lift_trains_on_every_sentence(ewt, tmp_path):
    from conjunct import ConjunctError

    train, dev = ewt
    data = train[:200]
    n_skip = sum(not is_projective(s.heads) for s in data)
    assert n_skip > 0
    skipped, s_count = training_examples(data, "malt")
    lifted, l_count = training_examples(data, "malt", "lift")
    assert (s_count, l_count) == (n_skip, 0)
    assert all(len(lifted[c][1]) > len(skipped[c][1]) for c in ("transition", "label"))
    parser = EnglishDependencyParser(degree=2, n_iter=1, nonprojective="lift", explore=True).fit(data[:80])
    assert parser.skipped_sentences_ == 0
    for s, got in zip(dev[:15], parser.parse(dev[:15])):
        assert got == parser.reference_parse(s)
    parser.save(tmp_path / "lift.cjt")
    assert conjunct.load(tmp_path / "lift.cjt").nonprojective == "lift"
    assert EnglishDependencyParser().nonprojective == "skip"  # the default
    with pytest.raises(ConjunctError, match="nonprojective"):
        EnglishDependencyParser(nonprojective="keep").fit(data[:5])
