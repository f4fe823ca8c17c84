"""Which format a file is in, from its extension and first bytes (no reader needed: the readers
ask it too, to name the format of a file they cannot read)."""

from __future__ import annotations

from pathlib import Path

from cimem.errors import InputError
from cimem.ingest.files import iter_lines, logical_suffix, read_head, require_file

NUL = b"\x00"  # in the first bytes: binary data, not text
FORMATS = ("official", "profiles", "hf", "persistbench")
FORMAT_NAMES = {
    "official": "official run output (JSON lines, one profile object per line)",
    "profiles": "a profiles file (a JSON list of profiles, without labels or messages)",
    "hf": "Hugging Face rows (one row per profile, task and attribute)",
    "persistbench": "a PersistBench JSON document",
}
"""What each format is, for an error that names the one a file is in."""


def detect_format(path: Path) -> str:
    """The source format of ``path``, from its extension and first bytes."""
    require_file(path)
    suffix = logical_suffix(path)
    if suffix in (".parquet", ".csv"):
        return "hf"
    head = read_head(path, 4096)
    if not head.strip():
        raise InputError(
            str(path),
            "line 1",
            "(file)",
            "a non-empty results, profiles, Hugging Face or PersistBench file",
            got="an empty file",
        )
    if head[:4] == b"PAR1":
        return "hf"
    if NUL in head:
        raise InputError(
            str(path),
            f"byte {head.index(NUL) + 1}",
            "(file)",
            "a text (JSON/JSONL/CSV) or Parquet file",
            got="binary data",
        )
    first = head.lstrip()[:1]
    if first == b"[":
        return "profiles"
    if suffix == ".json" and first == b"{":
        return "persistbench" if b'"metadata"' in _read_prefix(path, 1 << 16) else "profiles"
    if first == b"{":
        line = _first_line(path)
        if b'"adv_reveal_prompt"' in line or (
            b'"attribute"' in line
            and b'"label"' in line
            and b'"information_attributes"' not in line
        ):
            return "hf"
        return "official"
    raise InputError(
        str(path),
        "line 1",
        "(file)",
        "JSON lines, a JSON document, CSV or Parquet",
        got=repr(head[:40]),
    )


def _read_prefix(path: Path, n: int) -> bytes:
    return read_head(path, n)


def _first_line(path: Path) -> bytes:
    for _, line, _ in iter_lines(path):
        if line.strip():
            return line
    return b""
