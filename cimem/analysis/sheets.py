"""Sheets in and out: tables written as CSV whose text cells a spreadsheet shows as text and never
runs as a formula, and the sheets people fill read back row by row, with one-line errors naming
the cell."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from cimem.errors import CimemError

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


EXCERPT_CHARS = 1200  # a sheet's message excerpt: a spreadsheet cell stays readable


def excerpt(text: str | None, evidence: str | None, width: int = EXCERPT_CHARS) -> str:
    """The part of a message a reviewer needs in a sheet: the whole when short, else ``width``
    characters around the judge's evidence (or the start), cut ends marked "[...]"; the
    evidence, where it occurs as written, between >>> and <<<.

    >>> excerpt("Dear Ana, my income is 5k. Best.", "my income is 5k.")
    'Dear Ana, >>>my income is 5k.<<< Best.'
    >>> excerpt("x" * 50 + " the fact " + "y" * 50, "the fact", width=20)
    '[...]xxxxx >>>the fact<<< yyyyy[...]'
    >>> excerpt(None, None)
    ''
    """
    text = text or ""
    at = text.find(evidence) if evidence else -1
    if at < 0:
        return text if len(text) <= width else text[:width] + "[...]"
    assert evidence is not None
    start = max(0, at - (width - len(evidence)) // 2)
    end = min(len(text), max(start + width, at + len(evidence)))
    marked = text[start:at] + ">>>" + evidence + "<<<" + text[at + len(evidence) : end]
    return ("[...]" if start else "") + marked + ("[...]" if end < len(text) else "")


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
    """A filled sheet's header, and its rows with the line each starts on (a quoted cell, a
    message in an audit sheet, may span lines); text that is no CSV stops the iteration with
    one line naming the file and the line."""
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    fields = list(reader.fieldnames or ())

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        try:
            start = reader.line_num + 1
            for row in reader:
                yield start, row
                start = reader.line_num + 1
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
