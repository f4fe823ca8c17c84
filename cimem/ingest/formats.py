"""Which format a file is in, from its extension and first bytes (no reader needed: the readers
ask it too, to name the format of a file they cannot read)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from cimem.errors import CimemError, InputError
from cimem.ingest.files import iter_lines, logical_suffix, read_head, require_file

NUL = b"\x00"  # in the first bytes: binary data, not text
PARQUET_MAGIC = b"PAR1"
ZIP_MAGIC = b"PK\x03\x04"  # an Inspect .eval log is a zip archive


class SourceFormat(StrEnum):
    """The file formats cimem reads (``ingest --format``, ``runs.source_format``): each is
    described and recognised in :data:`KNOWN`, and read by its entry in
    :data:`cimem.ingest.readers.READERS`."""

    OFFICIAL = "official"
    PROFILES = "profiles"
    HF = "hf"
    PERSISTBENCH = "persistbench"
    INSPECT = "inspect"


@dataclass
class FileHead:
    """What detection reads of a file: its logical suffix and first bytes, and, only when a
    recogniser asks, its first non-empty line and a longer prefix."""

    path: Path
    suffix: str
    head: bytes

    @property
    def first(self) -> bytes:
        """The first byte that is not white space."""
        return self.head.lstrip()[:1]

    @cached_property
    def first_line(self) -> bytes:
        for _, line, _ in iter_lines(self.path):
            if line.strip():
                return bytes(line)
        return b""

    @cached_property
    def prefix(self) -> bytes:
        return read_head(self.path, 1 << 16)


@dataclass(frozen=True)
class KnownFormat:
    """A format as detection knows it: what it is (for an error that names the format a file
    is in), the suffixes that name it alone, and how its first bytes look."""

    format: SourceFormat
    what: str
    suffixes: tuple[str, ...]
    recognises: Callable[[FileHead], bool]


def _hf_line(f: FileHead) -> bool:
    line = f.first_line
    return b'"adv_reveal_prompt"' in line or (
        b'"attribute"' in line and b'"label"' in line and b'"information_attributes"' not in line
    )


KNOWN: tuple[KnownFormat, ...] = (  # in the order detection tries them: the first that matches
    KnownFormat(
        SourceFormat.INSPECT,
        "an Inspect log of the cimemories task (.eval)",
        (".eval",),
        lambda f: f.head[:4] == ZIP_MAGIC,
    ),
    KnownFormat(
        SourceFormat.HF,
        "Hugging Face rows (one row per profile, task and attribute)",
        (".parquet", ".csv"),
        lambda f: f.head[:4] == PARQUET_MAGIC,
    ),
    KnownFormat(
        SourceFormat.PERSISTBENCH,
        "a PersistBench JSON document",
        (),
        lambda f: f.suffix == ".json" and f.first == b"{" and b'"metadata"' in f.prefix,
    ),
    KnownFormat(
        SourceFormat.PROFILES,
        "a profiles file (a JSON list of profiles, without labels or messages)",
        (),
        lambda f: f.first == b"[" or (f.suffix == ".json" and f.first == b"{"),
    ),
    KnownFormat(SourceFormat.HF, "", (), lambda f: f.first == b"{" and _hf_line(f)),
    KnownFormat(
        SourceFormat.OFFICIAL,
        "official run output (JSON lines, one profile object per line)",
        (),
        lambda f: f.first == b"{",
    ),
)
FORMAT_NAMES = {k.format: k.what for k in KNOWN if k.what}
"""What each format is, for an error that names the one a file is in."""


def source_format(text: str) -> SourceFormat:
    """``text`` as a format cimem reads, or an error listing them.

    >>> source_format("hf") is SourceFormat.HF
    True
    """
    try:
        return SourceFormat(text)
    except ValueError:
        known = ", ".join(SourceFormat)
        raise CimemError(f"unknown format {text!r}; choose one of {known}") from None


def detect_format(path: Path) -> SourceFormat:
    """The source format of ``path``, from its extension and first bytes: by suffix alone, then
    each of :data:`KNOWN` in order; an empty, binary or unknown file is refused."""
    require_file(path)
    suffix = logical_suffix(path)
    for known in KNOWN:
        if suffix in known.suffixes:
            return known.format
    f = FileHead(path, suffix, read_head(path, 4096))
    if not f.head.strip():
        raise InputError(
            str(path),
            "line 1",
            "(file)",
            "a non-empty results, profiles, Hugging Face or PersistBench file",
            got="an empty file",
        )
    if NUL in f.head and f.head[:4] not in (PARQUET_MAGIC, ZIP_MAGIC):
        raise InputError(
            str(path),
            f"byte {f.head.index(NUL) + 1}",
            "(file)",
            "a text (JSON/JSONL/CSV) or Parquet file",
            got="binary data",
        )
    for known in KNOWN:
        if known.recognises(f):
            return known.format
    raise InputError(
        str(path),
        "line 1",
        "(file)",
        "JSON lines, a JSON document, CSV or Parquet",
        got=repr(f.head[:40]),
    )
