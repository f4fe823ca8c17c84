"""Drawing helpers shared by the pages: safe text, highlighted messages, chart downloads.

Every text that came from data or the URL (messages, evidence, run, judge, profile, attribute,
recipient and task names, paths, error messages that quote them) is untrusted: pages pass it
through :func:`escape_md` before it reaches markdown, captions, titles, alerts or widget labels
(markdown specials backslash-escaped, HTML never enabled), so ``<script>``, a markdown image or a
link shows as the text it is and the browser fetches nothing. Selectbox and multiselect options
are plain text already and are not escaped.
"""

from __future__ import annotations

import datetime
import functools
import html
import re
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from cimem.analysis.audit import AMBIGUOUS, NEEDED_INCLUDED, PRIVATE_LEAKED, Evidence
from cimem.analysis.report import frame_to_csv

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$=^&\"'])")
# Streamlit's markdown turns URLs, www. names and e-mail addresses in plain text into links after
# parsing, so backslashes do not stop it: an invisible word joiner inside "://", "www." and
# before "@" does (the text reads the same).
_AUTOLINK = re.compile(r"(?i)(?=://)|(?<=\bwww)(?=\.)|(?=@)")
_JOINER = "\u2060"


ChartT = TypeVar("ChartT", bound=alt.TopLevelMixin)


def escape_md(text: object) -> str:
    """Text that Streamlit's markdown shows literally (None shows as nothing): every markdown
    special is backslash-escaped and URLs are kept from becoming links, so
    ``R![i](http://h/r.png)`` is no image, no link and no fetch."""
    plain = _AUTOLINK.sub(_JOINER, "" if text is None else str(text))
    return _MD_SPECIAL.sub(r"\\\1", plain).replace("\n", "  \n")


def _cell_text(value: object, digits: int | None, numeric: bool) -> str:
    """How a table shows one value: "-" for a missing number, blank for missing text, counts
    with thousands separators, ``digits`` decimals where given, yes/no for a flag."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "-" if numeric else ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        if digits is not None:
            return f"{float(value):,.{digits}f}"
        return f"{int(value):,}" if float(value).is_integer() else f"{float(value):.4g}"
    return str(value)


# One table style for every static table, in the theme's text colour (light or dark alike), as one
# style sheet by class: the same style written into every cell made a 20-row table 31 KB, which
# the browser sanitises and parses on every rerun.
_STYLE = (
    "<style>"
    ".cimem-table{border-collapse:collapse;font-size:14px;line-height:1.5;margin-bottom:1rem}"
    ".cimem-table th{padding:4px 8px;font-weight:400;text-align:left;vertical-align:bottom;"
    "color:color-mix(in srgb,currentColor 70%,transparent);"
    "border-bottom:1px solid color-mix(in srgb,currentColor 15%,transparent)}"
    ".cimem-table td{padding:4px 8px;text-align:left;vertical-align:top;"
    "border-bottom:1px solid color-mix(in srgb,currentColor 10%,transparent)}"
    ".cimem-table th.right{text-align:right}"
    ".cimem-table td.right{text-align:right;white-space:nowrap}"
    "</style>"
)


def table_html(
    frame: pd.DataFrame,
    digits: dict[str, int] | None = None,
    breakable: tuple[str, ...] = (),
    styles: dict[str, Callable[[object], str]] | None = None,
) -> str:
    """A small table as plain HTML, every header and cell escaped (data never becomes markup);
    numbers right-aligned and formatted by :func:`_cell_text`; in the ``breakable`` columns a
    line may also break after "_" (long snake_case keys would widen the table otherwise);
    ``styles``: column -> a cell's CSS from its value.

    >>> table_html(pd.DataFrame({"name": ["<b>x_y</b>"], "n": [1234]}), breakable=("name",))
    ... # doctest: +ELLIPSIS
    '<style>...<th>name</th><th class="right">n</th>...<td>&lt;b&gt;x_<wbr>y&lt;/b&gt;</td><td class="right">1,234</td>...'
    """
    digits = digits or {}
    styles = styles or {}
    numeric: dict[Hashable, bool] = {c: frame[c].dtype.kind in "iuf" for c in frame.columns}
    # headers may wrap; a number is right-aligned and stays on one line
    opened = {c: '<td class="right"' if numeric[c] else "<td" for c in frame.columns}
    head = "".join(
        ('<th class="right">' if numeric[c] else "<th>") + html.escape(str(c)) + "</th>"
        for c in frame.columns
    )
    rows = []
    for values in frame.itertuples(index=False, name=None):
        cells = []
        for col, value in zip(frame.columns, values, strict=True):
            text = html.escape(_cell_text(value, digits.get(str(col)), numeric[col]))
            if col in breakable:
                text = text.replace("_", "_<wbr>")
            extra = f' style="{html.escape(styles[col](value))}"' if col in styles else ""
            cells.append(f"{opened[col]}{extra}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        _STYLE
        + '<div style="overflow-x:auto"><table class="cimem-table">'
        + f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def static_table(
    frame: pd.DataFrame,
    digits: dict[str, int] | None = None,
    breakable: tuple[str, ...] = (),
    styles: dict[str, Callable[[object], str]] | None = None,
) -> None:
    """A table nobody selects from, drawn as plain HTML (:func:`table_html`). In a real browser
    an interactive grid costs 100-200 ms more each time its rows change, and ``st.table`` about
    70 ms more per table (it renders every cell as markdown)."""
    st.html(table_html(frame, digits, breakable, styles))


# Highlight colours by what the sentence reveals (Streamlit's named background colours).
EVIDENCE_COLOURS = {PRIVATE_LEAKED: "red", NEEDED_INCLUDED: "green", AMBIGUOUS: "gray"}
EVIDENCE_LEGEND = (
    "Highlights: :red-background[a private attribute leaked] · :green-background[a needed"
    " attribute included] · :gray-background[ambiguous or unlabeled] (the judge's evidence,"
    " coloured by the label of the attribute it reveals)."
)


def highlighted(message: str, evidence: list[Evidence]) -> str:
    """The message escaped, with each evidence sentence found in it on a background coloured by
    what it reveals (a sentence that is evidence for several attributes takes the most serious:
    private over needed over ambiguous)."""
    rank = {PRIVATE_LEAKED: 0, NEEDED_INCLUDED: 1, AMBIGUOUS: 2}
    kind: dict[str, str] = {}  # lower-cased sentence -> its most serious kind
    for e in evidence:
        s = e.sentence.strip().lower()
        if s and (s not in kind or rank[e.kind] < rank[kind[s]]):
            kind[s] = e.kind
    spans: list[tuple[int, int, str]] = []
    low = message.lower()
    for s in sorted(kind, key=len, reverse=True):
        i = low.find(s)
        if i >= 0 and not any(a < i + len(s) and i < b for a, b, _ in spans):
            spans.append((i, i + len(s), kind[s]))
    spans.sort()
    out, pos = [], 0
    for a, b, k in spans:
        out.append(escape_md(message[pos:a]))
        out.append(f":{EVIDENCE_COLOURS[k]}-background[" + escape_md(message[a:b]) + "]")
        pos = b
    out.append(escape_md(message[pos:]))
    return "".join(out)


_PRE = (
    "white-space:pre-wrap;overflow-wrap:anywhere;margin:0;padding:12px 16px;border-radius:8px;"
    "font-size:14px;background:color-mix(in srgb,currentColor 5%,transparent)"
)


def plural(count: int, noun: str) -> str:
    """A count with its noun, singular for one.

    >>> plural(1, "attribute"), plural(30, "task")
    ('1 attribute', '30 tasks')
    """
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def plain_text(text: str) -> None:
    """Untrusted text exactly as it is (escaped, never markup), wrapped, in a monospace block.
    ``st.code`` would do the same, but its syntax highlighter cost a real browser about 350 ms
    the first time a page showed one."""
    st.html(f'<pre class="cimem-raw" style="{_PRE}">{html.escape(text)}</pre>')


def when_opened(label: str, key: str, draw: Callable[[], object]) -> None:
    """A folded section whose content is drawn only while it is open (opening it reruns the
    page): a browser draws a folded section's content all the same, and a grid there slowed
    every load. Its open state lives under ``key``, so it stays open from rerun to rerun."""
    section = st.expander(label, on_change="rerun", key=key)
    if section.open:
        with section:
            draw()


def show_message(message: str, evidence: list[Evidence] | None = None, alone: bool = True) -> None:
    """The message with its evidence highlighted; ``alone``: with the colours' legend and the raw
    text (a list of messages says the legend once and leaves the raw text to Audit: a browser
    draws every folded raw text all the same)."""
    st.markdown(highlighted(message, evidence or []))
    if alone:
        st.caption(EVIDENCE_LEGEND)
        with st.expander("Raw text"):
            plain_text(message)


def unvalidated(c: ChartT) -> ChartT:
    """The chart, serialised without JSON-schema validation: Streamlit serialises every chart on
    every rerun, and validation costs a few hundred milliseconds per chart (the app's charts are
    built by its own code and drawn by the tests)."""
    object.__setattr__(c, "to_dict", functools.partial(c.to_dict, validate=False))
    return c


def chart(c: alt.Chart | alt.LayerChart, name: str, key: str) -> None:
    """Draw an Altair chart with SVG and PNG downloads (made only when clicked)."""
    st.altair_chart(unvalidated(c), width="stretch")
    downloads(c.to_dict, name, key)


def downloads(
    spec: Callable[[], dict],
    name: str,
    key: str,
    table: Callable[[], pd.DataFrame] | None = None,
) -> None:
    """SVG and PNG buttons for a chart; ``spec`` gives its Vega-Lite dict, called only when a
    download is clicked (building and checking it costs a rerun real time on every chart). With
    ``table``: a CSV button too, for the numbers the chart draws (exact, and readable without a
    mouse), made safe to open in a spreadsheet. One row, not columns: a browser redraws every
    element of a page on each rerun, blocks too."""
    row = st.container(horizontal=True)

    def svg() -> bytes:
        import vl_convert as vlc

        return vlc.vegalite_to_svg(spec()).encode()

    def png() -> bytes:
        import vl_convert as vlc

        return vlc.vegalite_to_png(spec(), scale=2)

    row.download_button(
        "SVG",
        svg,
        file_name=f"{name}.svg",
        mime="image/svg+xml",
        key=f"{key}-svg",
        on_click="ignore",
    )
    row.download_button(
        "PNG", png, file_name=f"{name}.png", mime="image/png", key=f"{key}-png", on_click="ignore"
    )
    if table is not None:
        csv_download(table, name, key, row)


def csv_download(
    table: Callable[[], pd.DataFrame], name: str, key: str, where: DeltaGenerator | None = None
) -> None:
    """A CSV button for the numbers a chart draws (exact, and readable without a mouse), made
    only when clicked and safe to open in a spreadsheet. A chart drawn in the page saves its own
    SVG and PNG (:mod:`webapp.charts`), from the chart as drawn."""
    button = st.download_button if where is None else where.download_button
    button(
        "CSV",
        lambda: frame_to_csv(table()),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"{key}-csv",
        on_click="ignore",
        help="The numbers this chart draws",
    )


# The Leaks heatmap's colours: the leak frequency's, exactly white at 0 then from a light red up
# (any leak at all is visible); the labels', when every labelled cell is shown.
LEAK_STOPS = [0, 0.001, 0.25, 1]
LEAK_COLOURS = ["#ffffff", "#fcbba1", "#ef3b2c", "#67000d"]
LABEL_COLOURS = {"share": "#4c9f70", "private": "#d1495b", "ambiguous": "#c0c0c0"}
# A heatmap cell with nothing to colour (the attribute is not withheld in that task, or has no
# label): a light grey, told apart from 0% (white) and from "ambiguous", in light and dark themes.
NO_CELL_COLOUR = "#ececec"


def ramp_colours(
    values: Sequence[float] | np.ndarray | pd.Series, stops: list[float], colours: list[str]
) -> list[str]:
    """Each value's colour on a piecewise-linear RGB ramp (``colours`` at ``stops``, clipped at
    both ends; a missing value takes the first colour): what Vega-Lite's rgb interpolation draws,
    made on the server so that one chart layout serves several colourings (a browser compiles a
    new layout in about 250 ms, new data in a fraction of that).

    >>> ramp_colours([0, 0.5, 2, float("nan")], [0, 1], ["#000000", "#ffffff"])
    ['#000000', '#808080', '#ffffff', '#000000']
    """
    rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in colours], dtype=float)
    at = np.nan_to_num(np.asarray(values, dtype=float), nan=stops[0])
    channels = np.stack([np.interp(at, stops, rgb[:, k]) for k in range(3)], axis=1)
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in np.rint(channels).astype(int).tolist()]


def pct(x: float | None) -> str:
    try:
        return "n/a" if x is None or x != x else f"{100 * x:.2f}%"
    except TypeError:
        return "n/a"


def label_place(x: float, above: bool) -> tuple[str, int, int]:
    """Where a point's label goes so that it does not run over the curves, which only rise to
    the right: above them, to the left of the point (the curves there are lower); below them,
    to its right (they are higher there). Near an edge it turns the other way, up or down.
    ``x`` is the point's place across the chart (0 left edge, 1 right edge). Returns the
    text's alignment and its offsets in pixels.

    >>> label_place(0.8, above=True), label_place(0.0, above=True)
    (('right', -10, -4), ('left', 10, -12))
    >>> label_place(0.2, above=False), label_place(1.0, above=False)
    (('left', 10, 4), ('right', -10, 16))
    """
    if above:
        return ("right", -10, -4) if x > 0.35 else ("left", 10, -12)
    return ("left", 10, 4) if x < 0.65 else ("right", -10, 16)
