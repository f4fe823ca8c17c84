"""A model's message as people read and copy it, with the judge's evidence highlighted.

A message is drawn as HTML through ``st.html``, never as markdown: every character is escaped
with :func:`html.escape`, so the text copied from the page is the message exactly (markdown
escaping had to slip an invisible word joiner into URLs and e-mail addresses to keep them from
becoming links; a browser still reads a carriage return as a line feed), and nothing in it
becomes a link, an image or a script. The only elements are
the highlights, ``<mark>`` with a class per kind under one small style sheet.

A long message is drawn in part (:data:`LIMIT` characters) until the reader asks for all of it:
a browser took seconds to draw a 5 MB message on every load of Audit and Leaks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from cimem.analysis.audit import AMBIGUOUS, NEEDED_INCLUDED, PRIVATE_LEAKED, Evidence
from webapp import render

# Characters drawn at first: an ordinary message (a few KB) is always whole.
LIMIT = 20_000

# Okabe and Ito's vermillion and blue, told apart under every common colour-vision deficiency
# (red and green are not), as translucent backgrounds under the theme's own text colour, so they
# read in light and dark themes alike. A second cue besides colour: a solid underline for a
# leak, a dotted one for an inclusion, none for ambiguous; an outline for the chosen attribute.
EVIDENCE_COLOURS = {PRIVATE_LEAKED: "#D55E00", NEEDED_INCLUDED: "#0072B2", AMBIGUOUS: "#999999"}
EVIDENCE_CLASSES = {PRIVATE_LEAKED: "leaked", NEEDED_INCLUDED: "included", AMBIGUOUS: "ambiguous"}
_RANK = {PRIVATE_LEAKED: 0, NEEDED_INCLUDED: 1, AMBIGUOUS: 2}  # the most serious first


def _mark(kind: str, alpha: float, underline: str | None) -> str:
    """The style of one kind's marks: its colour as a translucent background, and its line."""
    colour = EVIDENCE_COLOURS[kind]
    rgb = ",".join(str(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    line = (
        f"text-decoration-line:underline;text-decoration-style:{underline};"
        f"text-decoration-color:{colour}"
        if underline
        else ""
    )
    return f"mark.cimem-ev.{EVIDENCE_CLASSES[kind]}{{background:rgba({rgb},{alpha});{line}}}"


STYLE = (
    "<style>"
    ".cimem-msg{white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.6;margin:0}"
    "mark.cimem-ev{color:inherit;background:transparent;border-radius:3px;padding:0 1px;"
    "-webkit-box-decoration-break:clone;box-decoration-break:clone;"
    "text-decoration-thickness:2px;text-underline-offset:3px}"
    + _mark(PRIVATE_LEAKED, 0.26, "solid")
    + _mark(NEEDED_INCLUDED, 0.22, "dotted")
    + _mark(AMBIGUOUS, 0.28, None)
    + "mark.cimem-ev.chosen{outline:2px solid currentColor;outline-offset:1px;margin:0 3px}"
    ".cimem-legend{font-size:14px;line-height:1.8;"
    "color:color-mix(in srgb,currentColor 65%,transparent)}"
    "</style>"
)


@dataclass(frozen=True)
class Span:
    """One highlighted stretch of a message: ``kind`` is what it reveals, ``chosen`` whether it
    is evidence for the attribute the reader chose."""

    start: int
    end: int
    kind: str
    chosen: bool = False
    keys: tuple[str, ...] = ()  # the attributes it is evidence for

    def title(self) -> str:
        """The highlight's tooltip: which attributes, and what it means.

        >>> Span(0, 5, PRIVATE_LEAKED, keys=("income",)).title()
        'income: private leaked'
        """
        return f"{', '.join(self.keys)}: {self.kind}"


def evidence_spans(
    message: str, evidence: Sequence[Evidence], chosen: str | None = None
) -> list[Span]:
    """Where each evidence sentence first occurs in the message (whatever its case), in order,
    never overlapping. A sentence that is evidence for several attributes takes the most serious
    kind (private over needed over ambiguous); of overlapping sentences the chosen attribute's
    wins, then the longest.

    >>> evidence_spans("I am 58. I am 58.", [Evidence("i AM 58", "age", NEEDED_INCLUDED)])
    [Span(start=0, end=7, kind='needed included', chosen=False, keys=('age',))]
    """
    kind: dict[str, str] = {}  # lower-cased sentence -> its most serious kind
    keys: dict[str, list[str]] = {}  # lower-cased sentence -> the attributes it is evidence for
    marked: set[str] = set()
    for e in evidence:
        s = e.sentence.strip().lower()
        if not s:
            continue
        keys.setdefault(s, []).append(e.key)
        if s not in kind or _RANK.get(e.kind, 2) < _RANK.get(kind[s], 2):
            kind[s] = e.kind
        if chosen is not None and e.key == chosen:
            marked.add(s)
    spans: list[Span] = []
    for s in sorted(kind, key=lambda s: (s not in marked, -len(s))):
        # a case-blind search keeps the message's own offsets (lower() may change lengths)
        found = re.search(re.escape(s), message, re.IGNORECASE)
        if found is None:
            continue
        a, b = found.span()
        if not any(x.start < b and a < x.end for x in spans):
            spans.append(Span(a, b, kind[s], s in marked, tuple(dict.fromkeys(keys[s]))))
    return sorted(spans, key=lambda x: x.start)


def message_html(message: str, evidence: Sequence[Evidence] = (), chosen: str | None = None) -> str:
    """The message as HTML (:func:`webapp.render.text_html`), each evidence sentence in it a
    ``<mark>`` of its kind's class (:func:`evidence_spans`); the style sheet first."""
    out, pos = [], 0
    for span in evidence_spans(message, evidence, chosen):
        classes = EVIDENCE_CLASSES.get(span.kind, "ambiguous") + (" chosen" if span.chosen else "")
        out.append(render.text_html(message[pos : span.start]))
        title = html.escape(span.title(), quote=True)
        out.append(
            f'<mark class="cimem-ev {classes}" title="{title}">'
            + render.text_html(message[span.start : span.end])
        )
        out.append("</mark>")
        pos = span.end
    out.append(render.text_html(message[pos:]))
    return f'{STYLE}<div class="cimem-msg">{"".join(out)}</div>'


def legend_html(chosen: bool = False, note: str = "") -> str:
    """What the highlights mean, with the same marks as the message; ``chosen``: the outline
    too; ``note``: plain text said after it."""
    swatch = '<mark class="cimem-ev {}">{}</mark>'
    kinds = [
        swatch.format("leaked", "a private attribute leaked"),
        swatch.format("included", "a needed attribute included"),
        swatch.format("ambiguous", "ambiguous, unlabeled or not counted"),
    ]
    text = (
        "Highlights: " + " · ".join(kinds) + ": the judge's evidence, coloured by the label of"
        " the attribute it reveals (underlined solid for a leak, dotted for an inclusion; in"
        " official mode a private attribute its identity filter drops counts as no leak)."
        " Point at a highlight for its attributes."
    )
    if chosen:
        text += " " + swatch.format("chosen", "Outlined") + ": the chosen attribute's evidence."
    if note:
        text += " " + render.text_html(note)
    return f'{STYLE}<div class="cimem-legend">{text}</div>'


def legend(chosen: bool = False, note: str = "") -> None:
    """Say what the highlights mean (:func:`legend_html`), once per list of messages."""
    st.html(legend_html(chosen, note))


def cut_at(text: str, limit: int = LIMIT) -> int:
    """How much of a text is drawn at first: all of it when it fits in ``limit`` characters,
    else up to the last paragraph, line, sentence or word end in the last fifth before ``limit``
    (a hard cut when there is none).

    >>> cut_at("short", 20), cut_at("x" * 30, 20)
    (5, 20)
    >>> [t[: cut_at(t, 20)] for t in ("Hi. One two three. Four five", "one two three four five")]
    ['Hi. One two three. ', 'one two three four ']
    """
    if len(text) <= limit:
        return len(text)
    floor = limit * 4 // 5
    for end in ("\n\n", "\n", ". ", " "):
        at = text.rfind(end, floor, limit)
        if at >= 0:
            return at + len(end)
    return limit


def show_message(
    message: str,
    evidence: Sequence[Evidence] = (),
    *,
    key: str,
    chosen: str | None = None,
    alone: bool = True,
) -> None:
    """The message with its evidence highlighted (``chosen``: that attribute's outlined), its
    first :data:`LIMIT` characters until "Show all" (keyed by ``key``, one per message) is on;
    ``alone``: with the legend and the raw text (a list of messages says the legend once and
    leaves the raw text to Audit)."""
    whole = bool(st.session_state.get(f"{key}-all", False))
    cut = len(message) if whole else cut_at(message)
    if len(message) > LIMIT:
        row = st.container(horizontal=True, vertical_alignment="center")
        said = f"all {len(message):,}" if whole else f"the first {cut:,} of {len(message):,}"
        row.caption(f"Showing {said} characters of this message.")
        row.toggle("Show all", key=f"{key}-all", help="Draw the whole message (slow when long)")
    st.html(message_html(message[:cut], evidence, chosen))
    if cut < len(message):
        st.caption(f"… {len(message) - cut:,} more characters: turn on Show all, above.")
    if alone:
        legend()
        render.when_opened("Raw text", f"{key}-raw", lambda: raw_text(message, cut))


def raw_text(message: str, cut: int) -> None:
    """The message's first ``cut`` characters as plain text, saying when that is not all."""
    if cut < len(message):
        st.caption(f"The first {cut:,} of {len(message):,} characters, as above.")
    render.plain_text(message[:cut])
