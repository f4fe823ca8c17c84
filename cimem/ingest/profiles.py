"""The official profiles file (``profiles.json``): a JSON list of {bio, information_attributes,
contexts}. Profiles, attributes and contexts only: no labels, no messages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from cimem.errors import InputError, describe
from cimem.ingest.official import read_profile_object
from cimem.ingest.records import ProfileRecord, Progress, RunMeta


def read_profiles(
    path: Path, progress: Progress | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(
            str(path), "the document", "(file)", "a JSON list of profiles", got=str(exc)
        ) from None
    if not isinstance(data, list) or not data:
        raise InputError(
            str(path),
            "the document",
            "(file)",
            "a non-empty JSON list of {bio, information_attributes, contexts}",
            got=describe(data),
        )
    meta = RunMeta(name=path.stem, kind="profiles", source_format="profiles")

    def records() -> Iterator[ProfileRecord]:
        for i, obj in enumerate(data):
            yield read_profile_object(str(path), f"profile [{i}]", obj)
            if progress:
                progress(i + 1, len(data))

    return meta, records()
