"""People's verdicts as CSV, so a team can split an audit: export a sample or the verdicts so far,
fill the ``revealed`` column in any spreadsheet, import the files back.

Columns (export): message_id, profile, recipient, task, trial, attr_id, attribute, label,
judge_says, stratum, draw (the order to decide them in), sample (the judge, seed and options of
the sample's draws: :mod:`.provenance`), revealed, and in a sample's sheet what a reviewer reads
to decide the cell (memory_statement, judge_evidence, message_excerpt: the message around the
evidence, marked >>> <<<), then reviewer, note, created_at, current, adjudication. Import
reads message_id, attr_id (or attribute), revealed, reviewer, note, adjudication (yes: the
verdict settles reviewers' disagreement) and sample (noted with the verdicts, so the corrected
metrics follow those draws), and ignores the rest; a row whose ``revealed`` is empty is left
unset. ``revealed`` takes yes/no, true/false, 1/0, revealed/not revealed.
Text cells that would start as a formula are written with a leading apostrophe (names and notes
come from data and people), and read back without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cimem.analysis.audit.provenance import SampleSpec, parse_draw_options, specs_of_sheet
from cimem.analysis.audit.sample import SampleRow, audit_sample
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import prepare
from cimem.analysis.sheets import BadCell, excerpt, from_spreadsheet, records_to_csv, sheet_rows
from cimem.errors import CimemError
from cimem.paths import write_whole
from cimem.store import HumanVerdict, HumanVerdictRow, Store
from cimem.store.messages import SheetCell

COLUMNS = (
    "message_id",
    "profile",
    "recipient",
    "task",
    "trial",
    "attr_id",
    "attribute",
    "label",
    "judge_says",
    "stratum",
    "draw",
    "sample",
    "revealed",
    "memory_statement",
    "judge_evidence",
    "message_excerpt",
    "reviewer",
    "note",
    "created_at",
    "current",
    "adjudication",
)
YES = {"yes", "y", "true", "1", "revealed"}
NO = {"no", "n", "false", "0", "not revealed"}


def sample_records(
    rows: Iterable[SampleRow],
    spec: SampleSpec,
    read: dict[tuple[int, int], SheetCell] | None = None,
) -> list[dict[str, object]]:
    """An audit sample as CSV records with ``revealed`` empty for people to fill, each naming
    the sample (``spec``) its draw belongs to and carrying what a reviewer reads to decide it
    (``read``: :func:`sheet_cells`): the memory statement, the judge's evidence and an excerpt
    of the message with the evidence marked."""
    sample = spec.text()
    found = read or {}
    return [
        {
            "message_id": r.message_id,
            "profile": r.profile,
            "recipient": r.recipient,
            "task": r.task,
            "trial": r.trial,
            "attr_id": r.attr_id,
            "attribute": r.attribute,
            "label": r.label,
            "judge_says": r.judge_says,
            "stratum": r.stratum,
            "draw": r.draw,
            "sample": sample,
            **_reading(found.get((r.message_id, r.attr_id))),
        }
        for r in rows
    ]


def sheet_cells(
    store: Store, judge_id: int, rows: Iterable[SampleRow]
) -> dict[tuple[int, int], SheetCell]:
    """What a reviewer reads for each row's cell, by (message_id, attr_id)."""
    cells = sorted({(r.message_id, r.attr_id) for r in rows})
    return {(c.message_id, c.attr_id): c for c in store.sheet_cells(judge_id, cells)}


def _reading(cell: SheetCell | None) -> dict[str, object]:
    if cell is None:
        return {}
    return {
        "memory_statement": cell.memory_statement or "",
        "judge_evidence": cell.evidence or "",
        "message_excerpt": excerpt(cell.text, cell.evidence),
    }


def verdict_records(
    rows: Iterable[HumanVerdictRow], sampled: dict[tuple[int, int], SampledCell] | None = None
) -> list[dict[str, object]]:
    """People's verdicts (current, or the whole history) as CSV records; a verdict on a cell of
    an audit sample people decided (``sampled``) with that cell's label, the judge's verdict,
    stratum, draw and sample, as the sample's sheet wrote them (wherever the verdict was made)."""
    found = sampled or {}
    return [
        {
            "message_id": r.message_id,
            "profile": r.profile,
            "recipient": r.recipient,
            "task": r.task,
            "trial": r.trial,
            "attr_id": r.attr_id,
            "attribute": r.key,
            **_sample_fields(found.get((r.message_id, r.attr_id))),
            "revealed": "yes" if r.revealed else "no",
            "reviewer": r.reviewer or "",
            "note": r.note or "",
            "created_at": r.created_at.isoformat(sep=" ", timespec="seconds"),
            "current": "yes" if r.current else "no",
            "adjudication": "yes" if r.adjudication else "no",
        }
        for r in rows
    ]


class SampledCell(NamedTuple):
    """A cell of a noted audit sample: its row, and the sample it belongs to."""

    row: SampleRow
    spec: SampleSpec


def _sample_fields(cell: SampledCell | None) -> dict[str, object]:
    if cell is None:
        return {}
    r = cell.row
    return {
        "label": r.label,
        "judge_says": r.judge_says,
        "stratum": r.stratum,
        "draw": r.draw,
        "sample": cell.spec.text(),
    }


def noted_sample_cells(store: Store, run_id: int) -> dict[tuple[int, int], SampledCell]:
    """Every cell of the audit samples people decided on the run (noted with their verdicts),
    by (message_id, attr_id); the first sample noted wins a cell two samples share."""
    human = store.find_human_judge(run_id)
    out: dict[tuple[int, int], SampledCell] = {}
    for noted in store.audit_samples(human) if human is not None else []:
        spec = SampleSpec(noted.judge_id, noted.seed, noted.options, noted.cells)
        prep = prepare(
            cube_from_store(store, run_id, noted.judge_id), parse_draw_options(noted.options)
        )
        for row in audit_sample(store, prep, max(noted.cells or 0, 1), noted.seed):
            out.setdefault((row.message_id, row.attr_id), SampledCell(row, spec))
    return out


def to_csv(records: list[dict[str, object]]) -> str:
    """The records as CSV, text cells safe to open in a spreadsheet (no formula runs)."""
    return records_to_csv(records, COLUMNS)


def write_csv(path: str | Path, records: list[dict[str, object]]) -> None:
    """Write atomically: a reader never sees half a file."""
    write_whole(path, to_csv(records))


class SheetVerdicts(NamedTuple):
    """What a filled sheet holds: the verdicts to record, the rows left unset, and the audit
    samples its decided rows answer (each with its row count)."""

    verdicts: list[HumanVerdict]
    unset: int
    samples: dict[SampleSpec, int]


def read_verdicts(
    store: Store, run_id: int, text: str, source: str, reviewer: str | None = None
) -> SheetVerdicts:
    """Parse and check a filled CSV against the run. Any bad row stops everything with one line
    naming the file, line, column and value."""
    fields, rows = sheet_rows(text, source)
    _check_columns(set(fields), source)
    run = _RunAttributes.of(store, run_id)
    out: list[HumanVerdict] = []
    samples: list[tuple[int, str]] = []
    unset = 0
    for line, row in rows:
        verdict = _verdict(row, BadCell(source, line, row), run, reviewer)
        if verdict is None:
            unset += 1
            continue
        out.append(verdict)
        if sample := from_spreadsheet((row.get("sample") or "").strip()):
            samples.append((line, sample))
    specs = specs_of_sheet(samples, source)
    judges = {j.judge_id for j in store.judges(run_id)}
    for spec in specs:
        if spec.judge_id not in judges:
            raise CimemError(
                f"{source}: column sample: judge {spec.judge_id} is not a judge of run {run_id}"
                f" (the sheet was drawn from another run or database)"
            )
    return SheetVerdicts(out, unset, specs)


def _check_columns(fields: set[str], source: str) -> None:
    missing = {"message_id", "revealed"} - fields
    if missing or not ({"attr_id", "attribute"} & fields):
        need = sorted(missing) + ([] if {"attr_id", "attribute"} & fields else ["attr_id"])
        raise CimemError(
            f"{source}: line 1: expected the columns message_id, attr_id (or attribute) and"
            f" revealed; missing {', '.join(need)}"
        )


@dataclass(frozen=True)
class _RunAttributes:
    """What a row is checked against: each message's profile, each profile's attributes."""

    run_id: int
    profile_of: dict[int, int]  # message_id -> profile_id
    keys: dict[int, dict[str, int]]  # profile_id -> key -> attr_id
    ids: dict[int, set[int]]  # profile_id -> attr_ids

    @classmethod
    def of(cls, store: Store, run_id: int) -> _RunAttributes:
        profile_of = {m.message_id: m.profile_id for m in store.messages_to_judge(run_id)}
        keys: dict[int, dict[str, int]] = {}
        ids: dict[int, set[int]] = {}
        for a in store.attributes_of(run_id):
            keys.setdefault(a.profile_id, {})[a.key] = a.attr_id
            ids.setdefault(a.profile_id, set()).add(a.attr_id)
        return cls(run_id, profile_of, keys, ids)


def _verdict(
    row: dict[str, str], bad: BadCell, run: _RunAttributes, reviewer: str | None
) -> HumanVerdict | None:
    """The verdict of one row; None when its ``revealed`` is empty (left unset)."""
    value = (row.get("revealed") or "").strip().lower()
    if not value:
        return None
    if value not in YES | NO:
        raise bad("revealed", "yes or no (or empty to leave the pair unset)")
    text_id = (row.get("message_id") or "").strip()
    if not text_id.isdigit() or int(text_id) not in run.profile_of:
        raise bad("message_id", f"the id of a generated message of run {run.run_id}")
    profile = run.profile_of[int(text_id)]
    attr_text = (row.get("attr_id") or "").strip()
    key = from_spreadsheet((row.get("attribute") or "").strip())
    if attr_text:
        if not attr_text.isdigit() or int(attr_text) not in run.ids.get(profile, set()):
            raise bad("attr_id", "the id of an attribute of the message's profile")
        attr_id = int(attr_text)
        if key and run.keys[profile].get(key) != attr_id:
            raise bad("attribute", f"the key of attribute {attr_id}")
    elif key in run.keys.get(profile, {}):
        attr_id = run.keys[profile][key]
    else:
        raise bad("attribute", "a key of an attribute of the message's profile")
    adjudication = (row.get("adjudication") or "").strip().lower()
    if adjudication not in YES | NO | {""}:
        raise bad("adjudication", "yes or no (or empty: not an adjudication)")
    return HumanVerdict(
        int(text_id),
        attr_id,
        value in YES,
        from_spreadsheet((row.get("reviewer") or "").strip()) or reviewer,
        from_spreadsheet((row.get("note") or "").strip()) or None,
        adjudication=adjudication in YES,
    )
