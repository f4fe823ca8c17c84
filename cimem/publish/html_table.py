"""Small tables as plain HTML, every header and cell escaped (data never becomes markup): the
app's static tables and the report's share this one renderer, so a number is formatted alike."""

from __future__ import annotations

import datetime
import html
from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd


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
    # a breakable column's long word (an address, a key, a URL) wraps where it must, so that a
    # wide table fits the page rather than hiding its last column
    ".cimem-table td.brk{overflow-wrap:anywhere}"
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
    '<style>...<th>name</th><th class="right">n</th>...<td class="brk">&lt;b&gt;x_<wbr>y&lt;/b&gt;</td><td class="right">1,234</td>...'
    """
    digits = digits or {}
    styles = styles or {}
    numeric: dict[Hashable, bool] = {c: frame[c].dtype.kind in "iuf" for c in frame.columns}
    # headers may wrap; a number is right-aligned and stays on one line
    opened = {
        c: '<td class="right"' if numeric[c] else '<td class="brk"' if c in breakable else "<td"
        for c in frame.columns
    }
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
