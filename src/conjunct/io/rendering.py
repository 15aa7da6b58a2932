"""A picture of the analysis: dependency trees, tags, chunks and bunsetsu as
SVG in one self-contained HTML page (no script, stylesheet, font or image
from elsewhere), drawn the way displaCy draws a parse: the words in a row with
their tags under them, arcs above from each head to its dependents (the
arrowhead at the dependent, the relation on the arc).

- English: word arcs with their relations; chunks as labelled brackets under
  the tags.
- Japanese: bunsetsu as boxes around their words; bunsetsu dependencies as
  arcs between the boxes (head -> dependent, as for words).

Layout is computed here (text widths estimated per character class,
generously), so the page needs no script; every text is escaped and control
characters are shown as their Unicode control pictures.
"""

from __future__ import annotations

import html
import itertools
import unicodedata
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

from .._errors import ConjunctError

__all__ = ["render", "render_sentence", "render_stream", "page_head", "PAGE_END"]

FORM_PX, TAG_PX, LABEL_PX = 15, 11, 11
GAP = 22          # between word columns
MARGIN = 16
LEVEL = 30        # height of one arc level
ARROW = 5         # half-width of an arrowhead
ROW = 17          # a text row under the word

_STYLE = """
body { font-family: "DejaVu Sans", "Noto Sans", "Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic", sans-serif;
       margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.3em; font-weight: 600; }
figure { margin: 0 0 2em 0; overflow-x: auto; border-top: 1px solid #e4e4e4; padding-top: .6em; }
figcaption { font-size: .85em; color: #555; margin-bottom: .3em; white-space: pre-wrap; }
svg text { font-family: inherit; }
.form { font-size: 15px; font-weight: 600; fill: #111; }
.upos { font-size: 11px; fill: #1f5fa8; }
.xpos { font-size: 11px; fill: #777; }
.arc { fill: none; stroke: #333; stroke-width: 1.4; }
.arrow { fill: #333; }
.arc-label { font-size: 11px; fill: #a8321f; }
.chunk { fill: none; stroke-width: 1.6; }
.chunk-label { font-size: 11px; font-weight: 600; }
.bunsetsu { fill: #f3f6fb; stroke: #8aa4c8; stroke-width: 1.2; }
.legend { font-size: .8em; color: #666; }
"""

_CHUNK_COLOURS = ("#2a7f3b", "#8a4fb3", "#c06a00", "#1f5fa8", "#a8321f", "#00838f", "#6d6d00")


def _clean(text: str) -> str:
    """``text`` with C0 controls and DEL as their control pictures (U+2400...)
    and lone surrogates (not encodable) as U+FFFD, so that every input character
    stays visible and the page stays valid UTF-8."""
    out = []
    for ch in text:
        o = ord(ch)
        if o < 0x20:
            out.append(chr(0x2400 + o))
        elif o == 0x7F:
            out.append("\u2421")
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def _esc(text) -> str:
    return html.escape(_clean(str(text)), quote=True)


def _width(text: str, px: float, bold: bool = False) -> float:
    """A generous estimate of the rendered width of ``text`` at ``px`` pixels."""
    em = 0.0
    for ch in _clean(text):
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            em += 1.05
        elif unicodedata.combining(ch):
            continue
        elif ch.isupper() or ch in "mwMW@%&":
            em += 0.8
        elif ch in "il.,:;'!|ｌ":
            em += 0.38
        else:
            em += 0.64
    return em * px * (1.08 if bold else 1.0)


def _levels(arcs: Sequence[Tuple[int, int]]) -> List[int]:
    """The height level (1, 2, ...) of each (left, right) span: one above the
    highest span it contains, so no arc is drawn through a nested one."""
    order = sorted(range(len(arcs)), key=lambda k: arcs[k][1] - arcs[k][0])
    level = [0] * len(arcs)
    for k in order:
        lo, hi = arcs[k]
        inner = [level[j] for j in order if level[j] and arcs[j] != arcs[k] and lo <= arcs[j][0] and arcs[j][1] <= hi]
        level[k] = 1 + max(inner, default=0)
    return level


def _check(analysis) -> None:
    n = len(analysis.forms)
    for name in ("upos", "xpos", "heads", "deprels", "chunks", "bunsetsu"):
        value = getattr(analysis, name, None)
        if value is not None and len(value) != n:
            raise ConjunctError(f"the analysis has {n} words but {len(value)} {name}")
    heads = getattr(analysis, "heads", None)
    if heads is not None and any(not 0 <= h <= n for h in heads):
        raise ConjunctError(f"a head outside the sentence of {n} words: {list(heads)}")
    groups = getattr(analysis, "bunsetsu", None)
    bheads = getattr(analysis, "bunsetsu_heads", None)
    if groups is not None and bheads is not None:
        m = len(set(groups))
        if len(bheads) != m or any(not -1 <= h < m for h in bheads):
            raise ConjunctError(f"{m} bunsetsu but bunsetsu heads {list(bheads)}")


def render_sentence(analysis, index: int = 0) -> str:
    """One analysed sentence as an inline ``<svg>`` element.

    Parameters
    ----------
    analysis : Analysis
        Its ``forms`` and tags, and what it has of ``heads`` / ``deprels``,
        ``chunks``, ``bunsetsu`` / ``bunsetsu_heads``.
    index : int
        The sentence's number on the page (``data-sentence``).

    Returns
    -------
    str
    """
    _check(analysis)
    forms = list(analysis.forms)
    n = len(forms)
    upos = list(getattr(analysis, "upos", None) or [""] * n)
    xpos = list(getattr(analysis, "xpos", None) or [""] * n)
    xpos = [("" if x == u else x) for u, x in zip(upos, xpos)]  # a tag set without XPOS repeats UPOS
    heads = getattr(analysis, "heads", None)
    deprels: List[str] = list(getattr(analysis, "deprels", None) or [""] * n)
    chunks = getattr(analysis, "chunks", None)
    groups = getattr(analysis, "bunsetsu", None)
    bheads = getattr(analysis, "bunsetsu_heads", None)

    widths = [max(_width(f, FORM_PX, True), _width(u, TAG_PX), _width(x, TAG_PX), 18.0) for f, u, x in zip(forms, upos, xpos)]
    left: List[float] = []
    x = float(MARGIN)
    for w in widths:
        left.append(x)
        x += w + GAP
    centre = [lo + w / 2 for lo, w in zip(left, widths)]
    total_width = x - GAP + MARGIN

    # The arcs above the words: word dependencies, or else bunsetsu dependencies between the boxes' centres.
    arcs: List[Tuple[float, float, str, str]] = []   # (x head, x dependent, label, data attributes)
    spans: List[Tuple[int, int]] = []
    roots: List[Tuple[float, str, str]] = []
    bspan: List[Tuple[int, int]] = []
    if groups is not None:
        for b, members in itertools.groupby(range(n), key=lambda k: groups[k]):
            ks = list(members)
            bspan.append((ks[0], ks[-1]))
    if heads is not None:
        for d, h in enumerate(heads):
            if h == 0:
                roots.append((centre[d], deprels[d] or "root", f'data-dep="{d + 1}"'))
            else:
                arcs.append((centre[h - 1], centre[d], deprels[d], f'data-head="{h}" data-dep="{d + 1}"'))
                spans.append((min(h - 1, d), max(h - 1, d)))
    elif bheads is not None and bspan:
        bcentre = [(left[a] + left[b] + widths[b]) / 2 for a, b in bspan]
        for d, h in enumerate(bheads):
            if h < 0:
                roots.append((bcentre[d], "root", f'data-bunsetsu-dep="{d}"'))
            else:
                arcs.append((bcentre[h], bcentre[d], "", f'data-bunsetsu-head="{h}" data-bunsetsu-dep="{d}"'))
                spans.append((min(h, d), max(h, d)))
    levels = _levels(spans)
    top_level = max(levels + ([1] if roots else [0]))
    base = MARGIN + LEVEL * top_level + 14 + (8 if roots else 0)   # where arcs meet the words

    parts: List[str] = []
    # The rows under the words.
    y_form = base + FORM_PX + 4
    y_upos = y_form + ROW
    y_xpos = y_upos + ROW - 2
    y = y_xpos + 8 if any(xpos) else y_upos + 6
    if groups is not None:
        for k, (a, b) in enumerate(bspan):
            parts.append(f'<rect class="bunsetsu" data-bunsetsu="{k}" x="{left[a] - GAP / 2 + 3:.1f}" y="{base + 2:.1f}" '
                         f'width="{left[b] + widths[b] - left[a] + GAP - 6:.1f}" height="{y - base + 2:.1f}" rx="6"/>')
    for k, (f, u, xp) in enumerate(zip(forms, upos, xpos)):
        parts.append(f'<g class="token" data-i="{k + 1}">'
                     f'<text class="form" x="{centre[k]:.1f}" y="{y_form:.1f}" text-anchor="middle">{_esc(f)}</text>'
                     f'<text class="upos" x="{centre[k]:.1f}" y="{y_upos:.1f}" text-anchor="middle">{_esc(u)}</text>'
                     + (f'<text class="xpos" x="{centre[k]:.1f}" y="{y_xpos:.1f}" text-anchor="middle">{_esc(xp)}</text>'
                        if xp else "") + "</g>")
    height = y + (6.0 if groups is not None else 0.0)
    if chunks is not None:
        y_chunk = height + 10
        colours: dict = {}
        for kind, a, b in _chunk_spans(chunks):
            colour = colours.setdefault(kind, _CHUNK_COLOURS[len(colours) % len(_CHUNK_COLOURS)])
            x0, x1 = left[a] - 4, left[b] + widths[b] + 4
            parts.append(f'<g class="chunk-group" data-chunk="{_esc(kind)}" data-from="{a + 1}" data-to="{b + 1}">'
                         f'<path class="chunk" stroke="{colour}" d="M{x0:.1f},{y_chunk - 6:.1f} V{y_chunk:.1f} H{x1:.1f} '
                         f'V{y_chunk - 6:.1f}"/><text class="chunk-label" fill="{colour}" x="{(x0 + x1) / 2:.1f}" '
                         f'y="{y_chunk + 14:.1f}" text-anchor="middle">{_esc(kind)}</text></g>')
        height = y_chunk + 20
    # Arcs.
    for (xh, xd, label, data), level in zip(arcs, levels):
        rise = LEVEL * level
        x0 = xh + (4 if xd > xh else -4)
        # A cubic whose control points sit at rise / 0.75 peaks at ``rise`` above the words.
        cy = base - rise / 0.75
        peak = base - rise
        parts.append(f'<g class="dependency" {data}><path class="arc" d="M{x0:.1f},{base:.1f} C{x0:.1f},{cy:.1f} '
                     f'{xd:.1f},{cy:.1f} {xd:.1f},{base - ARROW * 1.6:.1f}"/>'
                     f'<path class="arrow" d="M{xd - ARROW:.1f},{base - ARROW * 1.8:.1f} L{xd:.1f},{base:.1f} '
                     f'L{xd + ARROW:.1f},{base - ARROW * 1.8:.1f} Z"/>')
        if label:  # above the arc's peak, in the free band below the next level: it hides no line
            parts.append(f'<text class="arc-label" x="{(x0 + xd) / 2:.1f}" y="{peak - 4:.1f}" '
                         f'text-anchor="middle">{_esc(label)}</text>')
        parts.append("</g>")
    for xr, label, data in roots:
        top = MARGIN + 2
        parts.append(f'<g class="root" {data}><path class="arc" d="M{xr:.1f},{top + 12:.1f} V{base - ARROW * 1.6:.1f}"/>'
                     f'<path class="arrow" d="M{xr - ARROW:.1f},{base - ARROW * 1.8:.1f} L{xr:.1f},{base:.1f} '
                     f'L{xr + ARROW:.1f},{base - ARROW * 1.8:.1f} Z"/>'
                     f'<text class="arc-label" x="{xr:.1f}" y="{top + 8:.1f}" text-anchor="middle">{_esc(label)}</text></g>')
    return (f'<svg class="analysis" data-sentence="{index}" width="{total_width:.0f}" height="{height + MARGIN:.0f}" '
            f'viewBox="0 0 {total_width:.0f} {height + MARGIN:.0f}" role="img">' + "".join(parts) + "</svg>")


def _chunk_spans(tags: Sequence[str]) -> Iterator[Tuple[str, int, int]]:
    """(type, first word, last word) of the chunks of IOB2 tags (an I- after
    another type starts a chunk, as conlleval reads it)."""
    start, kind = -1, ""
    for k, tag in enumerate(list(tags) + ["O"]):
        prefix, _, t = tag.partition("-")
        if start >= 0 and (prefix != "I" or t != kind):
            yield kind, start, k - 1
            start, kind = -1, ""
        if prefix in ("B", "I") and start < 0:
            start, kind = k, t
    return


def page_head(title: str = "conjunct analysis", lang: Optional[str] = None) -> str:
    """The start of a page (up to the first sentence), with its stylesheet inline.

    Parameters
    ----------
    title : str
        Shown as the page's title and heading.
    lang : str, optional
        The language of the text (``html lang``).
    """
    attr = f' lang="{_esc(lang)}"' if lang else ""
    return (f"<!DOCTYPE html>\n<html{attr}>\n<head>\n<meta charset=\"utf-8\">\n<title>{_esc(title)}</title>\n"
            f"<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{_esc(title)}</h1>\n"
            "<p class=\"legend\">Arcs go from a head to its dependent (arrowhead at the dependent); under each word its "
            "UPOS (blue) and XPOS (grey); brackets are chunks, boxes bunsetsu.</p>\n")


#: The end of a page.
PAGE_END = "</body>\n</html>\n"


def _figure(analysis, index: int, comments: Sequence[str] = (), lang: Optional[str] = None) -> str:
    words = ("" if lang == "ja" else " ").join(analysis.forms)  # Japanese is written without spaces
    caption = "\n".join(c.lstrip("#").strip() for c in comments) or f"{index + 1}. {words}"
    return (f'<figure data-sentence="{index}">\n<figcaption>{_esc(caption)}</figcaption>\n'
            f"{render_sentence(analysis, index)}\n</figure>\n")


def render(analyses, *, title: str = "conjunct analysis", lang: Optional[str] = None) -> str:
    """A self-contained HTML page drawing analysed sentences (displaCy-style SVG).

    >>> page = conjunct.render(nlp.analyze([["The", "dog", "barked", "."]]))   # doctest: +SKIP
    >>> open("parse.html", "w", encoding="utf-8").write(page)                   # doctest: +SKIP

    Parameters
    ----------
    analyses : Analysis or iterable of Analysis
        What a text pipeline's ``analyze`` returns (one sentence or many).
    title : str
        The page's title.
    lang : str, optional
        The language of the text (``html lang``).

    Returns
    -------
    str
        The page (write it with ``encoding="utf-8"``).
    """
    if hasattr(analyses, "forms"):
        analyses = [analyses]
    body = [_figure(a, k, getattr(a, "comments", ()), lang) for k, a in enumerate(analyses)]
    if not body:
        raise ConjunctError("nothing to render: no analysed sentence")
    return page_head(title, lang) + "".join(body) + PAGE_END


def render_stream(pipeline, sentences: Iterable, *, batch_size: int = 1000, title: str = "conjunct analysis") -> Iterator[str]:
    """The page of ``sentences`` analysed by ``pipeline``, piece by piece (batch
    by batch, memory bounded): what ``conjunct analyze --output-format html``
    writes.

    Parameters
    ----------
    pipeline : TextPipeline
        A fitted English or Japanese pipeline.
    sentences : iterable of (tokens or text, comments)
        As :func:`conjunct.analysis.read_text` yields them.
    batch_size : int
        Sentences per call of each stage.
    title : str
        The page's title.

    Yields
    ------
    str
        The page's head, one figure per sentence, its end.
    """
    lang = getattr(pipeline, "lang", None)
    it = iter(sentences)
    k = 0
    while True:
        batch = list(itertools.islice(it, batch_size))  # read before the head: bad input writes nothing
        if not batch:
            break
        if not k:
            yield page_head(title, lang)
        for analysis, (_, comments) in zip(pipeline.analyze([s for s, _ in batch]), batch):
            yield _figure(analysis, k, comments, lang)
            k += 1
    if not k:
        raise ConjunctError("nothing to render: no sentence")
    yield PAGE_END
