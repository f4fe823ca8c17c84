"""Which format a file is in, and the reader for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cimem.errors import CimemError
from cimem.ingest.formats import FORMAT_NAMES, FORMATS, detect_format
from cimem.ingest.records import JudgeMeta, ProfileRecord, Progress, RunMeta

__all__ = ["FORMAT_NAMES", "FORMATS", "detect_format", "open_reader"]


def open_reader(
    path: Path, fmt: str, progress: Progress | None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run metadata and the profile records of a file in format ``fmt``."""
    if fmt == "official":
        from cimem.ingest.official import read_official

        meta = RunMeta(
            name=path.stem,
            kind="results",
            source_format="official",
            prompt_set="official",
            memory_format="official",
            judge=_official_judge(),
        )
        return meta, read_official(path, progress)
    if fmt == "profiles":
        from cimem.ingest.profiles import read_profiles

        return read_profiles(path, progress)
    if fmt == "hf":
        from cimem.ingest.hf import read_hf

        return read_hf(path, progress)
    if fmt == "persistbench":
        from cimem.ingest.persistbench import read_persistbench

        return read_persistbench(path, progress, model)
    raise CimemError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _official_judge() -> JudgeMeta:
    return JudgeMeta(
        name="original verdicts",
        kind="imported",
        config={"note": "verdicts as stored in the official run-output file"},
    )
