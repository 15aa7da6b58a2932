"""conjunct.render / ``conjunct analyze --output-format html``: the page is
self-contained and escaped, and, opened in headless Chromium, shows every word
in order without overlap, each arc running from its head to its dependent
(checked on the laid-out page and on the pixels of a screenshot)."""

import json
import re
import shutil
import subprocess

import pytest

import conjunct
from conjunct import ConjunctError
from conjunct.analysis import Analysis, EnglishTextPipeline, JapaneseTextPipeline
from conjunct.cli import main
from conjunct.io.rendering import _chunk_spans, _levels, render_sentence
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
from conjunct.tasks.segment import WordSegmenter

SMALL = {"dense_features": 64}
HOSTILE = ["<script>alert(1)</script>", "a&amp;b", '"q"', "nul\x00bell\x07", "😀", "x\ud800y"]


def _hostile():
    return Analysis(list(HOSTILE), ["X"] * 6, ["<b>"] * 6, heads=[2, 0, 2, 3, 2, 5], deprels=["dep", "root", "x</text>", "dep", "dep", "dep"])


def _english_by_hand():
    return Analysis(["The", "dog", "barked", "."], ["DET", "NOUN", "VERB", "PUNCT"], ["DT", "NN", "VBD", "."],
                    heads=[2, 3, 0, 3], deprels=["det", "nsubj", "root", "punct"], chunks=["B-NP", "I-NP", "B-VP", "O"])


# -- the page as text ------------------------------------------------------------------------------------
def test_page_is_self_contained_and_escaped():
    page = conjunct.render([_english_by_hand(), _hostile()], title="<T>")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for outside in ("<script", "<link", "@import", "url(", "src=", "href=", "http:", "https:"):
        assert outside not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "a&amp;amp;b" in page and "&lt;T&gt;" in page
    assert "x&lt;/text&gt;" in page and "&quot;q&quot;" in page
    assert "nul\u2400bell\u2407" in page and "x\ufffdy" in page and "😀" in page
    page.encode("utf-8")  # no lone surrogate left
    assert page.count("<svg") == 2 and page.count('class="dependency"') == 3 + 5


def test_render_takes_one_analysis_and_refuses_nothing_or_mismatches():
    assert conjunct.render(_english_by_hand()).count("<svg") == 1
    with pytest.raises(ConjunctError, match="nothing to render"):
        conjunct.render([])
    with pytest.raises(ConjunctError, match="4 words but 3 heads"):
        render_sentence(Analysis(["a", "b", "c", "d"], ["X"] * 4, ["X"] * 4, heads=[0, 1, 1]))
    with pytest.raises(ConjunctError, match="head outside"):
        render_sentence(Analysis(["a", "b"], ["X"] * 2, ["X"] * 2, heads=[0, 3]))
    with pytest.raises(ConjunctError, match="bunsetsu heads"):
        render_sentence(Analysis(["a", "b"], ["X"] * 2, ["X"] * 2, bunsetsu=[0, 1], bunsetsu_heads=[1]))


def test_arc_levels_nest_and_chunks_follow_conlleval():
    # (0,3) holds (0,1) and (1,3), which holds (2,3): 1 + max(1, 2)
    assert _levels([(0, 1), (1, 3), (2, 3), (0, 3)]) == [1, 2, 1, 3]
    assert list(_chunk_spans(["B-NP", "I-NP", "I-VP", "O", "I-NP", "B-NP"])) == [("NP", 0, 1), ("VP", 2, 2), ("NP", 4, 4),
                                                                                  ("NP", 5, 5)]


# -- real pipelines, through the command line -------------------------------------------------------------
@pytest.fixture(scope="module")
def english(shared_data):
    train = read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-train.conllu")[:120]
    chunks = conjunct.read_conll2000(shared_data / "conll2000" / "train.txt")[:80]
    return EnglishTextPipeline(PerceptronTagger(n_iter=2), EnglishDependencyParser(n_iter=1, method_params=SMALL),
                               Chunker(n_iter=1, method_params=SMALL), folds=2).fit(train, chunk_data=chunks)


@pytest.fixture(scope="module")
def japanese(shared_data):
    train = load_gsd_bunsetsu(shared_data / "ud_japanese_gsd", "dev")[:100]
    return JapaneseTextPipeline(WordSegmenter(n_iter=1, method_params=SMALL), PerceptronTagger(n_iter=2),
                                Chunker(n_iter=1, method_params=SMALL),
                                BunsetsuDependencyParser(degree=2, n_iter=1, method_params=SMALL), folds=2).fit(train)


EN_TEXT = "The dog barked at the mailman , and he ran away .\nShe said \" hi \" to <everyone> & left .\n"
JA_TEXT = "日本語の文を解析します。\n東京は大きな都市です。\n"


@pytest.mark.realdata
def test_cli_writes_the_page(tmp_path, english, japanese):
    for name, nlp, text in (("en", english, EN_TEXT), ("ja", japanese, JA_TEXT)):
        nlp.save(tmp_path / f"{name}.cjt")
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        out = tmp_path / f"{name}.html"
        assert main(["analyze", str(tmp_path / f"{name}.cjt"), str(tmp_path / f"{name}.txt"), "--output-format", "html",
                     "-o", str(out), "--batch-size", "1"]) == 0
        page = out.read_text(encoding="utf-8")
        analyses = nlp.analyze([line.split() if name == "en" else line for line in text.splitlines()])
        assert page == conjunct.render(analyses, title=f"{name}.txt", lang=name)  # the same page at any batch size
        assert f'<html lang="{name}">' in page and page.count("<svg") == 2
    # the default stays CoNLL-U
    assert main(["analyze", str(tmp_path / "en.cjt"), str(tmp_path / "en.txt"), "-o", str(tmp_path / "en.conllu")]) == 0
    assert (tmp_path / "en.conllu").read_text(encoding="utf-8").startswith("1\tThe\t")
    # an empty input writes no half page
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert main(["analyze", str(tmp_path / "en.cjt"), str(tmp_path / "empty.txt"), "--output-format", "html",
                 "-o", str(tmp_path / "empty.html")]) == 2
    assert not (tmp_path / "empty.html").exists() or "<html" not in (tmp_path / "empty.html").read_text()


# -- in a real browser ------------------------------------------------------------------------------------
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium (apt-get install chromium)")


# Run in the page after layout: what each sentence shows, in page pixels.
_MEASURE = """<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const out = { scripts: document.scripts.length, sentences: [] };
for (const svg of document.querySelectorAll("svg.analysis")) {
  const s = { svg: box(svg), tokens: [], arcs: [], roots: [], bunsetsu: [], texts: [] };
  for (const g of svg.querySelectorAll("g.token")) {
    const f = g.querySelector("text.form");
    s.tokens.push({ form: f.textContent, box: box(f), tags: [...g.querySelectorAll("text")].slice(1).map(t => t.textContent) });
  }
  const m = svg.getScreenCTM();
  const page = p => { const q = p.matrixTransform(m); return [q.x, q.y]; };
  for (const g of svg.querySelectorAll("g.dependency")) {
    const path = g.querySelector("path.arc"), n = path.getTotalLength();
    const label = g.querySelector("text.arc-label");
    s.arcs.push({ head: +(g.dataset.head ?? g.dataset.bunsetsuHead), dep: +(g.dataset.dep ?? g.dataset.bunsetsuDep),
                  start: page(path.getPointAtLength(0)), end: page(path.getPointAtLength(n)), apex: page(path.getPointAtLength(n / 2)),
                  rising: page(path.getPointAtLength(n * 0.15)),
                  arrow: box(g.querySelector("path.arrow")), label: label ? label.textContent : null });
  }
  for (const g of svg.querySelectorAll("g.root")) s.roots.push(box(g.querySelector("path.arrow")));
  for (const r of svg.querySelectorAll("rect.bunsetsu")) s.bunsetsu.push(box(r));
  for (const t of svg.querySelectorAll("text")) s.texts.push(box(t));
  out.sentences.push(s);
}
const pre = document.createElement("pre"); pre.id = "layout"; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def _open_in_chromium(tmp_path, page: str, width: int = 1400):
    browser = _chromium()
    measured = tmp_path / "measured.html"
    measured.write_text(page.replace("</body>", _MEASURE + "\n</body>"), encoding="utf-8")
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
              f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},2400"]
    dom = subprocess.run([*common, "--virtual-time-budget=3000", "--dump-dom", measured.as_uri()], capture_output=True,
                         text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stdout[-2000:]
    layout = json.loads(found.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))
    shot = tmp_path / "page.png"
    r = subprocess.run([*common, f"--screenshot={shot}", (tmp_path / "page.html").as_uri()], capture_output=True, text=True,
                       timeout=180)
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    return layout, shot


def _centre(b):
    return (b[0] + b[2]) / 2


def _check_sentence(s, forms, word_heads=None, bunsetsu=None, bunsetsu_heads=None):
    assert [t["form"] for t in s["tokens"]] == forms
    boxes = [t["box"] for t in s["tokens"]]
    assert all(b[2] - b[0] > 0 and b[3] - b[1] > 0 for b in boxes)            # drawn, with a size
    assert all(a[2] <= b[0] for a, b in zip(boxes, boxes[1:]))                  # left to right, no overlap
    sv = s["svg"]
    assert all(sv[0] <= t[0] and t[2] <= sv[2] and sv[1] <= t[1] and t[3] <= sv[3] for t in s["texts"])  # none cut off
    top = min(b[1] for b in boxes)
    if bunsetsu is not None:
        groups = [[boxes[k] for k in range(len(forms)) if bunsetsu[k] == g] for g in range(len(set(bunsetsu)))]
        assert len(s["bunsetsu"]) == len(groups)
        for r, members in zip(s["bunsetsu"], groups):
            assert all(r[0] <= b[0] and b[2] <= r[2] and r[1] <= b[1] and b[3] <= r[3] for b in members)
        centres = [_centre(r) for r in s["bunsetsu"]]
        expected = {(h, d) for d, h in enumerate(bunsetsu_heads) if h >= 0}
        assert len(s["roots"]) == sum(h < 0 for h in bunsetsu_heads)
    else:
        centres = [_centre(b) for b in boxes]
        expected = {(h - 1, d) for d, h in enumerate(word_heads) if h > 0}
        assert len(s["roots"]) == sum(h == 0 for h in word_heads)
    shown = set()
    for a in s["arcs"]:
        h, d = (a["head"] - 1, a["dep"] - 1) if bunsetsu is None else (a["head"], a["dep"])
        shown.add((h, d))
        assert abs(a["start"][0] - centres[h]) <= 6 and abs(a["end"][0] - centres[d]) <= 1  # from the head to the dependent
        assert _centre(a["arrow"]) == pytest.approx(centres[d], abs=1) and a["arrow"][3] <= top  # arrowhead on the dependent
        assert a["apex"][1] < top - 10                                           # the arc runs above the words
    assert shown == expected
    # where the screenshot must show ink: on each arc's rising leg (its middle carries the label) and its arrowhead
    return [a["rising"] for a in s["arcs"]] + [[_centre(a["arrow"]), (a["arrow"][1] + a["arrow"][3]) / 2] for a in s["arcs"]]


def _ink(png, points):
    """How many of ``points`` have a dark pixel within 2 px in the screenshot."""
    Image = pytest.importorskip("PIL.Image")
    img = Image.open(png).convert("L")
    w, h = img.size
    hits = 0
    for x, y in points:
        near = [img.getpixel((min(w - 1, max(0, int(x) + dx)), min(h - 1, max(0, int(y) + dy))))
                for dx in range(-2, 3) for dy in range(-2, 3)]
        hits += min(near) < 128
    return hits


@pytest.mark.realdata
def test_chromium_shows_words_tags_and_arcs(tmp_path, english, japanese):
    en = english.analyze([line.split() for line in EN_TEXT.splitlines()])
    ja = japanese.analyze(JA_TEXT.splitlines())
    analyses = [*en, *ja, _hostile()]
    page = conjunct.render(analyses)
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    layout, shot = _open_in_chromium(tmp_path, page)
    assert layout["scripts"] == 1                                               # ours: no text became an element
    sentences = layout["sentences"]
    assert len(sentences) == len(analyses)
    ink = []
    for s, a in zip(sentences, en):
        ink += _check_sentence(s, a.forms, word_heads=a.heads)
        assert [t["tags"][0] for t in s["tokens"]] == a.upos
        assert {x["label"] for x in s["arcs"]} <= set(a.deprels)
    for s, a in zip(sentences[len(en):], ja):
        ink += _check_sentence(s, a.forms, bunsetsu=a.bunsetsu, bunsetsu_heads=a.bunsetsu_heads)
    h = _hostile()
    ink += _check_sentence(sentences[-1], ["<script>alert(1)</script>", "a&amp;b", '"q"', "nul\u2400bell\u2407", "😀",
                                              "x\ufffdy"], word_heads=h.heads)
    # The screenshot: the arcs are drawn where the layout puts them, and nothing where there is nothing.
    on_screen = [p for p in ink if p[1] < 2400 - 5]
    assert on_screen and _ink(shot, on_screen) == len(on_screen)
    blank = [(x, y) for s in sentences for x, y in ((s["svg"][0] + 4, s["svg"][1] + 4), (s["svg"][2] - 4, s["svg"][1] + 4))]
    assert _ink(shot, blank) == 0
