"""Accuracy where users compare: the full-size models, as ``conjunct analyze
train`` and ``conjunct parse train`` make them with their defaults, scored on
the test splits.

Japanese (UD Japanese GSD r2.8 test, 543 sentences): the text pipeline
trained on all of GSD train (``conjunct analyze train --lang ja``; bunsetsu
boundaries of train derived by the table learned on dev), from raw text and
from gold words: word, UPOS, XPOS, bunsetsu and bunsetsu-dependency F1 (F1 of
character spans, ``conjunct.analysis.metrics.japanese_scores``).

English (UD English EWT test, 2,077 sentences, gold tokenization): the text
pipeline trained on all of EWT train (``conjunct analyze train --lang en``, no
chunker): UPOS / XPOS accuracy and UAS / LAS with every stage predicted
(``english_scores``); with gold tags, the parser ``conjunct parse train``
trains on gold tags (the setting UDPipe 1 reports as "gold tags"), and the
pipeline's own parser (trained on jackknifed tags) given gold tags.

Every model is trained first, from train splits alone (nothing is selected
here; ``tests/test_heldout.py`` runs :func:`train_models` and fails if it
opens a test file); test is read afterwards, once. ``--models DIR`` keeps the
models and reuses the ones already there.

    python benchmarks/bench_accuracy.py                       # the figures (three models on all of train: run it alone)
    python benchmarks/bench_accuracy.py --quick               # 300 training sentences, 2 folds, 2 epochs, 100 test sentences
    python benchmarks/bench_accuracy.py --langs ja --ja-model JA --split dev   # a given pipeline on dev
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

from conjunct.tasks.english.features import FEATURE_SETS


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _train_args(args) -> list:
    out = ["-q", "-i", str(args.iterations)]
    if args.train_sentences:
        out += ["--max-sentences", str(args.train_sentences)]
    return out


def train_models(args, data: Path, models: Path) -> dict:
    """Train (or find in ``models``) every model through the command line,
    from the train splits only; (name -> path, name -> training seconds)."""
    from conjunct.cli import main

    gsd, ewt = data / "ud_japanese_gsd", data / "ud_english_ewt" / "en_ewt-ud-train.conllu"
    folds = ["-k", str(args.folds)]
    jobs = {
        "ja": ["analyze", "train", "--lang", "ja", str(gsd), *folds],
        "en": ["analyze", "train", "--lang", "en", str(ewt), *folds],
        "en_gold_tag_parser": ["parse", "train", str(ewt), "--task", "ud-english"],
    }
    if getattr(args, "parser_features", None):  # the gold-tag parser with the pipeline parser's feature set
        jobs["en_gold_tag_parser"] += ["--features", args.parser_features]
    paths, seconds = {}, {}
    for name, argv in jobs.items():
        if name.split("_")[0] not in args.langs or (name == "en_gold_tag_parser" and args.no_gold_tag_parser):
            continue
        if name == "en" and getattr(args, "en_model", None) is not None:  # a pipeline trained elsewhere (bench_parser_options.py)
            paths[name] = args.en_model
            continue
        if name == "ja" and getattr(args, "ja_model", None) is not None:  # a pipeline trained elsewhere
            paths[name] = args.ja_model
            continue
        path = models / f"{name}.cjt"
        paths[name] = path
        if path.exists() and args.reuse:
            say(f"{name}: using {path}")
            continue
        say(f"{name}: conjunct {' '.join(argv[:3])} ...")
        t0 = time.perf_counter()
        if main([*argv, "-o", str(path), *_train_args(args)]) != 0:
            raise SystemExit(f"training {name} failed")
        seconds[name] = time.perf_counter() - t0
        say(f"{name}: trained in {seconds[name]:.0f} s")
    return {"paths": paths, "seconds": seconds}


def japanese(model: Path, data: Path, n_test, split: str = "test") -> dict:
    import conjunct
    from conjunct.analysis.metrics import japanese_scores
    from conjunct.tasks.bunsetsu import load_gsd_bunsetsu

    nlp = conjunct.load(model)
    test = load_gsd_bunsetsu(data / "ud_japanese_gsd", split)[:n_test]
    words = [[t.form for b in s.bunsetsu for t in b.tokens] for s in test]
    return {"test_sentences": len(test), "params": {"folds": nlp.folds},
            "raw_text": japanese_scores(test, nlp.analyze(["".join(w) for w in words])),
            "gold_words": japanese_scores(test, nlp.analyze_words(words))}


def english(model: Path, parser_model, data: Path, n_test, split: str = "test") -> dict:
    import conjunct
    from conjunct.analysis import Analysis
    from conjunct.analysis.metrics import english_scores
    from conjunct.tasks.english import DepSentence, read_ud_english

    nlp = conjunct.load(model)
    test = read_ud_english(data / "ud_english_ewt" / f"en_ewt-ud-{split}.conllu")[:n_test]
    out = {"test_sentences": len(test),
           "parser": {k: getattr(nlp.parser, k) for k in ("features", "degree", "explore")},
           "predicted_tags": english_scores(test, nlp.analyze([s.forms for s in test]))}

    def with_gold_tags(parser):
        parses = parser.parse([DepSentence(s.forms, s.upos, s.xpos) for s in test])
        return english_scores(test, [Analysis(s.forms, s.upos, s.xpos, list(h), list(r)) for s, (h, r) in zip(test, parses)])

    out["gold_tags_pipeline_parser"] = with_gold_tags(nlp.parser)
    if parser_model is not None:
        out["gold_tags"] = with_gold_tags(conjunct.load(parser_model))
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.2f}"


def report(res: dict) -> str:
    parts = []
    ja = res.get("japanese")
    if ja:
        rows = [[name.replace("_", " "), *(_pct(ja[name][f"{k}_f1"]) for k in ("word", "upos", "xpos", "bunsetsu", "dependency"))]
                for name in ("raw_text", "gold_words")]
        parts.append(f"## Japanese: UD Japanese GSD r2.8 {res.get('split', 'test')} ({ja['test_sentences']} sentences)\n\n"
                     + (f"The pipeline `{res['ja_model']}`. " if res.get("ja_model") else
                        f"`conjunct analyze train --lang ja` on {res['train_sentences'] or 'all'} GSD train sentences "
                        f"({res['iterations']} epochs, {res['folds']}-fold jackknifed tags). ")
                     + "F1 of character spans "
                     "(`japanese_scores`): a word; a word with its tag; a bunsetsu; a bunsetsu with its head bunsetsu.\n\n"
                     + markdown_table(["input", "word F1", "UPOS F1", "XPOS F1", "bunsetsu F1", "bunsetsu dep. F1"], rows))
    en = res.get("english")
    if en:
        p = en["predicted_tags"]
        rows = [["every stage predicted", *(_pct(p[k]) for k in ("upos_accuracy", "xpos_accuracy", "uas", "las"))]]
        if "gold_tags" in en:
            features = f" (features {res['parser_features']!r})" if res.get("parser_features") else ""
            rows.append([f"gold tags, parser trained on gold tags{features}", "", "", _pct(en["gold_tags"]["uas"]),
                         _pct(en["gold_tags"]["las"])])
        g = en["gold_tags_pipeline_parser"]
        rows.append(["gold tags, the pipeline's parser (trained on jackknifed tags)", "", "", _pct(g["uas"]), _pct(g["las"])])
        parser = en.get("parser", {"features": "malt", "degree": 2, "explore": False})
        made = (f"The pipeline `{res['en_model']}`" if res.get("en_model") else "`conjunct analyze train --lang en`")
        parts.append(f"## English: UD English EWT {res.get('split', 'test')} ({en['test_sentences']} sentences), gold tokenization\n\n"
                     f"{made} (no chunker; the pipeline's parser: features {parser['features']!r}, d = "
                     f"{parser['degree']}, {'with' if parser['explore'] else 'no'} exploration) and `conjunct parse train` on "
                     f"{res['train_sentences'] or 'all'} EWT train sentences ({res['iterations']} epochs, {res['folds']}-fold "
                     "jackknifed tags for the pipeline's parser). UAS / LAS over every word, punctuation included "
                     "(`english_scores`).\n\n" + markdown_table(["tags", "UPOS %", "XPOS %", "UAS %", "LAS %"], rows))
    if res["training_seconds"]:
        parts.append("Training wall seconds (the machine may have been shared): "
                     + ", ".join(f"{k} {v:.0f}" for k, v in res["training_seconds"].items()) + ".")
    return "\n\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", nargs="+", choices=["ja", "en"], default=["ja", "en"])
    ap.add_argument("--train-sentences", type=int, default=None, help="train on the first N sentences (default all)")
    ap.add_argument("--test-sentences", type=int, default=None, help="score the first N test sentences (default all)")
    ap.add_argument("-i", "--iterations", type=int, default=10, help="training epochs of every stage (the default 10)")
    ap.add_argument("-k", "--folds", type=int, default=5, help="jackknife folds (the default 5)")
    ap.add_argument("--no-gold-tag-parser", action="store_true", help="skip the English parser trained on gold tags")
    ap.add_argument("--models", type=Path, default=None, help="folder for the models (default: a temporary one)")
    ap.add_argument("--reuse", action="store_true", help="use the models already in --models instead of training")
    ap.add_argument("--en-model", type=Path, default=None,
                    help="score this English text pipeline instead of training one (bench_parser_options.py --pipeline)")
    ap.add_argument("--parser-features", choices=sorted(FEATURE_SETS), default=None,
                    help="the feature set of the English parser trained on gold tags (default: parse train's)")
    ap.add_argument("--ja-model", type=Path, default=None,
                    help="score this Japanese text pipeline instead of training one (conjunct analyze train --lang ja)")
    ap.add_argument("--split", choices=["test", "dev"], default="test",
                    help="the split to score (dev: to compare models before test is read)")
    ap.add_argument("--quick", action="store_true", help="300 training sentences, 2 epochs, 2 folds, 100 test sentences")
    ap.add_argument("--name", default=None, help="results name (default accuracy, accuracy_quick with --quick)")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences, args.iterations, args.folds = args.train_sentences or 300, 2, 2
        args.test_sentences = args.test_sentences or 100
    data = require_shared_data()
    with tempfile.TemporaryDirectory() as scratch:
        models = args.models or Path(scratch)
        models.mkdir(parents=True, exist_ok=True)
        trained = train_models(args, data, models)
        paths = trained["paths"]
        res = {"train_sentences": args.train_sentences, "iterations": args.iterations, "folds": args.folds,
               "training_seconds": trained["seconds"], "en_model": args.en_model and args.en_model.name,
               "ja_model": args.ja_model and args.ja_model.name, "split": args.split,
               "parser_features": args.parser_features}
        # Test is read from here on, after every model is trained.
        if "ja" in args.langs:
            say(f"scoring Japanese on GSD {args.split} ...")
            res["japanese"] = japanese(paths["ja"], data, args.test_sentences, args.split)
        if "en" in args.langs:
            say(f"scoring English on EWT {args.split} ...")
            res["english"] = english(paths["en"], None if args.no_gold_tag_parser else paths["en_gold_tag_parser"], data,
                                     args.test_sentences, args.split)
    name = args.name or ("accuracy_quick" if args.quick else "accuracy")
    write_results(name, res, report(res))


if __name__ == "__main__":
    main()
