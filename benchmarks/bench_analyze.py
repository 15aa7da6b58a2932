"""Text in, analysis out: end-to-end accuracy and speed of the English and
Japanese text pipelines with every stage predicted, next to UDPipe 1 on English.

English (UD English EWT, gold tokenization):

1. trains :class:`conjunct.EnglishTextPipeline` on the first --train-sentences
   of EWT train (perceptron tagger on joint UPOS|XPOS; the arc-eager parser,
   d = 2, on --folds-fold jackknifed tags) and its chunker on CoNLL-2000 train
   (WSJ) tagged by that tagger (EWT has no chunks: chunk F1 is measured on
   CoNLL-2000 test, its words tagged by the pipeline);
2. trains UDPipe 1 (``ufal.udpipe``, its defaults: tagger and parser, no
   tokenizer) on the same sentences, or loads the model a previous run trained
   (--udpipe-model; its training time is read from the file beside it);
3. runs both from CoNLL-U text with gold tokenization (every column but ID and
   FORM blanked) to CoNLL-U text on EWT test, scores both outputs with the same
   code (UPOS / XPOS accuracy, UAS / LAS over every word), and times both,
   interleaved (median of --repeats rounds).

Japanese (UD Japanese GSD r2.8): trains :class:`conjunct.JapaneseTextPipeline`
on train (segmenter d = 2, tagger, bunsetsu chunker, bunsetsu parser d = 3,
jackknifed tags) and analyses the raw texts of test: word F1, POS F1, bunsetsu
F1 and bunsetsu dependency F1 (spans, so units need not line up), and the same
with gold words; sentences/s from raw text.

fstrie from raw text: the bunsetsu parser's fstrie rebuilt from the decisions it
takes on the *raw* dev texts (segmented, tagged and chunked by the pipeline; no
annotation read), checked to parse test exactly as the exact classifier does,
and timed against the fstrie built from the training data and against PKE.

    python benchmarks/bench_analyze.py                        # the README figures
    python benchmarks/bench_analyze.py --quick                # small subsets, minutes
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

from conjunct._timing import interleaved_medians
from conjunct.analysis import Analysis, EnglishTextPipeline, JapaneseTextPipeline, analyze_stream, read_text
from conjunct.analysis.metrics import chunking_scores, english_scores, japanese_scores
from conjunct.io.corpora import iter_conllu, read_conll2000
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
from conjunct.tasks.segment import WordSegmenter


def blank_conllu(path: Path) -> str:
    """The CoNLL-U file with every column but ID and FORM blanked (gold tokenization only)."""
    out = []
    for s in iter_conllu(str(path)):
        for line in s.lines:
            if line.startswith("#"):
                out.append(line)
        for w in s.words:
            out.append("\t".join([w[0], w[1]] + ["_"] * 8))
        out.append("")
    return "\n".join(out) + "\n"


def analyses_of(conllu: str):
    """Analysis objects of a CoNLL-U text (either system's output), for one scorer."""
    out = []
    for s in iter_conllu(io.StringIO(conllu)):
        if not s.words:
            continue
        heads = [int(h) if h.isdigit() else -1 for h in s.column("head")]
        out.append(Analysis(s.column("form"), s.column("upos"), s.column("xpos"), heads, s.column("deprel")))
    return out


# -- UDPipe 1 ---------------------------------------------------------------------------------------
def udpipe_train(train_path: Path, n: int, model_path: Path) -> float:
    """Train UDPipe 1 with its defaults (no tokenizer) on the first ``n`` sentences; seconds."""
    from ufal.udpipe import InputFormat, ProcessingError, Sentence, Sentences, Trainer

    fmt = InputFormat.newConlluInputFormat()
    fmt.setText(train_path.read_text(encoding="utf-8"))
    err = ProcessingError()
    data = Sentences()
    s = Sentence()
    count = 0
    while count < n and fmt.nextSentence(s, err):
        data.append(s)
        s = Sentence()
        count += 1
    start = time.perf_counter()
    model = Trainer.train("morphodita_parsito", data, Sentences(), "none", Trainer.DEFAULT, Trainer.DEFAULT, err)
    seconds = time.perf_counter() - start
    if err.occurred():
        raise RuntimeError(f"UDPipe training failed: {err.message}")
    model_path.write_bytes(model if isinstance(model, bytes) else model.encode("latin-1"))
    model_path.with_suffix(".json").write_text(json.dumps({"train_sentences": count, "train_seconds": seconds}))
    return seconds


def udpipe_runner(model_path: Path):
    from ufal.udpipe import Model, Pipeline, ProcessingError

    model = Model.load(str(model_path))
    if model is None:
        raise RuntimeError(f"UDPipe cannot load {model_path}")
    pipeline = Pipeline(model, "conllu", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu")

    def run(text: str, model=model) -> str:  # the pipeline holds a raw pointer: keep the model alive
        err = ProcessingError()
        out = pipeline.process(text, err)
        if err.occurred():
            raise RuntimeError(err.message)
        return out

    return run


def conjunct_runner(nlp):
    def run(text: str) -> str:
        return "".join(analyze_stream(nlp, read_text(io.StringIO(text))))

    return run


# -- English -----------------------------------------------------------------------------------------
def english_pipeline(args, train, chunk_train):
    it = dict(n_iter=args.n_iter, random_state=0)
    nlp = EnglishTextPipeline(PerceptronTagger(n_iter=args.n_iter), EnglishDependencyParser(degree=2, **it),
                              Chunker(degree=2, **it), folds=args.folds, verbose=1)
    start = time.perf_counter()
    nlp.fit(train, chunk_data=chunk_train)
    seconds = time.perf_counter() - start
    print(f"conjunct English pipeline trained on {len(train):,} sentences in {seconds:.1f} s", flush=True)
    return nlp, seconds


def english(args, data: Path) -> dict:
    ewt = data / "ud_english_ewt"
    everything = read_ud_english(ewt / "en_ewt-ud-train.conllu")
    train = everything[:args.train_sentences]
    test_path = ewt / "en_ewt-ud-test.conllu"
    test = read_ud_english(test_path)[:args.test_sentences]
    chunk_train = read_conll2000(data / "conll2000" / "train.txt")[:args.chunk_sentences]
    chunk_test = read_conll2000(data / "conll2000" / "test.txt")
    nlp, fit_seconds = english_pipeline(args, train, chunk_train)
    result = {"train_sentences": len(train), "test_sentences": len(test), "folds": args.folds, "n_iter": args.n_iter,
              "fit_seconds": {"conjunct": fit_seconds}, "stats": nlp.stats_}
    # Side by side with UDPipe: tagger + parser, CoNLL-U text in and out.
    text = blank_conllu(test_path)
    if args.test_sentences:
        text = "\n\n".join(text.split("\n\n")[:args.test_sentences]) + "\n\n"
    runners = {"conjunct": conjunct_runner(nlp.replace(chunker=None))}
    if not args.skip_udpipe:
        model_path = Path(args.udpipe_model or f"/tmp/udpipe-ewt-{len(train)}.udpipe")
        info_path = model_path.with_suffix(".json")
        if model_path.exists() and info_path.exists() and json.loads(info_path.read_text())["train_sentences"] == len(train):
            ud_seconds = json.loads(info_path.read_text())["train_seconds"]
            print(f"UDPipe model loaded from {model_path} (trained in {ud_seconds:.1f} s)", flush=True)
        else:
            ud_seconds = udpipe_train(ewt / "en_ewt-ud-train.conllu", len(train), model_path)
            print(f"UDPipe trained in {ud_seconds:.1f} s", flush=True)
        result["fit_seconds"]["udpipe"] = ud_seconds
        result["udpipe_model_bytes"] = model_path.stat().st_size
        runners["udpipe"] = udpipe_runner(model_path)
    full = nlp
    if args.also_full and len(train) < len(everything):
        full, seconds = english_pipeline(args, everything, chunk_train)
        name = f"conjunct, all {len(everything):,} train sentences"
        result["fit_seconds"][name] = seconds
        result["full_stats"] = full.stats_
        runners[name] = conjunct_runner(full.replace(chunker=None))
    # Chunking: CoNLL-2000 test words through the (fullest) pipeline's tagger and chunker.
    result["chunking"] = chunking_scores(chunk_test, full.analyze([[t[0] for t in s] for s in chunk_test]))
    result["systems"] = {name: english_scores(test, analyses_of(run(text))) for name, run in runners.items()}
    # Speed on the first --speed-sentences of them (default all).
    n_speed = min(args.speed_sentences or len(test), len(test))
    timed = "\n\n".join(text.split("\n\n")[:n_speed]) + "\n\n"
    words = sum(len(s) for s in test[:n_speed])
    times = interleaved_medians({name: (lambda r=run: r(timed)) for name, run in runners.items()}, repeats=args.repeats)
    result["speed_sentences"] = n_speed
    for name, seconds in times.items():
        result["systems"][name].update(seconds=seconds, sentences_per_second=n_speed / seconds,
                                       words_per_second=words / seconds)
    return result


# -- Japanese ----------------------------------------------------------------------------------------
def japanese(args, data: Path) -> dict:
    gsd = data / "ud_japanese_gsd"
    train = load_gsd_bunsetsu(gsd, "train")[:args.ja_train_sentences]
    dev = load_gsd_bunsetsu(gsd, "dev")
    test = load_gsd_bunsetsu(gsd, "test")
    it = dict(n_iter=args.n_iter, random_state=0)
    nlp = JapaneseTextPipeline(WordSegmenter(degree=2, **it), PerceptronTagger(n_iter=args.n_iter), Chunker(degree=2, **it),
                               BunsetsuDependencyParser(degree=args.ja_degree, **it), folds=args.folds, verbose=1)
    start = time.perf_counter()
    nlp.fit(train)
    fit_seconds = time.perf_counter() - start
    print(f"conjunct Japanese pipeline trained in {fit_seconds:.1f} s", flush=True)

    def text(s):
        return "".join(t.form for b in s.bunsetsu for t in b.tokens)

    texts = [text(s) for s in test]
    result = {"train_sentences": len(train), "test_sentences": len(test), "fit_seconds": fit_seconds, "stats": nlp.stats_,
              "parser_degree": args.ja_degree}
    result["raw_text"] = japanese_scores(test, nlp.analyze(texts))
    result["gold_words"] = japanese_scores(test, nlp.analyze_words([[t.form for b in s.bunsetsu for t in b.tokens]
                                                                     for s in test]))
    seconds = interleaved_medians({"analyze": lambda: nlp.analyze(texts)}, repeats=args.repeats)["analyze"]
    result["raw_text"].update(seconds=seconds, sentences_per_second=len(texts) / seconds)

    # The parser's fstrie built from raw dev text the parser never saw annotated.
    parser = nlp.parser
    inputs = nlp.bunsetsu_sentences(texts)  # what the parser reads on test
    dev_events = nlp.bunsetsu_sentences([text(s) for s in dev])
    model = parser.models_[parser.COMPONENT]
    from_train = parser.classifiers_[parser.COMPONENT]
    parser.compile("fstrie", events=dev_events)
    classifiers = {"fstrie (training text)": from_train, "fstrie (raw dev text)": parser.classifiers_[parser.COMPONENT],
                   "pke": model.compile("pke")}

    def use(clf):
        parser.classifiers_ = {parser.COMPONENT: clf}
        return parser

    reference = use(model.compile("pkb")).parse(inputs)  # the brute-force kernel expansion, once
    identical = {name: use(clf).parse(inputs) == reference for name, clf in classifiers.items()}
    times = interleaved_medians({name: (lambda c=clf: use(c).parse(inputs)) for name, clf in classifiers.items()},
                                repeats=args.repeats)
    use(from_train)
    result["fstrie_from_raw_text"] = {
        "dev_sentences": len(dev_events), "identical_to_pkb": identical,
        "methods": {name: {"seconds": times[name], "sentences_per_second": len(inputs) / times[name],
                           "nodes": getattr(clf, "n_nodes", None)} for name, clf in classifiers.items()},
    }
    return result


def report(res: dict) -> str:
    parts = []
    en = res.get("english")
    if en:
        rows = []
        for name, r in en["systems"].items():
            train_s = en["fit_seconds"][name]
            rows.append([name, 100 * r["upos_accuracy"], 100 * r["xpos_accuracy"], 100 * r["uas"], 100 * r["las"],
                         r["sentences_per_second"], r["words_per_second"], train_s])
        parts.append(f"## English: EWT test ({en['test_sentences']} sentences), gold tokenization, every stage predicted\n\n"
                     f"Both trained on the first {en['train_sentences']:,} sentences of EWT train; conjunct's parser on "
                     f"{en['folds']}-fold jackknifed tags (jackknifed tag accuracy "
                     f"{100 * en['stats']['jackknife_accuracy']:.2f}%), {en['n_iter']} epochs per stage; UDPipe 1 with its "
                     f"defaults (tagger and parser); the last row (when there) is conjunct trained on all of EWT train. Speed on "
                     f"the first {en['speed_sentences']} test sentences: CoNLL-U text in (ID and FORM only) to CoNLL-U text out, "
                     f"tagger + parser, one thread, median of interleaved rounds. conjunct's train time includes the "
                     f"jackknife and the chunker.\n\n"
                     + markdown_table(["system", "UPOS %", "XPOS %", "UAS %", "LAS %", "sentences/s", "words/s",
                                       "train s"], rows))
        c = en["chunking"]
        parts.append(f"Chunking (conjunct only; EWT has no chunks): CoNLL-2000 test words tagged by the EWT-trained "
                     f"tagger (XPOS accuracy on WSJ {100 * c['xpos_accuracy']:.2f}%), chunked by a chunker trained on "
                     f"CoNLL-2000 train with that tagger's tags: chunk F1 {100 * c['chunk_f1']:.2f} "
                     f"(P {100 * c['chunk_precision']:.2f}, R {100 * c['chunk_recall']:.2f}).")
    ja = res.get("japanese")
    if ja:
        rows = []
        for name in ("raw_text", "gold_words"):
            r = ja[name]
            rows.append([name.replace("_", " "), 100 * r["word_f1"], 100 * r["xpos_f1"], 100 * r["upos_f1"],
                         100 * r["bunsetsu_f1"], 100 * r["dependency_f1"], 100 * r["dependency_recall"]])
        parts.append(f"## Japanese: GSD r2.8 test ({ja['test_sentences']} sentences)\n\n"
                     f"Trained on {ja['train_sentences']:,} GSD train sentences (bunsetsu derived), parser d = "
                     f"{ja['parser_degree']}, jackknifed tags (accuracy {100 * ja['stats']['jackknife_accuracy']:.2f}%). "
                     f"F1 of character spans (POS: a word right with its tag; dependency: a bunsetsu and its head "
                     f"bunsetsu both right); dependency recall = the usual dependency accuracy when the bunsetsu are "
                     f"right. From raw text: {ja['raw_text']['sentences_per_second']:,.0f} sentences/s.\n\n"
                     + markdown_table(["input", "word F1", "XPOS F1", "UPOS F1", "bunsetsu F1", "dep. F1", "dep. recall"],
                                      rows))
        f = ja["fstrie_from_raw_text"]
        rows = [[name, m["sentences_per_second"]] for name, m in f["methods"].items()]
        parts.append(f"### The bunsetsu parser's fstrie from raw text\n\nBuilt from the decisions the parser takes on "
                     f"the {f['dev_sentences']} raw dev texts (segmented, tagged and chunked by the pipeline, no "
                     f"annotation read); parsing the pipeline's test bunsetsu. Parses identical to PKB's (brute force): "
                     f"{f['identical_to_pkb']}.\n\n" + markdown_table(["classifier", "sentences/s"], rows))
    return "\n\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small subsets (300 / 300 sentences, 3 epochs, 2 folds)")
    ap.add_argument("--train-sentences", type=int, default=None, help="EWT train sentences for both systems (default all)")
    ap.add_argument("--test-sentences", type=int, default=None, help="first N EWT test sentences (default all)")
    ap.add_argument("--speed-sentences", type=int, default=None, help="English: time the first N test sentences (default all)")
    ap.add_argument("--chunk-sentences", type=int, default=None, help="CoNLL-2000 train sentences (default all)")
    ap.add_argument("--ja-train-sentences", type=int, default=None, help="GSD train sentences (default all)")
    ap.add_argument("--ja-degree", type=int, default=3, help="bunsetsu parser degree (default 3)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--n-iter", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--udpipe-model", default=None, help="UDPipe model file: loaded if it exists, else trained and saved")
    ap.add_argument("--skip-udpipe", action="store_true")
    ap.add_argument("--also-full", action="store_true",
                    help="with --train-sentences: also train conjunct on all of EWT train (a row of its own)")
    ap.add_argument("--skip-english", action="store_true")
    ap.add_argument("--skip-japanese", action="store_true")
    ap.add_argument("--name", default=None, help="results file name (default analyze[_quick])")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences = args.train_sentences or 300
        args.test_sentences = args.test_sentences or 300
        args.chunk_sentences = args.chunk_sentences or 300
        args.ja_train_sentences = args.ja_train_sentences or 300
        args.n_iter, args.folds, args.repeats = 3, 2, 3
    data = require_shared_data()
    res = {}
    if not args.skip_english:
        res["english"] = english(args, data)
    if not args.skip_japanese:
        res["japanese"] = japanese(args, data)
    md = report(res)
    print(md)
    write_results(args.name or ("analyze_quick" if args.quick else "analyze"), res, md)


if __name__ == "__main__":
    main()
