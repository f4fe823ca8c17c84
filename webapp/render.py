"""Drawing helpers shared by the pages: safe text, highlighted messages, chart downloads.

Every text that came from data or the URL (messages, evidence, run, judge, profile, attribute,
recipient and task names, paths, error messages that quote them) is untrusted: pages pass it
through :func:`escape_md` before it reaches markdown, captions, titles, alerts or widget labels
(markdown specials backslash-escaped, HTML never enabled), so ``<script>``, a markdown image or a
link shows as the text it is and the browser fetches nothing. Selectbox and multiselect options
are plain text already and are not escaped.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from typing import TypeVar

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.audit import AMBIGUOUS, NEEDED_INCLUDED, PRIVATE_LEAKED, Evidence

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


def table_safe(frame: pd.DataFrame, breakable: tuple[str, ...] = ()) -> pd.DataFrame:
    """A copy for ``st.table``, whose cells and headers are markdown: every text cell and header
    escaped, a missing one blank (never "None" or "nan"); in the ``breakable`` columns a line
    may also break after "_" (long snake_case keys would widen the table otherwise)."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or isinstance(out[col].dtype, pd.StringDtype):
            out[col] = ["" if pd.isna(v) else escape_md(v) for v in out[col]]
            if col in breakable:
                out[col] = [v.replace("\\_", "\\_\u200b") for v in out[col]]
    out.columns = [escape_md(c) for c in out.columns]
    return out


def static_table(
    frame: pd.DataFrame,
    digits: dict[str, int] | None = None,
    breakable: tuple[str, ...] = (),
    styles: dict[str, Callable[[object], str]] | None = None,
) -> None:
    """A small table drawn as static HTML (``st.table``): in a real browser an interactive grid
    costs 100-200 ms more each time its rows change. Text is escaped (:func:`table_safe`);
    ``digits``: decimals of numeric columns; a missing number shows "-"; ``styles``: column ->
    a cell's CSS from its shown value (text escaped)."""
    digits = digits or {}
    safe = table_safe(frame, breakable)
    styler = safe.style
    for col, n in digits.items():
        if frame[col].dtype.kind == "f":  # a column of nothing but gaps is text: left as is
            styler = styler.format(f"{{:.{n}f}}", subset=[escape_md(col)], na_rep="-")
    counts: list[Hashable] = [escape_md(c) for c in frame.columns if frame[c].dtype.kind in "iu"]
    if counts:
        styler = styler.format("{:,}", subset=counts)  # 27,474 rather than 27474
    floats = [c for c in frame.columns if frame[c].dtype.kind == "f" and c not in digits]
    if floats:
        styler = styler.format(na_rep="-", subset=[escape_md(c) for c in floats])
    for col, css in (styles or {}).items():
        styler = styler.map(css, subset=[escape_md(col)])
    st.table(styler, hide_index=True)


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


def show_message(message: str, evidence: list[Evidence] | None = None, key: str = "") -> None:
    """The message with its evidence highlighted, the colours' legend, and the raw text."""
    st.markdown(highlighted(message, evidence or []))
    st.caption(EVIDENCE_LEGEND)
    with st.expander("Raw text"):
        st.code(message, language=None, wrap_lines=True)


def unvalidated(c: ChartT) -> ChartT:
    """The chart, serialised without JSON-schema validation: Streamlit serialises every chart on
    every rerun, and validation costs a few hundred milliseconds per chart (the app's charts are
    built by its own code and drawn by the tests)."""
    object.__setattr__(c, "to_dict", functools.partial(c.to_dict, validate=False))
    return c


def chart(c: alt.Chart, name: str, key: str) -> None:
    """Draw an Altair chart with SVG and PNG downloads (made only when clicked)."""
    st.altair_chart(unvalidated(c), width="stretch")
    cols = st.columns([1, 1, 6])

    # the spec is built only when a download is clicked (to_dict validates the whole chart,
    # which costs a rerun real time on every chart)
    def svg() -> bytes:
        import vl_convert as vlc

        return vlc.vegalite_to_svg(c.to_dict()).encode()

    def png() -> bytes:
        import vl_convert as vlc

        return vlc.vegalite_to_png(c.to_dict(), scale=2)

    cols[0].download_button(
        "SVG",
        svg,
        file_name=f"{name}.svg",
        mime="image/svg+xml",
        key=f"{key}-svg",
        on_click="ignore",
    )
    cols[1].download_button(
        "PNG", png, file_name=f"{name}.png", mime="image/png", key=f"{key}-png", on_click="ignore"
    )


def pct(x) -> str:
    try:
        return "n/a" if x is None or x != x else f"{100 * x:.2f}%"
    except TypeError:
        return "n/a"
