"""A large official run-output file imported by several processes: each reads a span of its
lines with the one reader (:func:`cimem.ingest.official.read_official`) and turns its profiles
into Arrow tables with the one writer's code (:class:`cimem.ingest.writer.RunWriter`), numbering
profiles, attributes and messages from zero; this process appends the tables in file order,
each span's numbers moved past the spans before it as they are inserted, while the readers go on
with later spans.

A reader hands its tables over as Arrow IPC files in a temporary folder, which this process maps
without copying: pickled through a pipe, the same tables were copied four times (about 0.4 s of
CPU for the 60-profile file, on cores the readers need).
"""

from __future__ import annotations

import gc
import importlib.abc
import multiprocessing
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pyarrow as pa

from cimem.child_processes import end_with_parent
from cimem.ingest.files import Span, spans
from cimem.ingest.official import read_official
from cimem.ingest.writer import RunWriter, WriterCounts

SPANS_PER_READER = 4  # this process appends a span while the readers read later ones
HANDOVER = "cimem-ingest-"  # the temporary folder's name: this prefix, the process id, a dash


@dataclass
class SpanTables:
    """One span's tables (one per target table, its profiles' rows in order), numbered from
    zero, and what the writer counted of them."""

    tables: list[tuple[str, pa.Table]]
    counts: WriterCounts
    end: int  # the byte of the file the span ends at


@dataclass(frozen=True)
class _SpanFiles:
    """What a reader returns: each table's IPC file, and the counts."""

    files: list[tuple[str, Path]]
    counts: WriterCounts
    end: int


def span_tables(
    path: Path, run_id: int, judge_id: int | None, readers: int
) -> Iterator[SpanTables]:
    """The file's tables a span at a time, in file order, read by ``readers`` processes; an
    InputError of any span is raised here. The temporary folder is removed however the import
    ends, unless its process is killed outright: the next import removes that one."""
    cut = spans(path, readers * SPANS_PER_READER)
    context = multiprocessing.get_context("fork")
    _remove_folders_of_ended_imports()
    with (
        tempfile.TemporaryDirectory(prefix=f"{HANDOVER}{os.getpid()}-") as folder,
        ProcessPoolExecutor(readers, mp_context=context, initializer=_start_reader) as pool,
    ):
        read = partial(_read_span, path, Path(folder), run_id, judge_id)
        for part in pool.map(read, cut):
            tables = [(name, mapped(file)) for name, file in part.files]
            yield SpanTables(tables, part.counts, part.end)


def _remove_folders_of_ended_imports() -> None:
    """The temporary folders of imports whose process is gone (killed before it could remove
    its own): each is named after its process."""
    for folder in Path(tempfile.gettempdir()).glob(f"{HANDOVER}*-*"):
        pid = folder.name.removeprefix(HANDOVER).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


class _WithoutPandas(importlib.abc.MetaPathFinder):
    """A reader's imports, refusing pandas: pyarrow imports pandas the first time it builds an
    array, only to ask whether the values are a pandas object, which a reader's never are (it
    builds them from lists and numpy arrays); each reader would spend about 0.2 s of CPU on it."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("a reading process does not use pandas")
        return None


def _start_reader() -> None:
    end_with_parent()  # an import killed outright leaves no reader behind
    sys.meta_path.insert(0, _WithoutPandas())


def _read_span(
    path: Path, folder: Path, run_id: int, judge_id: int | None, span: Span
) -> _SpanFiles:
    gc.disable()  # millions of short-lived JSON objects: cyclic GC passes only cost time
    writer = RunWriter.detached(run_id, judge_id)
    found: dict[str, list[pa.Table]] = {}
    for rec in read_official(path, span=span):
        for name, table in writer.tables(rec):
            found.setdefault(name, []).append(table)
    files = []
    for name, parts in found.items():
        file = folder / f"{span.start}-{name}.arrow"
        write_ipc(pa.concat_tables(parts, promote_options="default"), file)
        files.append((name, file))
    return _SpanFiles(files, writer.counts(), span.end)


def write_ipc(table: pa.Table, file: Path) -> None:
    """The table as an Arrow IPC stream (uncompressed, so it maps without a copy; a stream, not
    an IPC file, because each profile's persona names are a dictionary of their own, which only
    a stream may replace from one batch to the next)."""
    with pa.OSFile(str(file), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)


def mapped(file: Path) -> pa.Table:
    """The table of an Arrow IPC stream file, its buffers mapped from the file, which is removed
    at once (the mapping keeps its pages until the table is freed).

    >>> import tempfile
    >>> file = Path(tempfile.mkdtemp()) / "t.arrow"
    >>> names = [pa.array(["x", "y"]), pa.array(["y", "z"])]  # two profiles' personas
    >>> code = pa.array([0, 1], pa.int32())
    >>> parts = [pa.table({"p": pa.DictionaryArray.from_arrays(code, n)}) for n in names]
    >>> write_ipc(pa.concat_tables(parts), file)
    >>> mapped(file).column("p").to_pylist(), file.exists()
    (['x', 'y', 'y', 'z'], False)
    """
    table = pa.ipc.open_stream(pa.memory_map(str(file))).read_all()
    file.unlink()
    return table
