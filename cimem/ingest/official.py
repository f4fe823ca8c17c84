"""The official run-output format (``results.jsonl`` of the CIMemories evaluation script).

One JSON object per line = one profile: ``bio``, ``information_attributes``, ``contexts``; each context
carries ``labels_<labeller>_<persona>`` and ``labels_combined`` (fractions keyed by memory statement)
and one key per trial, ``combination_num_to_share=A_num_not_to_share=B_trial=T``, holding the prompt,
the message and the judge's verdicts (keyed by attribute key) with evidence.

The file is read one line at a time, so memory stays flat whatever its size; each line is read
and checked by :class:`cimem.ingest.official_profile.ProfileReader`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from cimem.errors import CimemError, InputError
from cimem.ingest.files import (
    Span,
    iter_lines,
    iter_span_lines,
    lines_before,
    read_head,
    require_file,
)
from cimem.ingest.formats import FORMAT_NAMES, SourceFormat, detect_format
from cimem.ingest.official_profile import ProfileReader
from cimem.ingest.records import ProfileRecord, Progress
from cimem.ingest.validate import ESCAPED_NUL, has_escaped_nul, nul_error


def iter_json_lines(
    path: Path, progress: Progress | None = None, span: Span | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line (of ``span`` only, when given); a
    bad line raises InputError."""
    require_file(path)
    total = path.stat().st_size
    for lineno, line, done, nul in _lines(path, span):
        if not line or (line[0] in WHITESPACE and bytes(line).isspace()):  # no copy of the rest
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(
                str(path),
                f"line {lineno}",
                "(the line)",
                "one complete JSON object per line (UTF-8)",
                got=json_error_in_line(exc, bytes(line)),
            ) from None
        if nul:  # one scan of the bytes; the object is walked only then
            error = nul_error(str(path), obj, f"line {lineno}")
            if error is not None:
                raise error
        yield lineno, obj
        if progress:
            progress(done, total)


WHITESPACE = b" \t\r\n\x0b\x0c"


def _lines(path: Path, span: Span | None) -> Iterator[tuple[int, bytes | memoryview, int, bool]]:
    """The file's lines (or the span's), each with whether it may hold a NUL character."""
    if span is not None:
        return iter_span_lines(path, span, ESCAPED_NUL)
    return ((n, line, done, has_escaped_nul(line)) for n, line, done in iter_lines(path))


def json_error_in_line(exc: orjson.JSONDecodeError, line: bytes) -> str:
    """orjson's complaint placed within the file's line: its own "line N column C" counts the
    lines of the text it was given (one line and the newline ending it), which would name a
    second line number beside the file's.

    >>> try:
    ...     orjson.loads(b'{"a": \\n')
    ... except orjson.JSONDecodeError as exc:
    ...     json_error_in_line(exc, b'{"a": \\n')
    'unexpected end of data at the end of the line'
    """
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:  # orjson checks the encoding first and says column 1
        return f"invalid UTF-8: byte {line[bad.start]:#04x} at byte {bad.start + 1} of the line"
    if exc.lineno > 1:  # past the newline: the line ended before the value did
        return f"{exc.msg} at the end of the line"
    return f"{exc.msg} at column {exc.colno}"


def read_official(
    path: Path,
    progress: Progress | None = None,
    *,
    evidence: bool = True,
    span: Span | None = None,
) -> Iterator[ProfileRecord]:
    """Profile records of an official run-output file, validated as they stream. Without
    ``evidence`` the judge's sentences are checked but not collected (the metrics need none).
    With ``span``, the records of that part of the file only (:func:`cimem.ingest.files.spans`:
    several processes read one file), and no error for a part without any."""
    read = 0
    try:
        for lineno, obj in iter_json_lines(path, progress, span):
            rec = ProfileReader(str(path), f"line {lineno}", obj, evidence).read(with_runs=True)
            read += 1
            yield rec
    except InputError as exc:
        if span is not None:
            exc = exc.lines_later(lines_before(path, span.start))
        if read == 0 and (span is None or span.start == 0):
            raise other_format(path) or exc from None
        raise exc from None
    if not read and span is None:
        raise empty_file(path)


def other_format(path: Path) -> InputError | None:
    """For a file whose first record is not a profile: the error saying it is in another format
    cimem reads, and how to import it (None when it does not look like one). Asked only then, so
    reading run output never pays for it; ``metrics --results`` given a PersistBench file says
    what the file is, not that its first line is incomplete."""
    try:
        fmt = detect_format(path)
    except CimemError:
        return None
    head = read_head(path, 4096).lstrip()
    if fmt == SourceFormat.OFFICIAL or (
        fmt == SourceFormat.PROFILES and not (head[:1] == b"[" and b'"bio"' in head)
    ):
        return None  # detection's guess for any list, or an object in a .json file
    messages = (
        fmt == SourceFormat.PERSISTBENCH
    )  # the others hold labels and profiles, no run to measure
    return InputError(
        str(path),
        "the file",
        "(file)",
        FORMAT_NAMES[SourceFormat.OFFICIAL],
        got=f"{FORMAT_NAMES[fmt]}; import it with `python -m cimem ingest {path}`, which detects"
        " the format" + (", and read its run from the database with --db" if messages else ""),
    )


def empty_file(path: Path) -> InputError:
    """The error of an official file without a profile (however many processes read it)."""
    return InputError(
        str(path),
        "line 1",
        "(file)",
        "at least one JSON line (one profile each)",
        got="an empty file",
    )
