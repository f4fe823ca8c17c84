"""A large official run-output file imported by several processes: each reads a span of its
lines with the one reader (:func:`cimem.ingest.official.read_official`) and turns its profiles
into Arrow tables with the one writer's code (:class:`cimem.ingest.writer.RunWriter`), numbering
profiles, attributes and messages from zero; this process moves each span's numbers past the
spans before it and appends the tables in file order, while the readers go on with later spans.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from cimem.ingest.files import Span, spans
from cimem.ingest.official import read_official
from cimem.ingest.writer import RunWriter, WriterCounts

SPANS_PER_READER = 4  # this process appends a span while the readers read later ones


@dataclass
class SpanTables:
    """One span's tables (one per target table, its profiles' rows in order), numbered from
    zero, and what the writer counted of them."""

    tables: list[tuple[str, pa.Table]]
    counts: WriterCounts
    end: int  # the byte of the file the span ends at


def span_tables(
    path: Path, run_id: int, judge_id: int | None, readers: int
) -> Iterator[SpanTables]:
    """The file's tables a span at a time, in file order, read by ``readers`` processes; an
    InputError of any span is raised here."""
    cut = spans(path, readers * SPANS_PER_READER)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(readers, mp_context=context) as pool:
        yield from pool.map(partial(_read_span, path, run_id, judge_id), cut)


def _read_span(path: Path, run_id: int, judge_id: int | None, span: Span) -> SpanTables:
    gc.disable()  # millions of short-lived JSON objects: cyclic GC passes only cost time
    writer = RunWriter.detached(run_id, judge_id)
    found: dict[str, list[pa.Table]] = {}
    for rec in read_official(path, span=span):
        for name, table in writer.tables(rec):
            found.setdefault(name, []).append(table)
    tables = [(n, pa.concat_tables(t, promote_options="default")) for n, t in found.items()]
    return SpanTables(tables, writer.counts(), span.end)


ID_COLUMNS = ("profile_id", "attr_id", "message_id")


def shifted(table: pa.Table, offsets: dict[str, int]) -> pa.Table:
    """The table with each of its id columns moved by its offset (a span's numbers placed after
    the spans before it).

    >>> t = pa.table({"profile_id": pa.array([0, 1], pa.int32()), "key": ["a", "b"]})
    >>> shifted(t, {"profile_id": 3, "attr_id": 9}).column("profile_id").to_pylist()
    [3, 4]
    """
    for name, offset in offsets.items():
        i = table.schema.get_field_index(name)
        if i >= 0 and offset:
            column = table.column(i)
            moved = pc.add(column, pa.scalar(offset, column.type))
            table = table.set_column(i, table.schema.field(i), moved)
    return table
