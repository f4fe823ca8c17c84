"""The registry of readers: for each format cimem reads (:class:`SourceFormat`, recognised by
:func:`detect_format`), the function that turns a file of it into run metadata and profile
records. Adding a format: a member of :class:`SourceFormat`, its entry in
:data:`cimem.ingest.formats.KNOWN` (what it is, how it looks), a reader module, and its line
here (docs/architecture.md, "Adding a reader")."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from cimem.ingest.formats import FORMAT_NAMES, SourceFormat, detect_format, source_format
from cimem.ingest.inspect_log import read_inspect_log
from cimem.ingest.official import read_official
from cimem.ingest.persistbench import read_persistbench
from cimem.ingest.profiles import read_profiles
from cimem.ingest.records import JudgeMeta, ProfileRecord, Progress, RunMeta
from cimem.store.enums import JudgeKind, RunKind

__all__ = ["FORMAT_NAMES", "READERS", "SourceFormat", "detect_format", "open_reader"]

Read = Callable[[Path, Progress | None, str | None], tuple[RunMeta, Iterator[ProfileRecord]]]


def _official(
    path: Path, progress: Progress | None, model: str | None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """An official run-output file: its run is named after the file, its verdicts are the
    judge's as stored (the format records no model, level or judge)."""
    meta = RunMeta(
        name=path.stem,
        kind=RunKind.RESULTS,
        source_format=SourceFormat.OFFICIAL,
        prompt_set="official",
        memory_format="official",
        judge=JudgeMeta(
            name="original verdicts",
            kind=JudgeKind.IMPORTED,
            config={"note": "verdicts as stored in the official run-output file"},
        ),
    )
    return meta, read_official(path, progress)


def _hf(
    path: Path, progress: Progress | None, model: str | None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    # imported here: pandas and pyarrow, which the processes reading an official file in parallel
    # must not load (tests/ingest/test_parallel_ingest.py)
    from cimem.ingest.hf import read_hf

    return read_hf(path, progress)


READERS: dict[SourceFormat, Read] = {
    SourceFormat.OFFICIAL: _official,
    SourceFormat.PROFILES: lambda path, progress, model: read_profiles(path, progress),
    SourceFormat.HF: _hf,
    SourceFormat.PERSISTBENCH: read_persistbench,
    SourceFormat.INSPECT: read_inspect_log,
}


def open_reader(
    path: Path, fmt: SourceFormat | str, progress: Progress | None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run metadata and the profile records of a file in format ``fmt`` (``model``: which
    model's run, for a file that holds several)."""
    return READERS[source_format(fmt)](path, progress, model)
