"""Choosing the English text pipeline's parser on EWT dev with predicted tags.

The pipeline's parser reads the tagger's tags, so its options are compared
the way the pipeline trains and runs it: trained on jackknifed tags of EWT
train (the folds, seeds and tagger of ``conjunct analyze train --lang en``),
scored on EWT dev tagged by the tagger trained on all of train. Each variant
``FEATURES:DEGREE[:explore][:lift]`` (``malt:2`` is the pipeline's default) gets dev
UPOS / XPOS, UAS / LAS with predicted tags and UAS / LAS with gold tags (the
same parser). Test is never read.

Work files (jackknifed tags, the tagger, every variant's parser, the
tokenizer) stay in ``--work`` and are reused by later runs, so variants can be
added one run at a time. ``--pipeline VARIANT -o FILE`` then saves the text
pipeline ``conjunct analyze train --lang en`` would train with that parser
(tagger, parser, tokenizer; no chunker), for ``bench_accuracy.py --en-model``
and ``bench_raw_text.py --model``.

    python benchmarks/bench_parser_options.py --work W --variants malt:2 rich:2 rich:2:explore malt:3 zn:2 rich:2:i20:c0.5
    python benchmarks/bench_parser_options.py --work W --variants rich:2 --pipeline rich:2 -o en_rich.cjt
    python benchmarks/bench_parser_options.py --work W --variants richu:2 --pipeline richu:2 -o en_richu.cjt --tokenizer-from en.cjt
    python benchmarks/bench_parser_options.py --quick --work W      # 300 sentences, 2 epochs, 2 folds, 200 dev sentences

The parse cost of a variant in instructions (callgrind): ``--callgrind
VARIANT`` parses the tagged dev sentences (``--dev-sentences``) once with that
variant's parser from ``--work``, between two callgrind dumps (loading and
tagging are left out); the second dump's instructions are the parse's, to set
against another variant's on the same sentences:

    valgrind --tool=callgrind --instr-atstart=no python benchmarks/bench_parser_options.py --work W --train-sentences 2000 --dev-sentences 300 --callgrind richu:2
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

from conjunct.analysis import Analysis, EnglishTextPipeline
from conjunct.analysis.jackknife import jackknife_tags
from conjunct.analysis.metrics import english_scores
from conjunct.analysis.stages import clone_stage
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.english import DepSentence, EnglishDependencyParser, read_ud_english
from conjunct.tasks.english.features import FEATURE_SETS
from conjunct.analysis.result import JOINT, split_joint_tag


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cached(path: Path, make):
    """``make()``, pickled to ``path`` the first time and read back after."""
    if path.exists():
        say(f"using {path}")
        with open(path, "rb") as f:
            return pickle.load(f)
    t0 = time.perf_counter()
    value = make()
    with open(path, "wb") as f:
        pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
    say(f"{path.name}: {time.perf_counter() - t0:.0f} s")
    return value


def parse_speed(parser, sentences, passes: int) -> dict:
    """Sentences and decisions (transition + label classifications) per CPU
    second of this process (the parse runs in one thread; on a loaded machine
    CPU time varies far less than wall time) parsing ``sentences``, best of
    ``passes`` passes."""
    runner = parser.runner()
    best = None
    for _ in range(max(passes, 1)):
        before = runner.counters()
        t0 = time.process_time()
        parser.parse(sentences)
        seconds = time.process_time() - t0
        after = runner.counters()
        decisions = sum(after[k] - before[k] for k in ("transition_decisions", "label_decisions"))
        best = seconds if best is None else min(best, seconds)
    return {"seconds": best, "sentences_per_second": len(sentences) / best, "decisions": decisions,
            "decisions_per_second": decisions / best}


def callgrind_parse(path: Path, sentences) -> None:
    """Parse ``sentences`` once with the parser pickled at ``path``, between two callgrind dumps."""
    if not path.exists():
        raise SystemExit(f"{path}: no such parser; train the variant first (--variants)")
    with open(path, "rb") as f:
        parser = pickle.load(f)
    parser.parse(sentences[:5])  # the runner and its tables are built before the first dump
    # Instrumentation on (valgrind --instr-atstart=no runs the set-up faster), then dump, parse, dump.
    for action in (["-i", "on"], ["-d"], None, ["-d"]):
        if action is None:
            parser.parse(sentences)
        else:
            subprocess.run(["callgrind_control", *action, str(os.getpid())], check=True, capture_output=True)
    print(f"{path.name}: {len(sentences)} dev sentences parsed between the two dumps; the second dump's instructions "
          "are the parse's")


def parse_variant(text: str) -> dict:
    """The parser parameters of FEATURES:DEGREE[:explore][:lift][:iN][:cX] (N epochs, PA-I's C = X; lift:
    non-projective training trees lifted, not left out)."""
    parts = text.split(":")
    v = {"explore": False}
    try:
        if parts[0] not in FEATURE_SETS:
            raise ValueError
        v["features"], v["degree"] = parts[0], int(parts[1])
        for p in parts[2:]:
            if p == "explore" and not v["explore"]:
                v["explore"] = True
            elif p == "lift" and "nonprojective" not in v:
                v["nonprojective"] = "lift"
            elif p[:1] == "i" and "n_iter" not in v:
                v["n_iter"] = int(p[1:])
            elif p[:1] == "c" and "C" not in v:
                v["C"] = float(p[1:])
            else:
                raise ValueError
    except (ValueError, IndexError):
        raise SystemExit(f"{text!r}: a variant is FEATURES:DEGREE[:explore][:lift][:iN][:cX], e.g. malt:2, rich:2:explore or "
                         f"rich:2:i20:c0.5; FEATURES is one of {sorted(FEATURE_SETS)}") from None
    return v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="folder of the work files (reused by later runs)")
    ap.add_argument("--variants", nargs="+", default=["rich:2"],
                    help="FEATURES:DEGREE[:explore][:lift][:iN][:cX] (default rich:2)")
    ap.add_argument("--train-sentences", type=int, default=None, help="first N EWT train sentences (default all)")
    ap.add_argument("--dev-sentences", type=int, default=None, help="first N dev sentences (default all)")
    ap.add_argument("-i", "--iterations", type=int, default=10, help="epochs of every stage (the default 10)")
    ap.add_argument("-k", "--folds", type=int, default=5, help="jackknife folds (the default 5)")
    ap.add_argument("--seed", type=int, default=0, help="the pipeline's seed (the default 0)")
    ap.add_argument("--pipeline", default=None, help="save the text pipeline with this variant's parser (-o)")
    ap.add_argument("-o", "--output", type=Path, default=None, help="where --pipeline saves it")
    ap.add_argument("--tokenizer-from", type=Path, default=None,
                    help="--pipeline takes the tokenizer of this English pipeline (trained on the same sentences) "
                         "instead of training one")
    ap.add_argument("--speed-passes", type=int, default=3, help="timed passes over dev per variant (best is kept)")
    ap.add_argument("--callgrind", default=None, metavar="VARIANT",
                    help="parse the tagged dev sentences with VARIANT's parser (trained already) between two callgrind "
                         "dumps (run under valgrind --tool=callgrind), and nothing else")
    ap.add_argument("--quick", action="store_true", help="300 training sentences, 2 epochs, 2 folds, 200 dev sentences")
    ap.add_argument("--name", default=None, help="results name (default parser_options[_quick])")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences, args.iterations, args.folds = args.train_sentences or 300, 2, 2
        args.dev_sentences = args.dev_sentences or 200
    variants = [parse_variant(v) for v in args.variants]
    if args.pipeline is not None and (args.output is None or args.pipeline not in args.variants):
        raise SystemExit("--pipeline VARIANT needs -o FILE and VARIANT among --variants")
    args.work.mkdir(parents=True, exist_ok=True)
    base = require_shared_data() / "ud_english_ewt"
    train = read_ud_english(base / "en_ewt-ud-train.conllu")[:args.train_sentences]
    dev = read_ud_english(base / "en_ewt-ud-dev.conllu")[:args.dev_sentences]
    setting = f"n{len(train)}_i{args.iterations}_k{args.folds}_s{args.seed}"
    work = lambda name: args.work / f"{setting}_{name}.pkl"  # noqa: E731

    # The stages of EnglishTextPipeline.fit as `conjunct analyze train --lang en` sets them up.
    tagger = PerceptronTagger(n_iter=args.iterations, random_state=args.seed)
    params = dict(method="pke", n_iter=args.iterations, random_state=args.seed, verbose=0)
    words = [s.forms for s in train]
    gold = [[u + JOINT + x for u, x in zip(s.upos, s.xpos)] for s in train]
    predicted, folds = cached(work("jackknife"), lambda: jackknife_tags(lambda: clone_stage(tagger), words, gold, args.folds,
                                                                          random_state=args.seed, verbose=1))
    jack_accuracy = sum(p == g for ps, gs in zip(predicted, gold) for p, g in zip(ps, gs)) / sum(map(len, gold))
    tagger = cached(work("tagger"), lambda: clone_stage(tagger).fit(words, gold))
    jack = [DepSentence(s.forms, *map(list, zip(*map(split_joint_tag, p))), s.heads, s.labels)
            for s, p in zip(train, predicted)]
    dev_tags = [[split_joint_tag(t) for t in tags] for tags in tagger.predict([s.forms for s in dev])]
    dev_tagged = [DepSentence(s.forms, [t[0] for t in tags], [t[1] for t in tags]) for s, tags in zip(dev, dev_tags)]
    dev_gold_tags = [DepSentence(s.forms, s.upos, s.xpos) for s in dev]

    if args.callgrind is not None:
        callgrind_parse(work(f"parser_{args.callgrind.replace(':', '_')}"), dev_tagged)
        return
    rows, results = [], []

    def report() -> None:
        md = (f"EWT dev ({len(dev)} sentences), gold tokenization. Every variant is trained on {len(train):,} EWT train "
              f"sentences with {args.folds}-fold jackknifed tags (accuracy {100 * jack_accuracy:.2f}%; seed {args.seed}, "
              f"{args.iterations} epochs, PKE), as `conjunct analyze train --lang en` trains its parser; dev is tagged "
              "by the tagger trained on all of them. UAS / LAS over every word, punctuation included (`english_scores`); "
              "the gold-tag columns are the same parser given gold tags. SVs: support vectors (label / transition). "
              "Fit: wall and CPU seconds (every thread of the process) of the parser's training on a shared machine, kept "
              "next to the parser for later runs; \"+ first round\": an explored variant that reused its static variant as "
              "its first round, whose cost is that variant's (blank: trained before costs were kept). Speed: parsing "
              f"the tagged dev sentences (PKE, one call per pass) per CPU second of the process, best of {args.speed_passes} "
              "passes in this run; decisions are "
              "transition plus label classifications; relative: sentences per second over the first variant's "
              "(the same run and machine; absolute figures depend on the machine's load).\n\n"
              + markdown_table(["variant", "UPOS %", "XPOS %", "UAS %", "LAS %", "UAS % (gold tags)", "LAS % (gold tags)",
                                "SVs", "fit (s)", "fit CPU (s)", "sentences/s", "decisions/s", "speed vs first"], rows))
        write_results(args.name or ("parser_options_quick" if args.quick else "parser_options"),
                      {"train_sentences": len(train), "dev_sentences": len(dev), "iterations": args.iterations,
                       "folds": args.folds, "seed": args.seed, "jackknife_accuracy": jack_accuracy, "results": results}, md)

    for text, v in zip(args.variants, variants):
        name = text.replace(":", "_")
        seconds = {}

        def fit(v=v):
            # The static variant of an explored one, if an earlier run trained it, is its first round.
            static = work("parser_" + "_".join(p for p in text.split(":") if p != "explore"))
            first = None
            if v["explore"] and static.exists():
                say(f"{text}: first round from {static}")
                with open(static, "rb") as f:
                    first = pickle.load(f)
            t0, c0 = time.perf_counter(), time.process_time()
            p = EnglishDependencyParser(**{**params, **v}).fit(jack, first_round=first)
            seconds.update(fit=time.perf_counter() - t0, fit_cpu=time.process_time() - c0, first_round_reused=first is not None)
            return p

        say(f"{text}: training on jackknifed tags ...")
        parser = cached(work(f"parser_{name}"), fit)
        # The training cost of a parser an earlier run trained is kept next to it.
        cost = work(f"parser_{name}").with_suffix(".json")
        if seconds:
            cost.write_text(json.dumps(seconds))
        elif cost.exists():
            seconds = json.loads(cost.read_text())
        pred = english_scores(dev, [Analysis(s.forms, s.upos, s.xpos, list(h), list(r))
                                    for s, (h, r) in zip(dev_tagged, parser.parse(dev_tagged))])
        speed = parse_speed(parser, dev_tagged, args.speed_passes)
        with_gold = english_scores(dev, [Analysis(s.forms, s.upos, s.xpos, list(h), list(r))
                                         for s, (h, r) in zip(dev_gold_tags, parser.parse(dev_gold_tags))])
        sv = {c: int(m.n_support_vectors) for c, m in getattr(parser, "models_", {}).items()
              if hasattr(m, "n_support_vectors")}
        r = {"variant": text, **v, "predicted_tags": pred, "gold_tags": with_gold, "fit_seconds": seconds.get("fit"),
             "fit_cpu_seconds": seconds.get("fit_cpu"), "first_round_reused": seconds.get("first_round_reused"),
             "support_vectors": sv, "speed": speed}
        results.append(r)
        rows.append([text, *(f"{100 * pred[k]:.2f}" for k in ("upos_accuracy", "xpos_accuracy", "uas", "las")),
                     f"{100 * with_gold['uas']:.2f}", f"{100 * with_gold['las']:.2f}",
                     " / ".join(str(sv[c]) for c in sorted(sv)) or "",
                     "" if r["fit_seconds"] is None else f"{r['fit_seconds']:.0f}",
                     "" if r["fit_cpu_seconds"] is None else
                     f"{r['fit_cpu_seconds']:.0f}" + (" (+ first round)" if r["first_round_reused"] else ""),
                     f"{speed['sentences_per_second']:,.0f}", f"{speed['decisions_per_second']:,.0f}",
                     f"{speed['sentences_per_second'] / results[0]['speed']['sentences_per_second']:.2f}"])
        say(f"{text}: dev LAS {100 * pred['las']:.2f} (predicted tags), {100 * with_gold['las']:.2f} (gold tags)")
        report()

    if args.pipeline is not None:
        from conjunct.tasks.tokenize import EnglishTokenizer, read_tokenized_conllu
        from conjunct.commands.analyze import _first_sentences

        raw = _first_sentences(read_tokenized_conllu(base / "en_ewt-ud-train.conllu"), len(train))
        if args.tokenizer_from is not None:  # the tokenizer does not depend on the parser
            import conjunct

            tokenizer = conjunct.load(args.tokenizer_from).tokenizer
            say(f"tokenizer: {args.tokenizer_from}'s")
        else:
            say("tokenizer: training on the train paragraphs ...")
            tokenizer = cached(work("tokenizer"), lambda: EnglishTokenizer(**params).fit(raw))
        parser = cached(work(f"parser_{args.pipeline.replace(':', '_')}"), lambda: None)
        nlp = EnglishTextPipeline(tagger, parser, None, tokenizer, folds=args.folds, random_state=args.seed)
        nlp.folds_ = folds
        nlp.stats_ = {"jackknife_accuracy": jack_accuracy}
        nlp.save(args.output)
        say(f"saved the pipeline with parser {args.pipeline} to {args.output}")


if __name__ == "__main__":
    main()
