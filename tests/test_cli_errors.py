"""The command line on bad input and resources (issue 16): clear one-line
errors naming the file or option, exit codes, no traceback, never a silently
wrong answer. Each test was a reproducer of the reliability tour."""

from __future__ import annotations

import numpy as np
import pytest

import conjunct
from conjunct.budget import MemoryBudgetError, set_memory_budget
from conjunct.cli import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_SYSTEM, main
from conjunct.datasets import make_zipf_data
from conjunct.training import PAClassifier
from helpers import run_cli


@pytest.fixture(scope="module")
def svm(tmp_path_factory):
    feats, y = make_zipf_data(300, n_classes=2, seed=3)
    index = conjunct.FeatureIndex.from_data(feats)
    path = tmp_path_factory.mktemp("svm") / "train.svm"
    conjunct.write_svmlight(path, index.transform(feats), y)
    return path


@pytest.fixture(scope="module")
def model(svm):
    path = svm.parent / "m.cjt"
    assert main(["train", "-q", str(svm), "-o", str(path), "-i", "1"]) == 0
    return path


# -- OS errors ---------------------------------------------------------------------------------------------------------
def test_missing_output_directory_names_the_file_not_a_temp_file(svm, tmp_path, capsys):
    target = tmp_path / "nodir" / "m.cjt"
    code, _, err = run_cli(["train", "-q", svm, "-o", target], capsys)
    assert code == EXIT_SYSTEM
    assert str(target) in err and "no such directory" in err and ".tmp" not in err


def test_output_path_is_a_directory(svm, tmp_path, capsys):
    code, _, err = run_cli(["train", "-q", svm, "-o", tmp_path], capsys)
    assert code in (EXIT_INPUT, EXIT_SYSTEM) and "directory" in err and str(tmp_path) in err


def test_info_of_a_directory(tmp_path, capsys):
    code, _, err = run_cli(["info", tmp_path], capsys)
    assert code in (EXIT_INPUT, EXIT_SYSTEM)
    assert err.startswith("conjunct: error: ") and str(tmp_path) in err and "directory" in err


def test_predict_to_a_missing_directory(model, svm, tmp_path, capsys):
    target = tmp_path / "nodir" / "labels.txt"
    code, _, err = run_cli(["predict", model, svm, "-o", target], capsys)
    assert code == EXIT_SYSTEM and str(target) in err and "directory must exist" in err


def test_out_of_memory_is_a_clear_message(monkeypatch, svm, tmp_path, capsys):
    from conjunct.commands import train

    def exhausted(args):
        raise MemoryError()

    monkeypatch.setattr(train, "run", exhausted)
    code, _, err = run_cli(["train", svm, "-o", tmp_path / "m.cjt"], capsys)
    assert code == EXIT_SYSTEM and "out of memory" in err and "--memory-budget" in err


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, svm, tmp_path, capsys):
    from conjunct.commands import train

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "run", interrupted)
    code, _, err = run_cli(["train", svm, "-o", tmp_path / "m.cjt"], capsys)
    assert code == EXIT_INTERRUPTED and "interrupted" in err


# -- options out of their domain ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, flag", [
    (["train", "{svm}", "-o", "{out}", "--seed", "-1"], "--seed"),
    (["demo", "--classes", "1"], "--classes"),
    (["predict", "{model}", "{svm}", "-j", "0"], "-j"),
    (["chunk", "train", "{svm}", "-o", "{out}", "--window", "-1"], "--window"),
    (["segment", "train", "{svm}", "-o", "{out}", "--max-sentences", "0"], "--max-sentences"),
    (["train", "{svm}", "-o", "{out}", "-d", "0"], "-d"),
    (["train", "{svm}", "-o", "{out}", "-i", "0"], "-i"),
    (["compile", "{model}", "-o", "{out}", "--memory-budget", "12"], "--memory-budget"),
])
def test_options_outside_their_domain_are_refused(argv, flag, svm, model, tmp_path, capsys):
    argv = [a.format(svm=svm, model=model, out=tmp_path / "x.cjt") for a in argv]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and f"argument {flag}" in err
    assert not (tmp_path / "x.cjt").exists()


def test_n_jobs_minus_one_means_every_core(model, svm, capsys):
    from conjunct._jobs import cpu_count, resolve_n_jobs

    assert resolve_n_jobs(-1) == cpu_count() and resolve_n_jobs(-2) == max(cpu_count() - 1, 1)
    assert resolve_n_jobs(None) == 1 and resolve_n_jobs(3) == 3
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(conjunct.ConjunctError, match="n_jobs"):
            resolve_n_jobs(bad)
    clf = conjunct.load(model).compile("pki")
    X, _ = conjunct.read_svmlight(svm)
    assert np.array_equal(clf.decision_function(X, n_jobs=-1), clf.decision_function(X, n_jobs=1))
    with pytest.raises(conjunct.ConjunctError, match="n_jobs"):
        clf.predict(X, n_jobs=0)
    assert run_cli(["predict", model, svm, "-j", "-1"], capsys)[0] == 0


# -- the kernel's parameter domain (API and CLI) -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_data():
    rng = np.random.default_rng(0)
    X = [[f"f{j}" for j in rng.choice(50, 8, replace=False)] for _ in range(200)]
    return X, rng.integers(0, 3, 200)


@pytest.mark.parametrize("params, match", [
    (dict(degree=1000), "degree must be an integer in \\[1, 255\\]"),
    (dict(degree=200), "degree is too large: .*about 1e191"),
    (dict(gamma=1e200), "gamma is too large"),
    (dict(coef0=1e200), "coef0 is too large"),
    (dict(coef0=-1e6), "coef0 must be a finite number >= 0"),
    (dict(coef0=float("nan")), "coef0 must be a finite number >= 0"),
    (dict(gamma=1e-40, coef0=0.0, degree=3), "gamma makes kernel values vanish"),
    (dict(gamma=0.0), "gamma must be a positive number"),
])
def test_kernel_parameters_that_overflow_are_refused(small_data, params, match):
    """Before: these trained 0 support vectors and one class, silently."""
    with pytest.raises(conjunct.ConjunctError, match=match):
        PAClassifier(**{"degree": 2, **params}, n_iter=1).fit(*small_data)


def test_high_but_finite_kernels_still_train(small_data):
    clf = PAClassifier(degree=20, n_iter=2).fit(*small_data)
    assert clf.n_support_ > 0 and len(np.unique(clf.predict(small_data[0]))) == 3


def test_cli_train_names_the_kernel_parameter(svm, tmp_path, capsys):
    code, _, err = run_cli(["train", svm, "-o", tmp_path / "m.cjt", "--gamma", "1e200"], capsys)
    assert code == EXIT_INPUT and "gamma is too large" in err and not (tmp_path / "m.cjt").exists()
    code, _, err = run_cli(["train", svm, "-o", tmp_path / "m.cjt", "--coef0=-1e6"], capsys)
    assert code == EXIT_INPUT and "coef0 must be" in err


# -- memory budgets -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wide_model():
    """A degree-4 model whose expansion runs to millions of conjunctions."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    n, F, L = 300, 3000, 30
    rows = [np.sort(rng.choice(F, L, replace=False)) for _ in range(n)]
    X = sp.csr_matrix((np.ones(n * L), np.concatenate(rows), np.arange(0, n * L + 1, L)), shape=(n, F))
    return PAClassifier(4, n_iter=1).fit(X, rng.integers(0, 2, n)).model_


@pytest.mark.parametrize("method", ["pke", "split", "fstrie"])
def test_an_expansion_past_the_budget_is_refused(wide_model, method):
    """Before: PKE at d = 4 on 1,000 vectors ran 59 s to 5.7 GB before bad_alloc."""
    set_memory_budget("32M")
    try:
        params = {"common_features": 3000} if method == "split" else {}
        with pytest.raises(MemoryBudgetError, match="kernel expansion .* over the memory budget of 32.0 MiB"):
            wide_model.compile(method, **params)
    finally:
        set_memory_budget(None)


def test_an_explicit_expansion_past_the_budget_is_refused(wide_model):
    """expand (PAClassifier.to_linear, conjunct train --explicit) counts its trie as it grows."""
    from conjunct.training.expand import expand

    set_memory_budget("32M")
    try:
        with pytest.raises(MemoryBudgetError, match="degree-4 kernel expansion .* memory budget of 32.0 MiB"):
            expand(wide_model)
    finally:
        set_memory_budget(None)


def test_an_explicit_dense_table_past_the_budget_is_refused(wide_model):
    set_memory_budget("16M")
    try:
        with pytest.raises(MemoryBudgetError, match="dense table of [0-9,]+ features at degree 4"):
            wide_model.compile("pke", dense_features=3000)
        with pytest.raises(MemoryBudgetError, match="dense_bytes"):
            wide_model.compile("pke", dense_bytes=1 << 30)
    finally:
        set_memory_budget(None)


def test_cli_memory_budget_flag(wide_model, tmp_path, capsys):
    path = tmp_path / "wide.cjt"
    wide_model.save(path)
    code, _, err = run_cli(["compile", path, "-o", tmp_path / "c.cjt", "--method", "pke", "--memory-budget", "32M"], capsys)
    assert code == EXIT_INPUT and "memory budget of 32.0 MiB" in err and not (tmp_path / "c.cjt").exists()
    from conjunct.budget import memory_budget

    assert memory_budget() > 32 << 20  # the flag does not outlive the command


def test_train_memory_budget_needs_a_unit(svm, tmp_path, capsys):
    code, _, err = run_cli(["train", "-q", svm, "-o", tmp_path / "m.cjt", "--memory-budget", "5"], capsys)
    assert code == 2 and "give a unit" in err and not (tmp_path / "m.cjt").exists()
    code, _, err = run_cli(["train", "-q", svm, "-o", tmp_path / "m.cjt", "--weight-budget", "5", "--memory-budget", "1G"],
                       capsys)
    assert code == 0 and err == ""


# -- pipelines: bad input files ------------------------------------------------------------------------------------------
def _first_blocks(path, n):
    return "\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:n]) + "\n\n"


@pytest.fixture(scope="module")
def ewt_small(shared_data, tmp_path_factory):
    path = tmp_path_factory.mktemp("ewt") / "small.conllu"
    path.write_text(_first_blocks(shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu", 40), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def parser_file(ewt_small):
    path = ewt_small.parent / "parser.cjt"
    assert main(["parse", "train", str(ewt_small), "-o", str(path), "-i", "1", "--method", "pki", "-q"]) == 0
    return path


def test_parse_train_features_choose_the_english_feature_set(parser_file, ewt_small, tmp_path, capsys):
    assert conjunct.load(parser_file).features == "malt"  # the default
    rich = tmp_path / "rich.cjt"
    assert main(["parse", "train", str(ewt_small), "-o", str(rich), "-i", "1", "--method", "pki", "--features", "rich",
                 "-q"]) == 0
    assert conjunct.load(rich).features == "rich"
    capsys.readouterr()
    assert main(["parse", "train", str(ewt_small), "--task", "bunsetsu", "-o", str(tmp_path / "b.cjt"), "--features",
                 "rich", "-q"]) == 2
    assert "--features is for ud-english parsers" in capsys.readouterr().err and not (tmp_path / "b.cjt").exists()


def test_parse_train_explore_trains_with_the_dynamic_oracle(parser_file, ewt_small, tmp_path, capsys):
    assert conjunct.load(parser_file).explore is False  # the default
    explored = tmp_path / "explored.cjt"
    assert main(["parse", "train", str(ewt_small), "-o", str(explored), "-i", "1", "--method", "pki", "--explore",
                 "-q"]) == 0
    parser = conjunct.load(explored)
    assert parser.explore is True
    static = conjunct.load(parser_file)
    # The second round adds the configurations the first-round model reaches, with features the gold path never has.
    assert len(parser.classifiers_["transition"].features) > len(static.classifiers_["transition"].features)
    capsys.readouterr()
    assert main(["parse", "train", str(ewt_small), "--task", "bunsetsu", "-o", str(tmp_path / "b.cjt"), "--explore",
                 "-q"]) == 2
    assert "--explore is for ud-english parsers" in capsys.readouterr().err and not (tmp_path / "b.cjt").exists()


def test_parse_run_on_bad_utf8_names_file_line_and_byte(parser_file, ewt_small, tmp_path, capsys):
    data = ewt_small.read_bytes()
    at = data.index(b"\n1\t", 2000) + 3  # a FORM deep in the file
    bad = tmp_path / "bad.conllu"
    bad.write_bytes(data[:at] + b"\xff" + data[at:])
    code, _, err = run_cli(["parse", "run", parser_file, bad, "-o", tmp_path / "out.conllu"], capsys)
    line = data[:at].count(b"\n") + 1
    assert code == EXIT_INPUT and f"bad.conllu:{line}: not UTF-8 text: byte 0xff" in err and f"byte {at} of the file" in err


def test_parse_run_rejects_out_of_sequence_word_ids(parser_file, ewt_small, tmp_path, capsys):
    """Before: accepted, and id 7 was written twice."""
    lines = ewt_small.read_text(encoding="utf-8").split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("8\t"))
    lines[k] = "7" + lines[k][1:]
    bad = tmp_path / "ids.conllu"
    bad.write_text("\n".join(lines), encoding="utf-8")
    out = tmp_path / "out.conllu"
    code, _, err = run_cli(["parse", "run", parser_file, bad, "-o", out], capsys)
    assert code == EXIT_INPUT and f"ids.conllu:{k + 1}: word id 7 out of sequence (expected 8)" in err


@pytest.fixture(scope="module")
def segmenter_file(shared_data, tmp_path_factory):
    src = shared_data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-train.conllu"
    small = tmp_path_factory.mktemp("gsd") / "small.conllu"
    small.write_text(_first_blocks(src, 60), encoding="utf-8")
    path = small.parent / "seg.cjt"
    assert main(["segment", "train", str(small), "-o", str(path), "-i", "1", "--method", "pki", "-q"]) == 0
    return path


def test_segment_run_on_bad_utf8_names_file_line_and_byte(segmenter_file, tmp_path, capsys):
    text = "今日は良い天気です。\n".encode() * 50
    at = len("今日は良い天気です。\n".encode()) * 30 + 3
    bad = tmp_path / "raw.txt"
    bad.write_bytes(text[:at] + b"\xfe" + text[at:])
    code, _, err = run_cli(["segment", "run", segmenter_file, bad], capsys)
    assert code == EXIT_INPUT and "raw.txt:31: not UTF-8 text: byte 0xfe at column 4" in err and f"byte {at} " in err


# -- the tagger: input formats and its tag field -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tagger_files(ewt_small):
    paths = {}
    for field in ("xpos", "upos"):
        paths[field] = ewt_small.parent / f"{field}.cjt"
        assert main(["tag", "train", str(ewt_small), "-o", str(paths[field]), "-i", "2", "-q", "--tag-field", field]) == 0
    return paths


def test_tagging_one_sentence_per_line_keeps_every_word(tagger_files, tmp_path, capsys):
    """Before: only the first word of each line was tagged, and the exit code was 0."""
    text = tmp_path / "text.txt"
    sentences = ["The cat sat on the mat .", "It was happy .", "Dogs bark ."]
    text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    code, out, _ = run_cli(["tag", "run", "-q", tagger_files["xpos"], text], capsys)
    assert code == 0
    tagged = [[line.split("\t")[0] for line in block.splitlines()] for block in out.strip().split("\n\n")]
    assert tagged == [s.split() for s in sentences]
    assert run_cli(["tag", "run", "-q", tagger_files["xpos"], text, "--format", "text"], capsys)[1] == out
    # Declared as token-per-line columns, a line of several words is an error, not a dropped word.
    code, _, err = run_cli(["tag", "run", "-q", tagger_files["xpos"], text, "--format", "columns"], capsys)
    assert code == EXIT_INPUT and "text.txt:2: 4 columns where line 1 had 7" in err and "--format text" in err
    # Text has no tags to learn from.
    code, _, err = run_cli(["tag", "train", text, "-o", tmp_path / "t.cjt"], capsys)
    assert code == EXIT_INPUT and "has no tags" in err


def test_stdin_text_is_detected_too(tagger_files, monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("The cat sat .\nIt was .\n"))
    code, out, _ = run_cli(["tag", "run", "-q", tagger_files["xpos"], "-"], capsys)
    assert code == 0 and [line.split("\t")[0] for line in out.split("\n") if line] == "The cat sat . It was .".split()


def test_the_tagger_records_its_tag_field(tagger_files, ewt_small, capsys):
    """Before: eval of a upos model without --tag-field upos printed accuracy 0.000 (it fell back to XPOS)."""
    assert conjunct.load(tagger_files["upos"]).tag_field_ == "upos"
    code, out, _ = run_cli(["info", tagger_files["upos"]], capsys)
    assert code == 0 and any(line.split()[:3] == ["tag", "field", "upos"] for line in out.splitlines())
    code, out, _ = run_cli(["tag", "eval", tagger_files["upos"], ewt_small], capsys)
    assert code == 0 and float(out.split()[1]) > 0.5
    code, _, err = run_cli(["tag", "eval", tagger_files["upos"], ewt_small, "--tag-field", "xpos"], capsys)
    assert code == EXIT_INPUT and "trained on 'upos' tags, not 'xpos'" in err
    assert run_cli(["tag", "eval", tagger_files["upos"], ewt_small, "--tag-field", "UPOS"], capsys)[0] == 0


def test_a_negative_chunker_window_is_refused_in_the_api_too():
    """Before: --window -1 trained a chunker with F1 0.00."""
    from conjunct.tasks.chunk import Chunker

    sentence = [("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP"), (".", ".", "O")]
    with pytest.raises(conjunct.ConjunctError, match="window must be an integer >= 0, got -1"):
        Chunker(window=-1).fit([sentence] * 3)


# -- errors a person can act on: the file's own sentence and line, the model file's stage and section -----------------
def _conllu(n: int, bad: int, form: str) -> str:
    return "".join(f"1\tThe\t_\t_\t_\t_\t_\t_\t_\t_\n2\t{form if k == bad else 'dogs'}\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
                   for k in range(1, n + 1))


@pytest.fixture(scope="module")
def text_pipeline(shared_data, tmp_path_factory):
    from conjunct.analysis import EnglishTextPipeline
    from conjunct.tasks.english import EnglishDependencyParser, read_ud_english

    train = read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:40]
    from conjunct.tagging import PerceptronTagger

    nlp = EnglishTextPipeline(PerceptronTagger(n_iter=1),
                              EnglishDependencyParser(n_iter=1, method="pki"), folds=2).fit(train)
    path = tmp_path_factory.mktemp("nlp") / "en.cjt"
    nlp.save(path)
    return path


def test_analyze_names_the_sentence_and_line_of_the_file_not_of_the_batch(text_pipeline, tmp_path, capsys):
    """Before: '<input>: sentence 500, token 2' for the 1,500th sentence of a file (batches of 1,000)."""
    data = tmp_path / "in.conllu"
    data.write_text(_conllu(3000, bad=1500, form="a b"))
    code, _, err = run_cli(["analyze", text_pipeline, data, "-o", tmp_path / "out.conllu"], capsys)
    assert code == EXIT_INPUT and err.startswith(f"conjunct: error: {data}:{3 * 1499 + 2}: sentence 1500, token 2: "), err
    assert not (tmp_path / "out.conllu").exists()


def _edited(edit):
    from conjunct.io import model_io

    feats, y = make_zipf_data(60, n_classes=2, seed=2)
    kind, meta, arrays = PAClassifier(degree=2, n_iter=1).fit(feats, y).model_.to_container()
    arrays = {k: np.array(v) for k, v in arrays.items()}
    edit(meta, arrays)
    return model_io.dumps(kind, meta, arrays)


def _redigest(data: bytes) -> bytes:
    import hashlib

    return data[:32] + hashlib.blake2b(data[64:], digest_size=32).digest() + data[64:]


def _blob_byte(meta, arrays, value=0xFF):
    arrays["features.names_blob"][1] = value


def _cut_offset(meta, arrays):
    arrays["features.names_blob"][:2] = list("é".encode())  # still UTF-8 as a whole ...
    arrays["features.names_offsets"][1] = 1  # ... but the first name ends inside the 'é'


def _repeat_name(meta, arrays):
    blob, off = bytes(arrays["features.names_blob"]), arrays["features.names_offsets"].tolist()
    names = [blob[a:b] for a, b in zip(off, off[1:])]
    names[1] = names[0]
    arrays["features.names_blob"] = np.frombuffer(b"".join(names), np.uint8).copy()
    arrays["features.names_offsets"] = np.cumsum([0] + [len(n) for n in names]).astype(np.int64)


@pytest.mark.parametrize("case, expected", [
    ("header not UTF-8", "reading the header: corrupt model file: unreadable header: the JSON header is not UTF-8: "
                         "byte 0xff at byte 3 of the header, 67 of the file"),
    ("header not JSON", "reading the header: corrupt model file: unreadable header: the JSON header is not valid JSON"),
    ("truncated", "reading the header: preamble field 'total length': truncated model file"),
    ("digest", "checking the digest: corrupt model file: the content hash does not match"),
    ("unknown kind", "reading the header: header field 'kind': unknown model kind 'kernel_modle'"),
    ("string not UTF-8", "checking sections: section 'features.names_blob': string 0 is not UTF-8: byte 0xff at byte 1"),
    ("offset inside a character", "checking sections: section 'features.names_offsets': offset 1 at index 1 cuts a "
                                  "UTF-8 character"),
    ("repeated feature", "checking sections: section 'features.names_blob': feature 'h.w=w787' appears twice "
                         "(strings 0 and 1)"),
    ("kernel overflow", "checking sections: header fields 'gamma', 'coef0' and 'degree': the kernel"),
])
def test_model_file_errors_name_the_stage_and_the_section(case, expected, tmp_path, capsys):
    """Before: "corrupt kernel model ('utf-8' codec can't decode byte 0x89 ...)", naming neither."""
    if case.startswith("header"):
        data = bytearray(_edited(lambda m, a: None))
        data[64 + (3 if case == "header not UTF-8" else 0)] = 0xFF if case == "header not UTF-8" else ord("x")
        data = _redigest(bytes(data))
    elif case == "truncated":
        data = _edited(lambda m, a: None)[:-10]
    elif case == "digest":
        data = bytearray(_edited(lambda m, a: None))
        data[-1] ^= 1
        data = bytes(data)
    elif case == "unknown kind":
        data = _edited(lambda m, a: None).replace(b'"kind":"kernel_model"', b'"kind":"kernel_modle"')
        data = _redigest(data)
    else:
        edit = {"string not UTF-8": lambda m, a: _blob_byte(m, a), "offset inside a character": _cut_offset,
                "repeated feature": _repeat_name, "kernel overflow": lambda m, a: m.update(gamma=1e200)}[case]
        data = _edited(edit)
    path = tmp_path / "m.cjt"
    path.write_bytes(data)
    with pytest.raises(conjunct.ModelFormatError) as err:
        conjunct.load(path)
    assert str(err.value).startswith(f"{path}: {expected}"), str(err.value)
    code, _, out = run_cli(["info", path], capsys)
    assert code == EXIT_INPUT and out == f"conjunct: error: {err.value}\n"


def test_a_building_error_names_the_stage_and_the_object(tmp_path):
    """What the checks leave to the constructor (a linear model's repeated conjunction) says it was building."""
    from conjunct.io import model_io

    feats, y = make_zipf_data(60, n_classes=2, seed=2)
    kind, meta, arrays = PAClassifier(degree=2, n_iter=1).fit(feats, y).to_linear().to_container()
    arrays = {k: np.array(v) for k, v in arrays.items()}
    ptr, ind = arrays["conj_indptr"], arrays["conj_indices"]
    assert ptr[1] - ptr[0] == ptr[2] - ptr[1] == 1
    ind[ptr[1]] = ind[ptr[0]]  # conjunction 1 = conjunction 0
    path = tmp_path / "l.cjt"
    path.write_bytes(model_io.dumps(kind, meta, arrays))
    with pytest.raises(conjunct.ModelFormatError, match=r"l\.cjt: building the conjunctive linear model: .*twice"):
        conjunct.load(path)


def test_a_full_disk_on_standard_output_says_so(monkeypatch, svm, model, capsys):
    import io
    import sys

    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    try:
        code = main(["predict", str(model), str(svm), "-q"])
    finally:
        monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == EXIT_SYSTEM and err == "conjunct: error: standard output: no space left on device; free some disk space\n"


def test_analyze_train_explore_trains_the_english_parser_with_exploration(ewt_small, tmp_path, capsys):
    out = tmp_path / "en.cjt"
    assert main(["analyze", "train", "--lang", "en", str(ewt_small), "-k", "2", "-i", "1", "--explore", "-o", str(out),
                 "-q"]) == 0
    nlp = conjunct.load(out)
    assert nlp.parser.explore is True and nlp.parser.features == "malt"
    capsys.readouterr()
    assert main(["analyze", "train", "--lang", "ja", str(ewt_small), "--explore", "-o", str(tmp_path / "ja.cjt")]) == 2
    assert "--explore is for the English parser" in capsys.readouterr().err and not (tmp_path / "ja.cjt").exists()
