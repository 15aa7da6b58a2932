"""Text fuzzing of the commands that read text: random bytes and random Unicode
into every ``run`` / ``analyze`` command, English and Japanese.

Small models of every kind that reads text are trained on a few sentences of
the real corpora in a temporary folder (the English and Japanese text
pipelines, the tagger, the chunker, the English and bunsetsu parsers, the
segmenter). Seeded inputs are then fed to each command, as a file or on
standard input (under the C locale, where Python would otherwise decode with
``surrogateescape``):

- random bytes, with and without line breaks;
- random Unicode: words, emoji (with skin tones and joiners), control
  characters, NUL, CJK, combining marks, right-to-left text, byte-order marks,
  Unicode line and paragraph separators, odd spaces; CR, LF and CRLF line ends;
- the same with invalid UTF-8 inserted (a stray byte, an overlong form, an
  encoded surrogate, a truncated sequence);
- CoNLL-U sentences of the real corpora, mutated (a column lost, a tab or a
  space in a FORM, a multiword range or an empty node without words, ids out
  of order, comment-only blocks, CRLF);
- plain text whose first line starts with ``#``; and one 1 MB line per command.

Every run is classified:

- ``ok``: exit 0, and the output accounts for the input: as many sentences as
  the input has (counted here independently from the documented format), every
  CoNLL-U line of 10 columns, the words of the input in the output;
- ``error``: exit 1 or 2 with one line ``conjunct: error: ...`` on standard error;
- failures: ``crash`` (a traceback, or any other exit code: a signal),
  ``hang`` (no answer within the timeout), ``wrong`` (exit 0 but the output does
  not account for the input), ``unclear`` (an error that is not one line).

API checks run in-process on the same models: lone surrogates and the inputs
of the pipelines' ``analyze`` must be a ``ConjunctError``, never another
exception.

    python benchmarks/fuzz_text.py --cases 40 --seed 0

writes benchmarks/results/fuzz_text.{json,md}. The test suite runs a few cases
of the same engine (``tests/test_inputs.py``).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FAILURES = ("crash", "hang", "wrong", "unclear")


# -- models ---------------------------------------------------------------------------------------------------
def build_models(data: Path, out: Path, n: int = 60) -> Dict[str, Path]:
    """Small models of every kind that reads text, trained on ``n`` sentences of the real corpora."""
    from conjunct.analysis import EnglishTextPipeline, JapaneseTextPipeline
    from conjunct.io.corpora import read_conll2000
    from conjunct.tagging import PerceptronTagger
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
    from conjunct.tasks.chunk import Chunker
    from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
    from conjunct.tasks.segment import WordSegmenter

    small = dict(n_iter=1, method_params={"dense_features": 64})
    ewt = read_ud_english(data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:n]
    chunks = read_conll2000(data / "conll2000" / "train.txt")[:n]
    gsd = load_gsd_bunsetsu(data / "ud_japanese_gsd", "train")[:n]
    words = [[t.form for b in s.bunsetsu for t in b.tokens] for s in gsd]
    paths = {k: out / f"{k}.cjt" for k in ("en", "ja", "tagger", "chunker", "parser", "bunsetsu", "segmenter")}
    EnglishTextPipeline(PerceptronTagger(n_iter=1), EnglishDependencyParser(**small), Chunker(**small),
                        folds=2).fit(ewt, chunk_data=chunks).save(paths["en"])
    JapaneseTextPipeline(WordSegmenter(**small), PerceptronTagger(n_iter=1), Chunker(**small),
                         BunsetsuDependencyParser(degree=2, **small), folds=2).fit(gsd).save(paths["ja"])
    PerceptronTagger(n_iter=1).fit([s.forms for s in ewt], [s.xpos for s in ewt]).save(paths["tagger"])
    Chunker(**small).fit(chunks).save(paths["chunker"])
    EnglishDependencyParser(**small).fit(ewt).save(paths["parser"])
    BunsetsuDependencyParser(degree=2, **small).fit(gsd).save(paths["bunsetsu"])
    WordSegmenter(**small).fit(words).save(paths["segmenter"])
    return paths


def samples(data: Path, n: int = 30) -> Dict[str, List[str]]:
    """CoNLL-U blocks and text lines of the real corpora, for the mutations."""
    def blocks(path: Path) -> List[str]:
        with open(path, encoding="utf-8") as f:
            return f.read().split("\n\n")[:n]

    return {"en_conllu": blocks(data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"),
            "ja_conllu": blocks(data / "ud_japanese_gsd" / "r2.8" / "ja_gsd-ud-dev.conllu")
            if (data / "ud_japanese_gsd" / "r2.8").is_dir() else blocks(next((data / "ud_japanese_gsd").rglob("*dev.conllu"))),
            "chunk": open(data / "conll2000" / "test.txt", encoding="utf-8").read().split("\n\n")[:n]}


# -- inputs ---------------------------------------------------------------------------------------------------
POOLS = {
    "ascii": ["the", "dog", "barked", ".", ",", "A", "x", "don't", "3.14", "#", "#x", "1-2", "_", "|", "="],
    "emoji": ["😀", "👍🏽", "👨‍👩‍👧", "🇯🇵", "❤️", "🀄"],
    "control": ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1c", "\x1f", "\x7f", "\x85", "\u200b",
                "\u200d", "\ufeff", "\u2028", "\u2029", "\u00a0", "\u3000", "\t"],
    "cjk": ["日本語", "です", "。", "東京", "ｶﾀｶﾅ", "漢", "𠮷", "ゔ"],
    "marks": ["e\u0301", "\u0301", "ﷺ", "שָׁלוֹם", "مرحبا", "\u202e", "ǅ", "ß", "İ"],
}
INVALID = [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe6\x97", b"\x80", b"\xf8\x88\x80\x80\x80", b"\xf4\x90\x80\x80"]
ENDS = ["\n", "\r\n", "\r"]


def random_text(rng: random.Random, lines: int, pools=None) -> str:
    pools = pools or list(POOLS)
    end = rng.choice(ENDS) if rng.random() < 0.3 else "\n"
    out = []
    least = rng.choice([0, 1])  # half the texts have no blank line: more runs get as far as the analysis
    for _ in range(lines):
        words = [rng.choice(POOLS[rng.choice(pools)]) for _ in range(rng.randint(least, 12))]
        glue = rng.choice([" ", " ", " ", "", "  ", "\t"])
        out.append(glue.join(words))
    return end.join(out) + (end if rng.random() < 0.8 else "")


def mutate_conllu(rng: random.Random, blocks: List[str]) -> str:
    chosen = [b.strip("\n") for b in rng.sample(blocks, min(len(blocks), rng.randint(1, 4)))]
    lines = "\n\n".join(chosen).split("\n")
    for _ in range(rng.randint(0, 3)):
        k = rng.randrange(len(lines))
        cols = lines[k].split("\t")
        what = rng.randrange(9)
        if what == 0 and len(cols) > 1:
            cols.pop(rng.randrange(len(cols)))  # a column lost
        elif what == 1 and len(cols) == 10:
            cols[1] = cols[1][:1] + rng.choice(["\t", " ", "\u3000", ""]) + cols[1][1:]  # a tab or a space in FORM
        elif what == 2:
            lines.insert(k, "\t".join(["1-2", "xy"] + ["_"] * 8))  # a range, maybe without its words
        elif what == 3:
            lines.insert(k, "\t".join(["1.1", "e"] + ["_"] * 8))  # an empty node
        elif what == 4:
            lines[k:k] = ["", "\t".join(["1-2", "xy"] + ["_"] * 8), "\t".join(["1.1", "e"] + ["_"] * 8), ""]
        elif what == 5 and cols[0].isdigit():
            cols[0] = str(int(cols[0]) + rng.choice([-1, 1, 5]))  # ids out of order
        elif what == 6:
            lines[k:k] = ["", "# only a comment", ""]
        elif what == 7:
            cols[-1] = cols[-1] + rng.choice(POOLS["control"])
        else:
            lines.insert(k, "")
        if what in (0, 1, 5, 7):
            lines[k] = "\t".join(cols)
    text = "\n".join(lines) + "\n"
    return text.replace("\n", "\r\n") if rng.random() < 0.2 else text


def make_input(rng: random.Random, kind: str, pools: Dict[str, List[str]], lang: str, fmt: str) -> bytes:
    if kind == "bytes":
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000)))
        if rng.random() < 0.5:
            data = b"\n".join(data[i:i + 40] for i in range(0, len(data), 40))
        return data
    if kind == "unicode":
        return random_text(rng, rng.randint(0, 20)).encode("utf-8")
    if kind == "invalid":
        data = bytearray(random_text(rng, rng.randint(1, 20)).encode("utf-8"))
        at = rng.randint(0, len(data))
        return bytes(data[:at]) + rng.choice(INVALID) + bytes(data[at:])
    if kind == "conllu":
        source = pools["chunk"] if fmt == "columns" else pools["ja_conllu" if lang == "ja" else "en_conllu"]
        if fmt == "columns":
            chosen = rng.sample(source, min(len(source), rng.randint(1, 4)))
            text = "\n\n".join(c.strip("\n") for c in chosen) + "\n"
            lines = text.split("\n")
            for _ in range(rng.randint(0, 2)):
                k = rng.randrange(len(lines))
                lines[k] = rng.choice(["", "a b c d", "x", lines[k] + " " + rng.choice(POOLS["control"])])
            return "\n".join(lines).encode("utf-8")
        return mutate_conllu(rng, source).encode("utf-8")
    if kind == "hash":
        return ("# " + random_text(rng, 1, ["ascii"]).strip() + "\n" + random_text(rng, 3, ["ascii", "cjk"])).encode()
    if kind == "long":
        words = POOLS["cjk"] if lang == "ja" else POOLS["ascii"]
        text, size = [], 0
        while size < 1 << 20:
            w = rng.choice(words)
            text.append(w)
            size += len(w.encode()) + (lang != "ja")
        return (("" if lang == "ja" else " ").join(text) + "\n").encode("utf-8")
    raise ValueError(kind)


# -- what an input should give -------------------------------------------------------------------------------
def _text_lines(data: bytes) -> Optional[List[str]]:
    """The lines of ``data`` as conjunct reads them (UTF-8, a leading BOM dropped, \\n / \\r\\n / \\r ends);
    None when it is not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return re.split(r"\r\n|\r|\n", text)[:-1] + ([re.split(r"\r\n|\r|\n", text)[-1]] if not re.search(r"(\r\n|\r|\n)$", text) and text else [])


def _blocks(lines: List[str]) -> List[List[str]]:
    out, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _word_lines(block: List[str]) -> List[List[str]]:
    return [line.split("\t") for line in block if not line.startswith("#") and line.split("\t")[0].isdigit()]


def expected(command: "Command", data: bytes) -> Optional[dict]:
    """What a successful run must give: {"count": sentences, "words": per sentence its words or None}."""
    lines = _text_lines(data)
    if lines is None:
        return None
    fmt = command.fmt
    if fmt == "auto":
        first = next((line for line in lines if line.strip()), "")
        fmt = "conllu" if first.startswith("#") or len(first.split("\t")) == 10 else "text"
    if fmt == "text":
        sents = [line for line in lines if line.strip()]
        if command.lang == "ja":
            return {"count": len(sents), "words": ["".join(s.split()) for s in sents], "joined": True}
        return {"count": len(sents), "words": [s.split() for s in sents]}
    if fmt == "lines":
        return {"count": len(lines), "words": ["".join(s.split()) for s in lines], "joined": True}
    blocks = _blocks(lines)
    if fmt == "columns":
        return {"count": len(blocks), "words": [[line.split()[0] for line in b] for b in blocks]}
    with_words = [b for b in blocks if _word_lines(b)]
    words = [[w[1] for w in _word_lines(b)] for b in with_words]
    if command.lang == "ja" and command.output == "conllu":
        return {"count": len(with_words), "words": ["".join(w) for w in words], "joined": True}
    return {"count": len(with_words), "words": words}


def produced(command: "Command", out: str) -> Optional[dict]:
    """The sentences of an output, or None when it is malformed."""
    if command.output == "lines":
        lines = out.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return {"count": len(lines), "words": ["".join(line.split(" ")) for line in lines]}
    blocks = _blocks(out.split("\n"))
    words = []
    for b in blocks:
        ws = []
        for line in b:
            if command.output == "conllu" and line.startswith("#"):
                continue  # a comment; a word line starts with its id
            cols = line.split("\t") if command.output in ("conllu", "tagged", "bunsetsu") else line.split(" ")
            width = {"conllu": 10, "tagged": 2, "bunsetsu": 3}.get(command.output)
            if width is not None and len(cols) != width:
                return None
            if command.output == "conllu" and not cols[0].isdigit():
                continue
            ws.append(cols[{"bunsetsu": 2}.get(command.output, 0 if command.output != "conllu" else 1)])
        words.append(ws)
    return {"count": len(blocks), "words": words}


def check_output(command: "Command", data: bytes, out: str) -> Optional[str]:
    """None when the output accounts for the input, else what is wrong."""
    want = expected(command, data)
    if want is None:
        return "exit 0 on input that is not UTF-8"
    got = produced(command, out)
    if got is None:
        return "an output line with the wrong number of columns"
    if got["count"] != want["count"]:
        return f"{got['count']} sentences out for {want['count']} in"
    if command.output == "bunsetsu":
        got["words"] = ["".join(ws) for ws in got["words"]]
        want["words"] = ["".join(ws) if isinstance(ws, list) else ws for ws in want["words"]]
    elif want.get("joined"):
        # raw text: whitespace separates words and is dropped (a space inside a CoNLL-U FORM too)
        got["words"] = ["".join("".join(ws).split()) for ws in got["words"]]
        want["words"] = ["".join(w.split()) for w in want["words"]]
    for k, (g, w) in enumerate(zip(got["words"], want["words"])):
        if g != w:
            return f"sentence {k + 1}: words {g!r:.80} out for {w!r:.80} in"
    return None


# -- commands -------------------------------------------------------------------------------------------------
@dataclass
class Command:
    name: str
    lang: str
    argv: Callable[[Dict[str, Path], str], List[str]]  # (models, input) -> arguments after "conjunct"
    fmt: str  # how the input is read: auto, text, lines (one per line, blank lines too), conllu, columns
    output: str  # conllu, tagged (word TAB tag), bunsetsu (index TAB head TAB surface), columns, lines
    kinds: List[str] = field(default_factory=lambda: ["bytes", "unicode", "invalid", "conllu", "hash"])


COMMANDS = [
    Command("analyze en", "en", lambda m, i: ["analyze", str(m["en"]), i], "auto", "conllu"),
    Command("analyze en --format text", "en", lambda m, i: ["analyze", str(m["en"]), i, "--format", "text"], "text",
            "conllu", ["unicode", "invalid", "hash"]),
    Command("analyze ja", "ja", lambda m, i: ["analyze", str(m["ja"]), i], "auto", "conllu"),
    Command("tag run --format text", "en", lambda m, i: ["tag", "run", str(m["tagger"]), i, "--format", "text", "-q"],
            "text", "tagged", ["bytes", "unicode", "invalid", "hash"]),
    Command("tag run --format conllu", "en", lambda m, i: ["tag", "run", str(m["tagger"]), i, "--format", "conllu", "-q"],
            "conllu", "tagged", ["conllu", "invalid"]),
    Command("chunk run", "en", lambda m, i: ["chunk", "run", str(m["chunker"]), i, "-q"], "columns", "columns",
            ["bytes", "unicode", "invalid", "conllu"]),
    Command("parse run ud-english", "en", lambda m, i: ["parse", "run", str(m["parser"]), i, "-q"], "conllu", "conllu",
            ["bytes", "invalid", "conllu"]),
    Command("parse run bunsetsu", "ja", lambda m, i: ["parse", "run", str(m["bunsetsu"]), i, "-q"], "conllu",
            "bunsetsu", ["bytes", "invalid", "conllu"]),
    Command("segment run", "ja", lambda m, i: ["segment", "run", str(m["segmenter"]), i, "-q"], "lines", "lines",
            ["bytes", "unicode", "invalid"]),
]


# -- running ----------------------------------------------------------------------------------------------------
def classify(code: Optional[int], stderr: str, check: Callable[[], Optional[str]]) -> tuple:
    if code is None:
        return "hang", "no answer within the timeout"
    if "Traceback" in stderr:
        return "crash", stderr.strip().splitlines()[-1][:200]
    if code not in (0, 1, 2, 130):
        return "crash", f"exit code {code}: {stderr.strip()[:200]}"
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("conjunct: warning:")]
    if code == 0:
        wrong = check()
        return ("wrong", wrong) if wrong else ("ok", "")
    if len(lines) == 1 and lines[0].startswith("conjunct: error: "):
        return "error", lines[0][len("conjunct: error: "):][:200]
    return "unclear", stderr.strip()[:300]


def run_subprocess(argv: List[str], data: bytes, stdin: bool, out: Path, timeout: float) -> tuple:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    if stdin:
        env.update(LC_ALL="C", LANG="C")  # where Python's own stdin decoding would let bad bytes through
    try:
        p = subprocess.run([sys.executable, "-m", "conjunct", *argv, "-o", str(out)], input=data if stdin else None,
                           stdin=None if stdin else subprocess.DEVNULL, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "", ""
    text = out.read_bytes().decode("utf-8", "replace") if out.exists() else ""
    return p.returncode, p.stderr.decode("utf-8", "replace"), text


def run_inprocess(argv: List[str], data: bytes, stdin: bool, out: Path) -> tuple:
    """The same run in this process (the test suite's quick version): standard
    input as Python opens it under the C locale, bad bytes smuggled as surrogates."""
    from conjunct.cli import main

    saved = sys.stdin, sys.stderr
    err = io.StringIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    sys.stderr = err
    try:
        code = main(argv + ["-o", str(out)])
    except BaseException:  # noqa: BLE001 -- any escape is a crash here
        import traceback

        err.write(traceback.format_exc())
        code = 1
    finally:
        sys.stdin, sys.stderr = saved
    text = out.read_bytes().decode("utf-8", "replace") if out.exists() else ""
    return code, err.getvalue(), text


def cases(rng: random.Random, n: int, long_line: bool = True):
    """(command, kind, input bytes, via stdin) cases: ``n`` per command, cycling through its input kinds,
    plus one 1 MB line per command reading text."""
    for command in COMMANDS:
        for k in range(n):
            kind = command.kinds[k % len(command.kinds)]
            yield command, kind, make_input(rng, kind, POOL_CACHE, command.lang, command.fmt), k % 3 == 2
        if long_line and command.fmt in ("auto", "text", "lines"):
            yield command, "long", make_input(rng, "long", POOL_CACHE, command.lang, command.fmt), False


POOL_CACHE: Dict[str, List[str]] = {}


def fuzz(models: Dict[str, Path], workdir: Path, n: int, seed: int, *, inprocess: bool = False, timeout: float = 120,
         long_line: bool = True, progress: bool = False) -> dict:
    rng = random.Random(seed)
    outcomes: Dict[str, Counter] = defaultdict(Counter)
    failures = []
    errors: Dict[str, Counter] = defaultdict(Counter)
    t0 = time.perf_counter()
    for i, (command, kind, data, stdin) in enumerate(cases(rng, n, long_line)):
        path, target = workdir / "input.txt", workdir / "output.txt"
        for f in (path, target):
            if f.exists():
                f.unlink()
        if not stdin:
            path.write_bytes(data)
        argv = command.argv(models, "-" if stdin else str(path))
        if inprocess:
            code, stderr, out = run_inprocess(argv, data, stdin, target)
        else:
            code, stderr, out = run_subprocess(argv, data, stdin, target, timeout)
        outcome, detail = classify(code, stderr, lambda: check_output(command, data, out))
        outcomes[command.name][outcome] += 1
        if outcome == "error":
            problem = detail.split(": ", 1)[-1].split(" (")[0]
            errors[command.name][re.sub(r"\d+", "N", re.sub(r"0x[0-9a-f]{2}", "0xNN", problem))[:70]] += 1
        if outcome in FAILURES:
            failures.append({"command": command.name, "kind": kind, "stdin": stdin, "outcome": outcome,
                             "detail": detail, "input": data[:300].decode("latin-1")})
        if progress:
            print(f"{i + 1}: {command.name} {kind}{' (stdin)' if stdin else ''}: {outcome} {detail[:100]}",
                  file=sys.stderr, flush=True)
    return {"outcomes": {k: dict(v) for k, v in outcomes.items()}, "failures": failures,
            "errors": {k: dict(v.most_common(8)) for k, v in errors.items()}, "seconds": time.perf_counter() - t0}


# -- the API ------------------------------------------------------------------------------------------------------
def api_checks(models: Dict[str, Path], rng: random.Random, n: int) -> dict:
    """The pipelines' analyze on hostile Python inputs: every refusal a ConjunctError."""
    import conjunct
    from conjunct import ConjunctError

    en, ja = conjunct.load(models["en"]), conjunct.load(models["ja"])
    surrogate = ["\ud800", "\udfff", "a\udc80b"]
    inputs = [
        ("en", lambda: en.analyze(["Hello", "dogs"])), ("en", lambda: en.analyze([[]])),
        ("en", lambda: en.analyze([["a\tb"]])), ("en", lambda: en.analyze([[1, 2]])), ("en", lambda: en.analyze([None])),
        ("ja", lambda: ja.analyze_words([[]])), ("ja", lambda: ja.analyze_words([["日本\t語", "です"]])),
        ("ja", lambda: ja.analyze_words(["日本語"])), ("ja", lambda: ja.analyze([""])), ("ja", lambda: ja.analyze([None])),
    ]
    for _ in range(n):
        s = rng.choice(surrogate)
        words = random_text(rng, 1).split() or ["x"]
        at = rng.randrange(len(words))
        words[at] = words[at] + s
        inputs.append(("en", lambda w=list(words): en.analyze([w])))
        inputs.append(("ja", lambda t="".join(words): ja.analyze([t])))
        inputs.append(("en", lambda w=list(words): en.tagger.predict([w])))
        inputs.append(("en", lambda w=random_text(rng, 1).split(): en.analyze([w]) if w else en.analyze([["x"]])))
        inputs.append(("ja", lambda t=random_text(rng, 1, ["cjk", "emoji", "control", "marks"]):
                       ja.analyze([t]) if t.strip() else ja.analyze(["x"])))
    counts, failures = Counter(), []
    for lang, call in inputs:
        try:
            for a in call() or []:
                a.to_conllu() if hasattr(a, "to_conllu") else None
            counts["ok"] += 1
        except ConjunctError:
            counts["error"] += 1
        except Exception as e:  # noqa: BLE001 -- what the fuzz looks for
            counts["crash"] += 1
            failures.append(f"{lang}: {type(e).__name__}: {e}"[:200])
    return {"outcomes": dict(counts), "failures": failures}


def main() -> int:
    sys.path.insert(0, str(HERE))
    from _common import markdown_table, require_shared_data, write_results

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=40, help="inputs per command (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a run counts as a hang")
    ap.add_argument("--sentences", type=int, default=60, help="training sentences of the small models")
    ap.add_argument("--name", default="fuzz_text", help="results file name")
    ap.add_argument("--progress", action="store_true", help="one line per run on standard error")
    args = ap.parse_args()
    data = require_shared_data()
    POOL_CACHE.update(samples(data))
    with tempfile.TemporaryDirectory(prefix="conjunct-fuzz-text-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        models = build_models(data, work, args.sentences)
        print(f"models trained in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        result = fuzz(models, work, args.cases, args.seed, timeout=args.timeout, progress=args.progress)
        api = api_checks(models, random.Random(args.seed), args.cases)
    rows = []
    for command in COMMANDS:
        o = result["outcomes"].get(command.name, {})
        rows.append([command.name, sum(o.values()), o.get("ok", 0), o.get("error", 0),
                     *(o.get(f, 0) for f in FAILURES)])
    a = api["outcomes"]
    rows.append(["API (analyze, analyze_words, tagger.predict)", sum(a.values()), a.get("ok", 0), a.get("error", 0),
                 a.get("crash", 0), 0, 0, 0])
    table = markdown_table(["command", "runs", "ok", "one-line error", *FAILURES], rows)
    common = "\n".join(f"- {name}: " + "; ".join(f"{k} ({v})" for k, v in errs.items())
                       for name, errs in result["errors"].items())
    failures = "\n".join(f"- {f['command']} ({f['kind']}{', stdin' if f['stdin'] else ''}): {f['outcome']}: "
                         f"{f['detail']}" for f in result["failures"]) + "\n".join(f"- API: {f}" for f in api["failures"])
    md = (f"{args.cases} inputs per command (seed {args.seed}) plus one 1 MB line per text command; every third "
          f"input on standard input under LC_ALL=C; models trained on {args.sentences} sentences; "
          f"{result['seconds']:.0f} s.\n\n{table}\n\nMost frequent errors (digits as N):\n\n{common}\n\n"
          f"Failures:\n\n{failures or 'none'}\n")
    write_results(args.name, {"cases": args.cases, "seed": args.seed, "timeout": args.timeout, **result, "api": api},
                  md)
    return 1 if result["failures"] or api["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
