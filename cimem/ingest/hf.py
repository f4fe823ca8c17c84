"""Rows of the Hugging Face release (``facebook/CIMemories``): one row per (profile, context,
attribute) with ``name``, ``attribute``, ``memory_statement``, ``label`` (1.0 needed, 0.0 withheld,
null ambiguous) and the level-1 task ``prompt``, from which recipient and task are parsed.

Reads Parquet, CSV or JSON-lines exports. Hard labels only: the release has no persona fractions.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pjson
import pyarrow.parquet as pq

from cimem.errors import InputError, describe
from cimem.ingest.files import (
    decompressed,
    logical_suffix,
    open_maybe_gzip,
    read_bytes,
    require_file,
)
from cimem.ingest.formats import SourceFormat
from cimem.ingest.records import Attribute, ProfileRecord, Progress, RunMeta
from cimem.ingest.validate import HF, NUL, NUL_FREE
from cimem.store.enums import RunKind

REQUIRED = ("name", "attribute", "memory_statement", "label", "prompt")
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
    require_file(path)
    suffix = logical_suffix(path)
    if suffix == ".csv":
        return read_csv(path)
    source = decompressed(path)
    try:
        if suffix == ".parquet":
            return pq.read_table(source)
        table = pjson.read_json(source)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(
            str(path),
            "the file",
            "(file)",
            "a Parquet, CSV or JSON-lines export of the Hugging Face rows",
            got=str(exc).splitlines()[0],
        ) from None
    _one_object_per_line(path, table.num_rows)
    return table


def _one_object_per_line(path: Path, rows: int) -> None:
    """JSON lines hold one object per line: Arrow's reader also takes two objects glued on one
    line (a lost newline, a bad concatenation), which must not pass as two rows. Only when the
    counts differ are the lines read, to name the first such line."""
    with open_maybe_gzip(path) as f:
        if sum(1 for line in f if line.strip()) == rows:
            return
    with open_maybe_gzip(path) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(
                    str(path), f"line {number}", "(row)", "one JSON object per line", got=str(exc)
                ) from None
    raise InputError(  # pragma: no cover - every line one object, yet the counts differ
        str(path), "the file", "(file)", "one JSON object per line", got=f"{rows} rows"
    )


def read_csv(path: Path) -> pa.Table:
    """A CSV export, strictly: invalid UTF-8 or a file that ends inside a quoted field is an
    error naming the line (a lenient reader would drop or mangle rows)."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            str(path),
            f"line {line}",
            _column_of_bad_byte(data),
            "UTF-8 text",
            got=f"byte {data[exc.start]:#04x}",
        ) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise InputError(str(path), "line 1", "(file)", "a header row", got="an empty file")
        rows = []
        for row in reader:
            if len(row) != len(header):
                raise InputError(
                    str(path),
                    f"line {reader.line_num}",
                    "(row)",
                    f"{len(header)} fields like the header",
                    got=f"{len(row)} fields",
                )
            rows.append(row)
    except csv.Error as exc:
        raise InputError(
            str(path),
            f"line {reader.line_num}",
            "(row)",
            "well-formed CSV (every quoted field closed)",
            got=str(exc),
        ) from None
    columns = list(zip(*rows)) if rows else [()] * len(header)
    table = {name: pa.array(col, pa.string()) for name, col in zip(header, columns)}
    if "label" in table:
        table["label"] = _csv_labels(path, columns[header.index("label")])
    return pa.table(table)


_UNDECODED = re.compile("[\udc80-\udcff]")  # a byte that is not UTF-8, as surrogateescape keeps it


def _column_of_bad_byte(data: bytes) -> str:
    """The header name of the column whose value holds the file's first byte that is not UTF-8;
    "(file)" when no column can be named (the byte is in the header, or the CSV is broken)."""
    rows = csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline=""))
    try:
        header = next(rows, [])
        for row in rows:
            for name, value in zip(header, row):
                if _UNDECODED.search(value):
                    return name
    except csv.Error:
        pass
    return "(file)"


def _csv_labels(path: Path, values: tuple[str, ...]) -> pa.Array:
    """The label column of a CSV: 1/1.0, 0/0.0, or empty for null."""
    out: list[float | None] = []
    for i, v in enumerate(values):
        v = v.strip()
        if v == "":
            out.append(None)
            continue
        try:
            out.append(float(v))
        except ValueError:
            raise InputError(
                str(path), f"row {i + 1}", "label", "1.0, 0.0 or empty", got=describe(v)
            ) from None
    return pa.array(out, pa.float64())


def read_hf(
    path: Path, progress: Progress | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    return rows_to_records(_read_table(path), str(path), path.stem)


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
    for col in REQUIRED:
        _check_column_type(source, col, table.schema.field(col).type)
    for col in table.column_names:  # every text column, the ones not read too (a file of
        # mangled text is refused whole); prompts, long and repeated, are searched for NUL once each
        _check_text(source, col, table.column(col), nul=col != "prompt")
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
            source,
            f"row {i + 1}",
            "label",
            HF.kind("label").expected,
            got=describe(df["label"].iloc[i]),
        )
    for col in ("name", "attribute", "prompt"):
        blank = df.index[df[col].isna() | (df[col].str.strip() == "")]
        if len(blank):
            i = int(blank[0])
            raise InputError(
                source, f"row {i + 1}", col, HF.kind(col).expected, got=describe(df[col].iloc[i])
            )
    df["label_name"] = labels.map(_LABELS).fillna("ambiguous")
    meta = RunMeta(
        name=name,
        kind=RunKind.LABELS,
        source_format=SourceFormat.HF,
        prompt_set="official",
        level=1,
        memory_format="official",
        config={"labels": "hard labels of the Hugging Face release"},
    )

    def records() -> Iterator[ProfileRecord]:
        for person, rows in df.groupby("name", sort=False):
            yield _profile(person, rows, source)

    return meta, records()


def _check_column_type(source: str, col: str, dtype: pa.DataType) -> None:
    """Text columns must hold text and the label numbers: a column of another type is refused
    before any row is read (an integer prompt column, a label column of strings)."""
    if col == "label":
        ok = pa.types.is_floating(dtype) or pa.types.is_integer(dtype) or pa.types.is_null(dtype)
    else:
        ok = pa.types.is_string(dtype) or pa.types.is_large_string(dtype)
        ok = ok or (pa.types.is_null(dtype) and HF.kind(col).optional)
    if not ok:
        raise InputError(
            source,
            "the header",
            col,
            f"a column of {HF.kind(col).expected}",
            got=f"a {dtype} column",
        )


def _check_text(source: str, col: str, column: pa.ChunkedArray, nul: bool) -> None:
    """A text column's values must be UTF-8 (Parquet and pyarrow's JSON reader pass invalid bytes
    through, which pandas would then alter) and, with ``nul``, without NUL (cut or mangled further
    on). Whole-column checks; the row is searched for only when one fails."""
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return  # a column of nulls
    try:
        column.validate(full=True)
    except pa.ArrowInvalid:
        for i, raw in enumerate(column.cast(pa.binary()).to_pylist()):
            try:
                (raw or b"").decode("utf-8")
            except UnicodeDecodeError as bad:
                got = f"byte {raw[bad.start]:#04x} at byte {bad.start + 1} of {describe(raw)}"
                raise InputError(source, f"row {i + 1}", col, "UTF-8 text", got=got) from None
        raise  # pragma: no cover - invalid for another reason than its text
    has_nul = pc.match_substring(column, NUL) if nul else None
    if has_nul is not None and pc.any(has_nul).as_py():
        i = pc.index(has_nul, True).as_py()
        raise _nul_error(source, i, col, column[i].as_py())


def _nul_error(source: str, i: int, col: str, text: str) -> InputError:
    got = f"a NUL at character {text.index(NUL) + 1} of {describe(text)}"
    return InputError(source, f"row {i + 1}", col, NUL_FREE, got=got)


def _refuse_repeats(source: str, rows: pd.DataFrame, pair: np.ndarray) -> None:
    """One row per (name, prompt, attribute), the release's key (a context is its prompt): a
    repeat would label one pair twice, and disagreeing repeats leave no way to pick. ``pair``
    numbers each row's (prompt, attribute) within the profile's rows."""
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    firsts = first[inverse.ravel()]
    repeats = np.flatnonzero(firsts != np.arange(len(pair)))
    if not len(repeats):
        return
    at, earlier = int(rows.index[repeats[0]]), int(rows.index[firsts[repeats[0]]])
    request = parse_request(str(rows.at[at, "prompt"]))
    task = f", task {request[1]!r}" if request else ""
    raise InputError(
        source,
        f"row {at + 1}",
        "(row)",
        "one row per profile, task and attribute (name, prompt, attribute)",
        got=f"a repeat of row {earlier + 1} (name {rows.at[at, 'name']!r}, attribute"
        f" {rows.at[at, 'attribute']!r}{task})",
    )


def _profile(person: str, rows: pd.DataFrame, source: str) -> ProfileRecord:
    attr_idx, attr_keys = pd.factorize(rows["attribute"])
    ctx_idx, prompts = pd.factorize(rows["prompt"])
    _refuse_repeats(source, rows, ctx_idx * len(attr_keys) + attr_idx)
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
        if parsed is None or NUL in prompt:
            row = int(rows.index[int(np.argmax(ctx_idx == c))])
            if parsed is not None:
                raise _nul_error(source, row, "prompt", prompt)
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
