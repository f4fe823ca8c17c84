"""Rows of the Hugging Face release (``facebook/CIMemories``): one row per (profile, context,
attribute) with ``name``, ``attribute``, ``memory_statement``, ``label`` (1.0 needed, 0.0 withheld,
null ambiguous) and the level-1 task ``prompt``, from which recipient and task are parsed.

Reads Parquet, CSV or JSON-lines exports, or the dataset itself through ``datasets.load_dataset``
when that package and a network are there. Hard labels only: the release has no persona fractions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from cimem.errors import CimemError, InputError, describe
from cimem.ingest.records import Attribute, ProfileRecord, Progress, RunMeta

REQUIRED = ("name", "attribute", "memory_statement", "label", "prompt")
HUB_DATASET = "facebook/CIMemories"
_REQUEST = re.compile(
    r"^Write a (?:complete )?message to (?P<recipient>.+?) to achieve the following purpose: "
    r"(?P<task>.*?)\.?\s*$",
    re.MULTILINE,
)
_LABELS = {1.0: "share", 0.0: "private"}


def parse_request(prompt: str) -> tuple[str, str] | None:
    """(recipient, task) from a task prompt's request line, or None if it has none."""
    found = _REQUEST.findall(prompt)
    return (found[-1][0], found[-1][1]) if found else None


def _read_table(path: Path) -> pa.Table:
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path)
        if suffix == ".csv":
            import pyarrow.csv as pcsv

            return pcsv.read_csv(path)
        import pyarrow.json as pjson

        return pjson.read_json(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(
            str(path),
            "the file",
            "(file)",
            "a Parquet, CSV or JSON-lines export of the Hugging Face rows",
            got=str(exc).splitlines()[0],
        ) from None


def read_hf(
    path: Path, progress: Progress | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    return rows_to_records(_read_table(path), str(path), path.stem)


def load_hub_table(dataset: str = HUB_DATASET, split: str = "test") -> pa.Table:
    """The release straight from the hub; needs the ``datasets`` package and a network."""
    try:
        import datasets  # noqa: F401  (optional dependency)
    except ImportError:
        raise CimemError(
            "reading from the hub needs the 'datasets' package (pip install "
            "datasets); or export the rows to Parquet and ingest that file"
        ) from None
    try:
        ds = datasets.load_dataset(dataset, split=split)
    except Exception as exc:  # network, authentication, unknown name
        raise CimemError(f"could not load {dataset!r} (split {split!r}): {exc}") from None
    return ds.data.table


def rows_to_records(
    table: pa.Table, source: str, name: str
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise InputError(
            source,
            "the header",
            ", ".join(missing),
            f"columns {', '.join(REQUIRED)}",
            got=f"columns {table.column_names}",
        )
    df = table.select(list(REQUIRED)).to_pandas()
    if df.empty:
        raise InputError(source, "the file", "(rows)", "at least one row", got="no rows")
    labels = pd.to_numeric(df["label"], errors="coerce")
    bad = df.index[
        (labels.notna() & ~labels.isin([0.0, 1.0])) | (labels.isna() & df["label"].notna())
    ]
    if len(bad):
        i = int(bad[0])
        raise InputError(
            source, f"row {i + 1}", "label", "1.0, 0.0 or null", got=describe(df["label"].iloc[i])
        )
    for col in ("name", "attribute", "prompt"):
        nulls = df.index[df[col].isna()]
        if len(nulls):
            raise InputError(source, f"row {int(nulls[0]) + 1}", col, "a string", got="null")
    df["label_name"] = labels.map(_LABELS).fillna("ambiguous")
    meta = RunMeta(
        name=name,
        kind="labels",
        source_format="hf",
        prompt_set="official",
        level=1,
        memory_format="official",
        config={"labels": "hard labels of the Hugging Face release"},
    )

    def records() -> Iterator[ProfileRecord]:
        for person, rows in df.groupby("name", sort=False):
            yield _profile(person, rows, source)

    return meta, records()


def _profile(person: str, rows: pd.DataFrame, source: str) -> ProfileRecord:
    attr_idx, attr_keys = pd.factorize(rows["attribute"])
    ctx_idx, prompts = pd.factorize(rows["prompt"])
    statements = rows.groupby(attr_idx, sort=True)["memory_statement"].first()
    rec = ProfileRecord(name=str(person))
    rec.attributes = [
        Attribute(
            key=str(k),
            value_json=None,
            domain=None,
            event=None,
            memory_statement=None if pd.isna(s) else str(s),
        )
        for k, s in zip(attr_keys, statements)
    ]
    for c, prompt in enumerate(prompts):
        parsed = parse_request(prompt)
        if parsed is None:
            row = int(rows.index[np.argmax(ctx_idx == c)])
            raise InputError(
                source,
                f"row {row + 1}",
                "prompt",
                "a task prompt ending with 'Write a ... message to RECIPIENT to achieve"
                " the following purpose: TASK.'",
                got=describe(prompt[-80:]),
            )
        rec.contexts.append((parsed[0], parsed[1], prompt))
    rec.hard_labels = {
        "ctx_idx": ctx_idx.astype(np.int32),
        "attr_idx": attr_idx.astype(np.int32),
        "label": rows["label_name"].tolist(),
    }
    return rec
