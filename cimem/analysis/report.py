"""Tables for papers: the Table-1-style rows as CSV and LaTeX (booktabs), and the Pareto front;
sheets people fill read back row by row, with one-line errors naming the cell;
text cells a spreadsheet shows as text and never runs as a formula."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from cimem.errors import CimemError

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


# A cell that starts with one of these is read as a formula by spreadsheets ("=HYPERLINK(...)"
# in a run's name or a reviewer's note would run when the CSV is opened).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: str) -> str:
    """``value`` with a leading apostrophe when it starts as a formula would: the spreadsheets'
    own mark for "this is text" (they hide it, and drop it when saving a CSV again). Names and
    notes come from data files and from people: a CSV made from them must not run anything.

    A lone sign (the "-" that marks a missing value) is no formula and is left as it is.

    >>> spreadsheet_text("=1+2"), spreadsheet_text("@SUM(A1)"), spreadsheet_text("income")
    ("'=1+2", "'@SUM(A1)", 'income')
    >>> spreadsheet_text("-"), spreadsheet_text("-2+3")
    ('-', "'-2+3")
    """
    return "'" + value if len(value) > 1 and value.startswith(FORMULA_STARTS) else value


def from_spreadsheet(value: str) -> str:
    """A text cell read back: the apostrophe :func:`spreadsheet_text` added, where a spreadsheet
    kept it, taken off again.

    >>> from_spreadsheet("'=1+2"), from_spreadsheet("=1+2"), from_spreadsheet("'tis")
    ('=1+2', '=1+2', "'tis")
    """
    return value[1:] if value.startswith("'") and value[1:].startswith(FORMULA_STARTS) else value


def frame_to_csv(frame: pd.DataFrame) -> str:
    """The frame as CSV, every text cell made safe to open in a spreadsheet
    (:func:`spreadsheet_text`); numbers as they are, a missing value empty."""
    safe = frame.copy()
    for col in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[col]):
            safe[col] = safe[col].map(lambda v: spreadsheet_text(v) if isinstance(v, str) else v)
    safe.columns = [spreadsheet_text(str(c)) for c in safe.columns]
    return safe.to_csv(index=False)


def records_to_csv(records: Sequence[Mapping[str, object]], columns: Sequence[str]) -> str:
    """Records as CSV with ``columns`` (a record may leave some out: empty), text cells made
    safe to open in a spreadsheet (:func:`spreadsheet_text`)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {k: spreadsheet_text(v) if isinstance(v, str) else v for k, v in r.items()} for r in records
    )
    return buf.getvalue()


def sheet_rows(text: str, source: str) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """A filled sheet's header, and its rows with their line numbers; text that is no CSV
    stops the iteration with one line naming the file and the line."""
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    fields = list(reader.fieldnames or ())

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as exc:
            raise CimemError(f"{source}: line {reader.line_num}: not valid CSV ({exc})") from None

    return fields, rows()


@dataclass(frozen=True)
class BadCell:
    """Makes the one-line error for a cell of a sheet's row."""

    source: str
    line: int
    row: dict[str, str]

    def __call__(self, column: str, expected: str) -> CimemError:
        return CimemError(
            f"{self.source}: line {self.line}: column {column}: expected {expected},"
            f" found {self.row.get(column)!r}"
        )


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _cell(value: object, missing: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return missing
    if isinstance(value, float):
        return f"{value:.2f}"
    return latex_escape(str(value))


def to_latex(
    df: pd.DataFrame, caption: str, label: str = "tab:cimemories", missing: str = "--"
) -> str:
    """A booktabs table of the frame's columns, numbers with two decimals, a missing value
    (None, NaN) written ``missing``; numeric columns are right-aligned, gaps or not."""
    cols = list(df.columns)
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in cols)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(c) for c in cols) + r" \\",
        r"\midrule",
    ]
    for _, row in df.iterrows():
        lines.append(" & ".join(_cell(row[c], missing) for c in cols) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def pareto_front(points: list[tuple[str, float, float]]) -> list[str]:
    """Names of the points no other point beats: lower violation and higher completeness.

    A point is off the front when another is at least as good on both and better on one:

    >>> pareto_front([("a", 10.0, 50.0), ("b", 40.0, 90.0), ("c", 45.0, 80.0), ("d", 10.0, 40.0)])
    ['a', 'b']
    """
    front = []
    for name, v, c in points:
        if any((v2 <= v and c2 >= c) and (v2 < v or c2 > c) for _, v2, c2 in points):
            continue
        front.append(name)
    return front
