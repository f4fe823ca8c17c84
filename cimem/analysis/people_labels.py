"""People's labels as CSV, and how they agree with the personas.

A labelling sheet (:func:`template_records`) lists (person, task, attribute) pairs of a run with
the memory statement and an empty ``label`` column, without the personas' labels: people decide
blind. Filled sheets are read back by :func:`read_labels` (``label``: share, withhold or unsure;
empty rows are skipped) and appended to the history, never replacing anything.

Agreement (:func:`persona_agreement`) compares people's label of a pair (every reviewer's current
label alike; pairs reviewers disagree on are left out and counted) with each persona's and the
combined label under a rule, over three classes (share, withhold, ambiguous/unsure): raw
agreement and Cohen's kappa.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from cimem.analysis.cube import LeakCube
from cimem.analysis.label_sources import Source, people_codes, persona_columns, relabelled
from cimem.analysis.labels import AMBIGUOUS, LabelRule
from cimem.analysis.options import labels_of
from cimem.analysis.sheets import BadCell, from_spreadsheet, records_to_csv, sheet_rows
from cimem.errors import CimemError
from cimem.store import PeopleLabel, Store
from cimem.store.columns import PersonaFractions
from cimem.store.rows import PeopleLabelEntry, PeopleLabelRow, PeoplePairLabel
from cimem.text import plural

COLUMNS: tuple[str, ...] = ("profile", "recipient", "task", "attribute", "memory_statement")
COLUMNS += ("domain", "label", "reviewer", "note")
HISTORY_COLUMNS = (*COLUMNS[:4], "label", "reviewer", "note", "created_at", "current")
DISPUTED = -9  # reviewers' current labels differ: no people's label
UNLABELLED = -10  # nobody labelled the pair
SYNONYMS = {"needed": PeopleLabel.SHARE, "private": PeopleLabel.WITHHOLD, "?": PeopleLabel.UNSURE}


def nominal_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two raters over any number of classes; nan with nothing to compare or
    when chance alone explains all agreement (both raters constant alike).

    >>> nominal_kappa(np.array([1, 0, -1, 1]), np.array([1, 0, -1, 1]))
    1.0
    >>> round(nominal_kappa(np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0])), 3)
    0.5
    """
    if len(a) == 0:
        return float("nan")
    classes = np.union1d(a, b)
    pe = sum(float(np.mean(a == c)) * float(np.mean(b == c)) for c in classes)
    po = float(np.mean(a == b))
    return (po - pe) / (1 - pe) if pe < 1 else float("nan")


@dataclass(frozen=True)
class SourceAgreement:
    """People against one label source under a rule, on the pairs people settled."""

    source: str
    rule: str
    pairs: int
    agree: int
    kappa: float

    @property
    def share(self) -> float:
        return self.agree / self.pairs if self.pairs else float("nan")


@dataclass(frozen=True)
class PeopleAgreement:
    run: str
    labelled: int  # pairs of the run with at least one person's label
    disputed: int  # of them, pairs reviewers label differently (left out)
    by_label: dict[str, int]  # settled pairs by people's label
    sources: list[SourceAgreement]

    @classmethod
    def unlabelled(cls, run: str) -> PeopleAgreement:
        """A run of which people labelled no pair: nothing to compare, no persona to read."""
        return cls(run, 0, 0, {}, [])

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["sources"] = [asdict(s) | {"share": s.share} for s in self.sources]
        return out


def persona_agreement(
    cube: LeakCube,
    fractions: PersonaFractions,
    people: Sequence[PeoplePairLabel],
    rule: LabelRule,
) -> PeopleAgreement:
    """People's settled labels against the combined label and each persona's, under ``rule``."""
    said = people_codes(cube, people, unlabelled=UNLABELLED, disputed=DISPUTED)
    labelled, disputed = said != UNLABELLED, said == DISPUTED
    settled = labelled & ~disputed
    sources = [Source.COMBINED, Source.FUNDAMENTALIST, Source.PRAGMATIC, Source.UNCONCERNED]
    if not settled.any():  # nothing to compare: no persona's labels are needed
        return PeopleAgreement(cube.run, int(labelled.sum()), int(disputed.sum()), {}, [])
    if not len(fractions.persona):
        sources = [Source.COMBINED]
    personas = persona_columns(cube, fractions)
    out = []
    for source in sources:
        theirs = labels_of(relabelled(cube, source, personas), rule)[settled]
        mine = said[settled]
        agree = int(np.sum(mine == theirs))
        out.append(
            SourceAgreement(
                str(source), rule.name, int(settled.sum()), agree, nominal_kappa(mine, theirs)
            )
        )
    names = {1: "share", 0: "withhold", AMBIGUOUS: "unsure"}
    codes, counts = np.unique(said[settled], return_counts=True)
    return PeopleAgreement(
        run=cube.run,
        labelled=int(labelled.sum()),
        disputed=int((labelled & disputed).sum()),
        by_label={names[int(c)]: int(n) for c, n in zip(codes, counts)},
        sources=out,
    )


# --------------------------------------------------------------------------- CSV
@dataclass(frozen=True)
class SheetChoice:
    """Which pairs a labelling sheet lists: one profile's (by name), one context's (its index
    within the profile), a seeded random sample of whole contexts (people's metrics need every
    pair of a context), or of single pairs (enough for agreement with the personas); none:
    every pair of the run."""

    profile: str | None = None
    context: int | None = None
    contexts: int | None = None
    pairs: int | None = None
    seed: int = 0


def template_records(store: Store, run_id: int, choice: SheetChoice) -> list[dict[str, object]]:
    """A labelling sheet of the run's labelled pairs, ordered by person, task and attribute;
    the personas' labels are not on it."""
    profiles = {p.profile_id: p.name for p in store.profiles_of(run_id)}
    contexts = {(c.profile_id, c.ctx_idx): c for c in store.contexts_of(run_id)}
    attrs = {a.attr_id: a for a in store.attributes_of(run_id)}
    frame = _chosen_pairs(store, run_id, choice, profiles)
    out: list[dict[str, object]] = []
    for pid, ctx, aid in frame.itertuples(index=False):
        c, a = contexts[(int(pid), int(ctx))], attrs[int(aid)]
        out.append(
            {
                "profile": profiles[int(pid)],
                "recipient": c.recipient,
                "task": c.task,
                "attribute": a.key,
                "memory_statement": a.memory_statement or "",
                "domain": a.domain or "",
            }
        )
    return out


def _chosen_pairs(
    store: Store, run_id: int, choice: SheetChoice, profiles: dict[int, str]
) -> pd.DataFrame:
    pairs = store.label_columns(run_id)
    frame = pd.DataFrame({k: pairs[k] for k in ("profile_id", "ctx_idx", "attr_id")})
    if choice.profile is not None:
        wanted = [pid for pid, name in profiles.items() if name == choice.profile]
        if not wanted:
            raise CimemError(f"run {run_id} has no profile named {choice.profile!r}")
        frame = frame[frame["profile_id"].isin(wanted)]
    if choice.context is not None:
        frame = frame[frame["ctx_idx"] == choice.context]
    if choice.contexts is not None:
        keys = frame[["profile_id", "ctx_idx"]].drop_duplicates()
        if choice.contexts < len(keys):
            keys = keys.sample(n=choice.contexts, random_state=choice.seed)
        frame = frame.merge(keys, on=["profile_id", "ctx_idx"])
    if choice.pairs is not None and choice.pairs < len(frame):
        frame = frame.sample(n=choice.pairs, random_state=choice.seed)
    return frame.sort_values(["profile_id", "ctx_idx", "attr_id"])


def history_records(rows: Sequence[PeopleLabelRow]) -> list[dict[str, object]]:
    """People's labels (current, or the whole history) as CSV records."""
    records: list[dict[str, object]] = [
        {
            "profile": r.profile,
            "recipient": r.recipient,
            "task": r.task,
            "attribute": r.attr_key,
            "label": str(r.label),
            "reviewer": r.reviewer or "",
            "note": r.note or "",
            "created_at": r.created_at.isoformat(sep=" ", timespec="seconds"),
            "current": "yes" if r.current else "no",
        }
        for r in rows
    ]
    return records


def to_csv(records: Sequence[dict[str, object]], columns: Sequence[str] = COLUMNS) -> str:
    """The records as CSV, text cells safe to open in a spreadsheet (no formula runs)."""
    return records_to_csv(records, columns)


def read_labels(
    store: Store, text: str, source: str, reviewer: str | None = None
) -> tuple[list[PeopleLabelEntry], int]:
    """Parse and check a filled sheet: (labels to record, rows left empty). A bad row, a row
    without a reviewer (none given for them either), or one naming a person, task and
    attribute no stored run has, stops everything with one line naming the file, the line and
    what was expected."""
    fields, rows = sheet_rows(text, source)
    _check_columns(fields, text, source)
    found: dict[tuple[str, str, str, str, str], tuple[int, PeopleLabelEntry]] = {}
    empty = 0
    for line, row in rows:
        entry = _entry(row, BadCell(source, line, row), reviewer)
        if entry is None:
            empty += 1
        else:  # a pair a reviewer labels twice in one file: the later row counts
            key = (entry.profile, entry.recipient.casefold(), entry.task, entry.attr_key)
            found[(*key, entry.reviewer or "")] = (line, entry)
    lines = [line for line, _ in found.values()]
    out = [entry for _, entry in found.values()]
    unmatched = store.unmatched_people_labels(out)
    if unmatched:
        first = out[unmatched[0]]
        raise CimemError(
            f"{source}: line {lines[unmatched[0]]}: no stored run has profile {first.profile!r}"
            f" with the task {first.recipient!r} / {first.task!r} and attribute"
            f" {first.attr_key!r} ({plural(len(unmatched), 'such row')}; nothing recorded)"
        )
    return out, empty


def _check_columns(fields: Sequence[str] | None, text: str, source: str) -> None:
    missing = {"profile", "recipient", "task", "attribute", "label"} - set(fields or ())
    if missing:
        first = text.split("\n", 1)[0]
        hint = (
            " (the header is separated by semicolons: save the sheet as CSV, comma-separated,"
            " UTF-8)"
            if ";" in first and "," not in first
            else ""
        )
        raise CimemError(
            f"{source}: line 1: expected the columns {', '.join(COLUMNS[:4])} and label;"
            f" missing {', '.join(sorted(missing))}{hint}"
        )


def _entry(row: dict[str, str], bad: BadCell, reviewer: str | None) -> PeopleLabelEntry | None:
    """One row's label; None when its ``label`` is empty."""
    value = (row.get("label") or "").strip().lower()
    if not value:
        return None
    label = SYNONYMS.get(value) or next((m for m in PeopleLabel if m.value == value), None)
    if label is None:
        raise bad("label", "share, withhold or unsure (or empty to skip the row)")
    cells = {c: from_spreadsheet((row.get(c) or "").strip()) for c in COLUMNS}
    for column in ("profile", "recipient", "task", "attribute"):
        if not cells[column]:
            raise bad(column, "text")
    if not (cells["reviewer"] or reviewer):
        raise bad(
            "reviewer",
            "the name of who labelled the row (or give one reviewer for the rows without:"
            " --reviewer NAME); a label without one could not be told apart from another"
            " person's",
        )
    return PeopleLabelEntry(
        cells["profile"],
        cells["recipient"],
        cells["task"],
        cells["attribute"],
        label,
        cells["reviewer"] or reviewer or None,
        cells["note"] or None,
    )
