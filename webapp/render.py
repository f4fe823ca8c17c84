"""Drawing helpers shared by the pages: safe text, static tables, chart downloads (a model's
message, with its evidence highlighted, is :mod:`webapp.message_view`'s).

Every text that came from data or the URL (evidence, run, judge, profile, attribute, recipient
and task names, paths, error messages that quote them) is untrusted: pages pass it through
:func:`escape_md` before it reaches markdown, captions, titles, alerts or widget labels (markdown
specials backslash-escaped, HTML never enabled), so ``<script>``, a markdown image or a link shows
as the text it is and the browser fetches nothing. Texts people copy (messages, raw texts) are
never markdown: they are HTML, every character escaped (:func:`text_html`). Selectbox and
multiselect options are plain text already and are not escaped.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from cimem.analysis.sheets import frame_to_csv
from cimem.publish.html_table import table_html

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


# A <div> in the font of a <pre>: an HTML parser drops the newline right after <pre> (the text's).
_PRE = (
    "white-space:pre-wrap;overflow-wrap:anywhere;margin:0;padding:12px 16px;border-radius:8px;"
    "font-family:monospace;font-size:14px;"
    "background:color-mix(in srgb,currentColor 5%,transparent)"
)


def text_html(text: str) -> str:
    """Text escaped for HTML with its line ends as character references: ``st.html`` dedents
    and strips what it is given, which would empty a line of spaces.

    >>> text_html('<a href="x">\\n  ')
    '&lt;a href=&quot;x&quot;&gt;&#10;  '
    """
    return html.escape(text).replace("\r", "&#13;").replace("\n", "&#10;")


def plain_text(text: str) -> None:
    """Untrusted text exactly as it is (escaped, never markup), wrapped, in a monospace block.
    ``st.code`` would do the same, but its syntax highlighter cost a real browser about 350 ms
    the first time a page showed one."""
    st.html(f'<div class="cimem-raw" style="{_PRE}">{text_html(text)}</div>')


def when_opened(label: str, key: str, draw: Callable[[], object]) -> None:
    """A folded section whose content is drawn only while it is open (opening it reruns the
    page): a browser draws a folded section's content all the same, and a grid there slowed
    every load. Its open state lives under ``key``, so it stays open from rerun to rerun."""
    section = st.expander(label, on_change="rerun", key=key)
    if section.open:
        with section:
            draw()


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
        import vl_convert as vlc  # 64 ms, paid only when a chart is downloaded

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
LABEL_COLOURS = {"share": "#0072B2", "private": "#D55E00", "ambiguous": "#c0c0c0"}  # Okabe-Ito
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
