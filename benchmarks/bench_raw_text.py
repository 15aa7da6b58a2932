"""English from raw text: UD English EWT analysed from its raw text (no gold
tokens, sentences or tags), scored with the CoNLL 2018 shared task's
alignment rules (``conjunct.tasks.tokenize.conll18``).

1. trains :class:`conjunct.EnglishTextPipeline` with its tokenizer on EWT train
   (tokenizer and sentence splitter on the ``# text`` lines, SpaceAfter=No and
   multiword tokens; perceptron tagger; arc-eager parser, d = 2, on jackknifed
   tags) -- or loads one (--model);
2. builds each split's raw text as the shared task did: a paragraph's
   sentences joined by a space (none after SpaceAfter=No), paragraphs
   (``# newpar`` / ``# newdoc``) separated by a blank line;
3. runs it through ``conjunct analyze`` (:func:`conjunct.analysis.rawtext.analyze_file`)
   and scores the CoNLL-U output against the gold file: tokens, words and
   sentences F1; UPOS, XPOS, UAS and LAS F1 over aligned words (universal
   relations, subtypes ignored, as the shared task did).

Dev is the split to tune on; test gives the final figures only. The anchor is
UDPipe 1.2's published EWT figures from raw text (words F1 99.1, sentences F1
77.1, LAS 77.5; UD versions differ slightly).

    python benchmarks/bench_raw_text.py                       # train on all of EWT train, score dev and test
    python benchmarks/bench_raw_text.py --model en.cjt        # a pipeline trained before (conjunct analyze train)
    python benchmarks/bench_raw_text.py --quick               # 300 training sentences, 3 epochs, first 40 paragraphs
    python benchmarks/bench_raw_text.py --tokenizer-only --splits dev   # the tokenizer alone (tokens, words, sentences)
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

import conjunct
from conjunct.analysis import EnglishTextPipeline
from conjunct.analysis.rawtext import analyze_file
from conjunct.io.corpora import iter_conllu
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
from conjunct.tasks.tokenize import (EnglishTokenizer, conll18_scores, conllu_paragraphs, document_from_conllu,
                                     read_tokenized_conllu)

ANCHOR = {"words_f1": 99.1, "sentences_f1": 77.1, "las_f1": 77.5}
SHOWN = ("tokens", "words", "sentences", "upos", "xpos", "uas", "las")


def first_paragraphs(path: Path, n: int | None) -> str:
    """The gold CoNLL-U of the first ``n`` paragraphs (all with None)."""
    out = []
    for k, paragraph in enumerate(conllu_paragraphs(path)):
        if n is not None and k >= n:
            break
        out.extend("\n".join(s.lines) + "\n\n" for s in paragraph)
    return "".join(out)


def raw_text(gold_conllu: str) -> str:
    """The raw text of gold CoNLL-U: paragraphs separated by a blank line."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".conllu", encoding="utf-8", delete=False) as f:
        f.write(gold_conllu)
    try:
        return "\n\n".join(p.text for p in read_tokenized_conllu(f.name)) + "\n"
    finally:
        Path(f.name).unlink()


def train(base: Path, args) -> EnglishTextPipeline:
    n = args.train_sentences
    data = read_ud_english(base / "en_ewt-ud-train.conllu")[:n]
    raw = read_tokenized_conllu(base / "en_ewt-ud-train.conllu")
    if n is not None:
        from conjunct.commands.analyze import _first_sentences
        raw = _first_sentences(raw, n)
    nlp = EnglishTextPipeline(PerceptronTagger(n_iter=args.n_iter), EnglishDependencyParser(n_iter=args.n_iter),
                              tokenizer=EnglishTokenizer(n_iter=args.n_iter, degree=args.tokenizer_degree),
                              folds=args.folds, verbose=1)
    t0 = time.perf_counter()
    if args.tokenizer_model:  # a tokenizer trained before (on EWT train): the other stages only
        stats = nlp.fit(data).stats_
        nlp = nlp.replace(tokenizer=conjunct.load(args.tokenizer_model))
        nlp.stats_ = stats
    else:
        nlp.fit(data, raw_text=raw)
    nlp.stats_["seconds"] = time.perf_counter() - t0
    return nlp


def evaluate(nlp, base: Path, split: str, paragraphs: int | None) -> dict:
    gold = first_paragraphs(base / f"en_ewt-ud-{split}.conllu", paragraphs)
    text = raw_text(gold)
    t0 = time.perf_counter()
    out = "".join(analyze_file(nlp, io.StringIO(text)))
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    tokenized = nlp.tokenize(text.split("\n\n"))
    tok_seconds = time.perf_counter() - t0
    scores = conll18_scores(document_from_conllu(io.StringIO(gold)), document_from_conllu(io.StringIO(out)))
    # The same model from the gold words (every other column blanked), scored the same way: what tokenization costs.
    words = "".join("\n".join(f"{w[0]}\t{w[1]}" + "\t_" * 8 for w in s.words) + "\n\n"
                    for s in iter_conllu(io.StringIO(gold)) if s.words)
    from_words = conll18_scores(document_from_conllu(io.StringIO(gold)),
                                document_from_conllu(io.StringIO("".join(analyze_file(nlp, io.StringIO(words))))))
    scores.update({f"gold_words_{m}_f1": from_words[f"{m}_f1"] for m in ("upos", "xpos", "uas", "las")})
    return {"split": split, "characters": len(text), **scores, "seconds": seconds, "tokenizer_seconds": tok_seconds,
            "tokenizer_characters_per_second": len(text) / tok_seconds if tok_seconds else None,
            "tokenizer_sentences": sum(len(t.sentence_lengths) for t in tokenized)}


def tokenizer_only(base: Path, args) -> None:
    """Train the tokenizer alone on EWT train (or load --tokenizer-model) and score tokens, words and sentences."""
    if args.tokenizer_model:
        tok = conjunct.load(args.tokenizer_model)
        trained = {"model": Path(args.tokenizer_model).name}  # the command line names its path
    else:
        raw = read_tokenized_conllu(base / "en_ewt-ud-train.conllu")
        if args.train_sentences is not None:
            from conjunct.commands.analyze import _first_sentences
            raw = _first_sentences(raw, args.train_sentences)
        t0 = time.perf_counter()
        tok = EnglishTokenizer(n_iter=args.n_iter, degree=args.tokenizer_degree, dictionary=not args.no_dictionary,
                               links=not args.no_links, link_spans=not args.no_link_spans,
                               type_ngram=args.type_ngram).fit(raw)
        trained = {"paragraphs": len(raw), "n_iter": args.n_iter, "degree": args.tokenizer_degree,
                   "dictionary": not args.no_dictionary, "links": not args.no_links,
                   "link_spans": not args.no_link_spans, "type_ngram": args.type_ngram,
                   "seconds": time.perf_counter() - t0, "components": tok.training_stats_}
        if args.save:
            tok.save(args.save)
    rows, results = [], []
    for split in args.splits.split(","):
        gold = read_tokenized_conllu(base / f"en_ewt-ud-{split}.conllu")[:args.paragraphs]
        r = {"split": split, **tok.evaluate(gold)}
        results.append(r)
        rows.append([split, len(gold)] + [round(100 * r[f"{m}_f1"], 2) for m in ("tokens", "words", "sentences")]
                    + [r["system_sentences"], r["gold_sentences"], round(r["seconds"], 1)])
    rows.append(["UDPipe 1.2 (published)", "", "", ANCHOR["words_f1"], ANCHOR["sentences_f1"], "", "", ""])
    md = ("EWT from raw text, the tokenizer alone (CoNLL 2018 shared task alignment, F1 %). Dev is for tuning; test "
          "figures are final.\n\n"
          + markdown_table(["split", "paragraphs", "tokens F1", "words F1", "sentences F1", "sentences out", "gold sentences",
                            "seconds"], rows)
          + f"\n\nTraining: {trained}\n\nTimes were taken on a shared machine; accuracies do not depend on load.\n")
    write_results(args.name or "raw_text_tokenizer", {"trained": trained, "results": results, "anchor_udpipe1": ANCHOR}, md)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="a trained English text pipeline with a tokenizer (else one is trained)")
    ap.add_argument("--save", default=None, help="save the pipeline this run trains")
    ap.add_argument("--quick", action="store_true", help="300 training sentences, 3 epochs, 2 folds, 40 paragraphs per split")
    ap.add_argument("--train-sentences", type=int, default=None, help="first N EWT train sentences (default all)")
    ap.add_argument("--paragraphs", type=int, default=None, help="first N paragraphs of each split (default all)")
    ap.add_argument("--splits", default="dev,test", help="splits to score (default dev,test; tune on dev only)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--n-iter", type=int, default=10)
    ap.add_argument("--tokenizer-degree", type=int, default=2)
    ap.add_argument("--tokenizer-only", action="store_true", help="train and score the tokenizer alone")
    ap.add_argument("--no-dictionary", action="store_true", help="train the tokenizer without the dictionary flags")
    ap.add_argument("--no-links", action="store_true", help="train the tokenizer without the link kind of pieces")
    ap.add_argument("--no-link-spans", action="store_true",
                    help="train the tokenizer without where a gap is in its piece's address")
    ap.add_argument("--type-ngram", type=int, default=None, help="the tokenizer's longest character-type n-gram (default 3)")
    ap.add_argument("--tokenizer-model", default=None,
                    help="a trained EnglishTokenizer file: scored alone (--tokenizer-only) or used instead of training one")
    ap.add_argument("--name", default=None, help="results file name (default raw_text[_quick], raw_text_tokenizer)")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences = args.train_sentences or 300
        args.n_iter, args.folds = 3, 2
        args.paragraphs = args.paragraphs or 40
    base = require_shared_data() / "ud_english_ewt"
    if args.tokenizer_only:
        return tokenizer_only(base, args)
    if args.model:
        nlp = conjunct.load(args.model)
        if not isinstance(nlp, EnglishTextPipeline) or nlp.tokenizer is None:
            raise SystemExit(f"{args.model}: not an English text pipeline with a tokenizer")
        trained = {"model": Path(args.model).name}  # the command line names its path
    else:
        nlp = train(base, args)
        trained = {"train_sentences": args.train_sentences or "all", "n_iter": args.n_iter, "folds": args.folds,
                   "tokenizer_degree": args.tokenizer_degree, "training": nlp.stats_,
                   "tokenizer": args.tokenizer_model or getattr(nlp.tokenizer, "training_stats_", None)}
        if args.save:
            nlp.save(args.save)
    rows, results = [], []
    for split in args.splits.split(","):
        r = evaluate(nlp, base, split, args.paragraphs)
        results.append(r)
        rows.append([split, r["characters"]] + [round(100 * r[f"{m}_f1"], 2) for m in SHOWN]
                    + [r["system_sentences"], r["gold_sentences"], round(r["seconds"], 1)])
        rows.append([f"{split}, gold words", "", "", "", ""] + [round(100 * r[f"gold_words_{m}_f1"], 2)
                                                                 for m in ("upos", "xpos", "uas", "las")] + ["", "", ""])
    rows.append(["UDPipe 1.2 (published)", "", "", ANCHOR["words_f1"], ANCHOR["sentences_f1"], "", "", "", ANCHOR["las_f1"],
                 "", "", ""])
    md = ("EWT from raw text, CoNLL 2018 shared task alignment (F1, %). Dev is for tuning; test figures are final.\n\n"
          + markdown_table(["split", "characters", *[f"{m} F1" for m in SHOWN], "sentences out", "gold sentences", "seconds"],
                           rows)
          + f"\n\nTraining: {trained}\n\nTimes were taken on a shared machine; accuracies do not depend on load.\n")
    write_results(args.name or ("raw_text_quick" if args.quick else "raw_text"), {"trained": trained, "results": results,
                                                                                  "anchor_udpipe1": ANCHOR}, md)


if __name__ == "__main__":
    main()
