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

from cimem.errors import InputError
from cimem.ingest.files import Span, iter_lines, iter_span_lines, lines_before, require_file
from cimem.ingest.official_profile import ProfileReader
from cimem.ingest.records import ProfileRecord, Progress


def iter_json_lines(
    path: Path, progress: Progress | None = None, span: Span | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line (of ``span`` only, when given); a
    bad line raises InputError."""
    require_file(path)
    total = path.stat().st_size
    lines = iter_lines(path) if span is None else iter_span_lines(path, span)
    for lineno, line, done in lines:
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(
                str(path),
                f"line {lineno}",
                "(the line)",
                "one complete JSON object per line (UTF-8)",
                got=str(exc),
            ) from None
        yield lineno, obj
        if progress:
            progress(done, total)


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
    seen_any = False
    try:
        for lineno, obj in iter_json_lines(path, progress, span):
            seen_any = True
            yield ProfileReader(str(path), f"line {lineno}", obj, evidence).read(with_runs=True)
    except InputError as exc:
        if span is None:
            raise
        raise exc.lines_later(lines_before(path, span.start)) from None
    if not seen_any and span is None:
        raise empty_file(path)


def empty_file(path: Path) -> InputError:
    """The error of an official file without a profile (however many processes read it)."""
    return InputError(
        str(path),
        "line 1",
        "(file)",
        "at least one JSON line (one profile each)",
        got="an empty file",
    )
