"""The official profiles file (``profiles.json``): a JSON list of {bio, information_attributes,
contexts}. Profiles, attributes and contexts only: no labels, no messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from cimem.errors import InputError, describe
from cimem.ingest.files import read_bytes, require_file
from cimem.ingest.formats import SourceFormat
from cimem.ingest.official_profile import LABEL_PREFIX, TRIAL_PREFIX, read_profile_object
from cimem.ingest.records import ProfileRecord, Progress, RunMeta
from cimem.ingest.validate import Parts, has_escaped_nul, nul_error
from cimem.store.enums import RunKind


def load_json_document(
    path: Path, expected: str, place_of: Callable[[Parts], tuple[str, Parts]]
) -> Any:
    """A whole-file JSON document (plain or gzip); a syntax error names its line and column, and
    a NUL character in any string the place ``place_of`` makes of the path to it."""
    require_file(path)
    data = read_bytes(path)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        place = f"line {exc.lineno} column {exc.colno}" if exc.lineno else "the document"
        raise InputError(str(path), place, "(file)", expected, got=exc.msg) from None
    if has_escaped_nul(data):
        nul = nul_error(str(path), doc, place_of)
        if nul is not None:
            raise nul
    return doc


def _profile_place(parts: Parts) -> tuple[str, Parts]:
    """A path in profiles.json as the place of the reader's errors: ``profile [i]`` and the field."""
    if parts and type(parts[0]) is int:
        return f"profile [{parts[0]}]", parts[1:]
    return "the document", parts


def read_profiles(
    path: Path, progress: Progress | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    data = load_json_document(path, "a JSON list of profiles (UTF-8)", _profile_place)
    if not isinstance(data, list) or not data:
        raise InputError(
            str(path),
            "the document",
            "(file)",
            "a non-empty JSON list of {bio, information_attributes, contexts}",
            got=describe(data),
        )
    meta = RunMeta(name=path.stem, kind=RunKind.PROFILES, source_format=SourceFormat.PROFILES)

    def records() -> Iterator[ProfileRecord]:
        for i, obj in enumerate(data):
            place = f"profile [{i}]"
            rec = read_profile_object(str(path), place, obj)
            _refuse_run_output(str(path), place, obj)
            yield rec
            if progress:
                progress(i + 1, len(data))

    return meta, records()


def _refuse_run_output(path: str, place: str, obj: dict) -> None:
    """A list of run-output objects read as profiles would silently drop its labels and trials."""
    for c, ctx in enumerate(obj["contexts"]):
        for key in ctx:
            if key.startswith((TRIAL_PREFIX, LABEL_PREFIX)):
                raise InputError(
                    path,
                    place,
                    f"contexts[{c}].{key}",
                    "only recipient and task in a profiles file (labels and trials belong to"
                    " run output: one profile object per line, JSON lines)",
                    got="a label or trial key",
                )
