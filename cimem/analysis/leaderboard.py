"""The leaderboard of every run of a database: how each run was made (model, prompt level and
set, memory format, judges, profiles and their cohort, n, messages, date), its Violation@n and
Completeness with their intervals, the filters a reader narrows it by, and the default selection
of runs a page opens with when the link names none.

What a run was made with comes from its row of ``runs`` and, for runs made by ``cimem run``,
its stored settings; an imported file may say nothing but its name, so a field it does not give
is :data:`UNKNOWN` (a level is also read from a name such as "llama level 2"). The numbers are
:func:`cimem.analysis.metrics.compute`'s under the run's original verdicts, written as the
Overview writes them (:mod:`cimem.analysis.overview_table`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

import orjson
import pandas as pd

from cimem.analysis.choices import SortKey  # re-exported: lb.SortKey
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import (
    NO_LABELS,
    NO_LABELS_HELP,
    MetricOptions,
    RunMetrics,
    compute,
)
from cimem.analysis.overview_table import interval_text, rounded
from cimem.analysis.versus_best import versus_best
from cimem.store import LeaderboardFacts, RunSummary, Store
from cimem.text import plural

UNKNOWN = "unknown"
DEFAULT_RUNS = 4  # runs a page opens with when the link names none
_LEVEL_IN_NAME = re.compile(r"(?:\blevel|\blvl|\bL)[ _-]?([1-9])\b", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One run as the leaderboard lists it, before its numbers."""

    run_id: int
    name: str
    model: str
    level: str
    prompt_set: str
    memory_format: str
    judges: tuple[str, ...]
    profiles: int
    cohort: str
    n_trials: int | None
    messages: int
    created_at: datetime
    simulated: bool
    source_format: str

    @property
    def label(self) -> str:
        """The run as the sidebar names it: "id: name"."""
        return f"{self.run_id}: {self.name}"


def entries(facts: Sequence[LeaderboardFacts]) -> list[Entry]:
    """Each run's :class:`Entry`, in run order; runs over the same profiles share a cohort
    (A, B, ... in order of first appearance).

    >>> from datetime import datetime
    >>> from cimem.store import LeaderboardFacts
    >>> f = LeaderboardFacts(1, "gpt level 2", "official", "/d/gpt.jsonl", None, "official",
    ...     None, "official", 5, False, datetime(2025, 1, 1), None, ["original verdicts"],
    ...     ["Ada", "Bo"], 196)
    >>> e = entries([f])[0]
    >>> e.model, e.level, e.cohort, e.judges
    ('unknown', '2', 'A (2 profiles)', ('original verdicts',))
    """
    cohorts: dict[tuple[str, ...], str] = {}
    out = []
    for f in facts:
        settings = _settings(f.config)
        names = tuple(f.profile_names)
        if names and names not in cohorts:
            cohorts[names] = _letter(len(cohorts))
        out.append(
            Entry(
                run_id=f.run_id,
                name=f.name,
                model=known(f.model or settings.get("model")),
                level=_level(f, settings),
                prompt_set=_prompt_set(f.prompt_set or settings.get("prompts")),
                memory_format=known(f.memory_format or settings.get("memory_format")),
                judges=tuple(f.judges),
                profiles=len(names),
                cohort=f"{cohorts[names]} ({plural(len(names), 'profile')})" if names else "-",
                n_trials=f.n_trials,
                messages=f.messages,
                created_at=f.created_at,
                simulated=f.simulated,
                source_format=f.source_format,
            )
        )
    return out


def known(value: object) -> str:
    """A recorded value as text, or :data:`UNKNOWN`.

    >>> known("llama-3.3"), known(None), known("  ")
    ('llama-3.3', 'unknown', 'unknown')
    """
    text = "" if value is None else str(value).strip()
    return text or UNKNOWN


def level_from_name(*names: str | None) -> str | None:
    """A prompt level named in a run's or its file's name ("level 2", "lvl3", "L1").

    >>> level_from_name("llama-3.3 level 2"), level_from_name(None, "/x/run_L3.jsonl")
    ('2', '3')
    >>> level_from_name("results_sample") is None
    True
    """
    for name in names:
        if name:
            found = _LEVEL_IN_NAME.search(PurePath(name).name.replace("_", " "))
            if found:
                return found.group(1)
    return None


def _level(f: LeaderboardFacts, settings: Mapping[str, Any]) -> str:
    if f.level is not None:
        return str(f.level)
    if settings.get("level") is not None:
        return str(settings["level"])
    return level_from_name(f.name, f.source) or UNKNOWN


def _prompt_set(value: object) -> str:
    """The prompt set by its file name when it is a path (a runner's prompts.yaml)."""
    text = known(value)
    return PurePath(text).name if "/" in text or "\\" in text else text


def _settings(config: str | None) -> dict[str, Any]:
    """The runner's settings of a run's stored config ({} when it has none or is not JSON)."""
    try:
        parsed = orjson.loads(config) if config else {}
    except orjson.JSONDecodeError:
        return {}
    settings = parsed.get("settings") if isinstance(parsed, dict) else None
    return settings if isinstance(settings, dict) else {}


def _letter(i: int) -> str:
    """A, B, ..., Z, AA, AB, ...

    >>> _letter(0), _letter(25), _letter(26)
    ('A', 'Z', 'AA')
    """
    return _letter(i // 26 - 1) + chr(65 + i % 26) if i >= 26 else chr(65 + i)


# ----------------------------------------------------------------------------- the selection
def default_selection(runs: Sequence[RunSummary]) -> list[int]:
    """The runs a page shows when the link names none: the newest run of each model (the most
    recently active models first), then the newest others, :data:`DEFAULT_RUNS` in all, in run
    order. Only runs with messages count; newest is by creation time, then run id.

    >>> from datetime import datetime as d
    >>> from cimem.store import RunSummary
    >>> def run(i, model, day):
    ...     return RunSummary(i, f"r{i}", "results", "official", model, None, None, 5, False,
    ...                       d(2025, 1, day), 1, 1, 10, 10, 1)
    >>> default_selection([run(1, "a", 1), run(2, "a", 2), run(3, "b", 1), run(4, None, 3),
    ...                    run(5, "a", 4), run(6, "c", 1)])
    [3, 4, 5, 6]
    >>> default_selection([run(i, None, 1) for i in range(1, 9)])
    [5, 6, 7, 8]
    """
    usable = sorted((r for r in runs if r.messages > 0), key=_newness, reverse=True)
    chosen: list[int] = []
    models: set[str] = set()
    for r in usable:
        if known(r.model) not in models and len(chosen) < DEFAULT_RUNS:
            models.add(known(r.model))
            chosen.append(r.run_id)
    for r in usable:
        if len(chosen) >= DEFAULT_RUNS:
            break
        if r.run_id not in chosen:
            chosen.append(r.run_id)
    return sorted(chosen)


def _newness(r: RunSummary) -> tuple[datetime, int]:
    return (r.created_at, r.run_id)


# ----------------------------------------------------------------------------- the filters
@dataclass(frozen=True)
class Filters:
    """What the leaderboard is narrowed to: each an allowed set of values (empty: any). A run
    passes the judge filter when any of its judges is allowed."""

    models: frozenset[str] = field(default_factory=frozenset)
    levels: frozenset[str] = field(default_factory=frozenset)
    memory_formats: frozenset[str] = field(default_factory=frozenset)
    judges: frozenset[str] = field(default_factory=frozenset)

    def keeps(self, e: Entry) -> bool:
        return (
            (not self.models or e.model in self.models)
            and (not self.levels or e.level in self.levels)
            and (not self.memory_formats or e.memory_format in self.memory_formats)
            and (not self.judges or bool(self.judges.intersection(e.judges)))
        )


def filtered(board: Iterable[Entry], filters: Filters) -> list[Entry]:
    return [e for e in board if filters.keeps(e)]


def choices(board: Sequence[Entry]) -> dict[str, list[str]]:
    """The values each filter offers, sorted: models, levels, memory formats, judges."""
    return {
        "models": sorted({e.model for e in board}),
        "levels": sorted({e.level for e in board}),
        "memory_formats": sorted({e.memory_format for e in board}),
        "judges": sorted({j for e in board for j in e.judges}),
    }


# ----------------------------------------------------------------------------- the numbers
def run_metrics(store: Store, run_ids: Iterable[int], opts: MetricOptions) -> dict[int, RunMetrics]:
    """Each run's metrics under its original verdicts, one cube in memory at a time (a
    leaderboard of tens of runs must not hold every run's verdicts at once)."""
    return {r: compute(cube_from_store(store, r), opts) for r in run_ids}


def labelled(m: RunMetrics) -> bool:
    """Whether the run had labels (without them nothing counts as a leak)."""
    return m.discarded.note != NO_LABELS_HELP


VS_BEST = "vs best (Holm)"
COLUMNS = (
    "run",
    "model",
    "level",
    "Violation@n %",
    "Violation 95% CI",
    "Completeness %",
    "Completeness 95% CI",
    VS_BEST,
    "n",
    "profiles",
    "cohort",
    "judges",
    "prompts",
    "memory",
    "messages",
    "date",
)


def table(board: Sequence[Entry], metrics: Mapping[int, RunMetrics]) -> pd.DataFrame:
    """One row per run, grouped by model then level (runs without numbers yet have blank
    numbers, and their intervals say "not computed"). ``run_id`` is kept as a column."""
    rows = [_row(e, metrics.get(e.run_id)) for e in board]
    marks = versus_best({e.run_id: m for e in board if (m := metrics.get(e.run_id)) is not None})
    for row in rows:
        row[VS_BEST] = marks.get(row["run_id"], "-")
    out = pd.DataFrame(rows, columns=["run_id", *COLUMNS])
    out["n"] = out["n"].astype("Int64")  # a run not computed has none: "1.0" would read as a float
    return sort_table(out, SortKey.GROUPED)


def _row(e: Entry, m: RunMetrics | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": e.run_id,
        "run": e.label + (" [simulated]" if _unsaid_simulated(e) else ""),
        "model": e.model,
        "level": e.level,
        "prompts": e.prompt_set,
        "memory": e.memory_format,
        "judges": ", ".join(e.judges) or "-",
        "profiles": e.profiles,
        "cohort": e.cohort,
        "n": e.n_trials,
        "messages": e.messages,
        "date": e.created_at.strftime("%Y-%m-%d %H:%M"),
    }
    if m is None:
        return row | {"Violation 95% CI": "not computed", "Completeness 95% CI": "not computed"}
    ok = labelled(m)
    row["n"] = m.n_trials
    row["profiles"] = scored_profiles(e.profiles, m.violation.n_profiles, m.completeness.n_profiles)
    for metric, s in (("Violation", m.violation), ("Completeness", m.completeness)):
        lo, hi = s.ci95
        title = "Violation@n %" if metric == "Violation" else "Completeness %"
        row[title] = rounded(100 * s.mean) if ok else None
        row[f"{metric} 95% CI"] = interval_text(100 * lo, 100 * hi, not ok, s.n_profiles)
    return row


def scored_profiles(profiles: int, violation: int, completeness: int) -> int | str:
    """The run's profiles, and how many each number is over when some had nothing to score.

    >>> scored_profiles(10, 10, 10), scored_profiles(10, 8, 8), scored_profiles(10, 8, 9)
    (10, '8 of 10 scored', 'V 8, C 9 of 10 scored')
    """
    if violation == completeness == profiles:
        return profiles
    if violation == completeness:
        return f"{violation} of {profiles} scored"
    return f"V {violation}, C {completeness} of {profiles} scored"


def _unsaid_simulated(e: Entry) -> bool:
    """A simulated run whose name does not say so already (the demo's do)."""
    return e.simulated and "simulated" not in e.label.lower()


def sort_table(board: pd.DataFrame, key: SortKey) -> pd.DataFrame:
    """The table sorted by ``key``: grouped (model, level, run), lowest violation, highest
    completeness, newest, or run id; runs without a number go last."""
    by: dict[SortKey, tuple[list[str], list[bool]]] = {
        SortKey.GROUPED: (["model", "level", "run_id"], [True, True, True]),
        SortKey.VIOLATION: (["Violation@n %", "run_id"], [True, True]),
        SortKey.COMPLETENESS: (["Completeness %", "run_id"], [False, True]),
        SortKey.DATE: (["date", "run_id"], [False, False]),
        SortKey.RUN: (["run_id"], [True]),
    }
    cols, ascending = by[key]
    return board.sort_values(cols, ascending=ascending, na_position="last").reset_index(drop=True)


SHARED_ASIDE = ("n", "profiles", "cohort", "judges", "prompts", "memory")


def shared_columns(board: pd.DataFrame) -> dict[str, str]:
    """The columns of :data:`SHARED_ASIDE` whose value every listed run shares (a table of
    several runs says them once, not in every row), with that value.

    >>> shared_columns(pd.DataFrame({"n": [5, 5], "profiles": [10, 60], "memory": ["a", "a"]}))
    {'n': '5', 'memory': 'a'}
    """
    if len(board) < 2:
        return {}
    return {
        c: str(board[c].iloc[0])
        for c in SHARED_ASIDE
        if c in board.columns and board[c].nunique(dropna=False) == 1
    }


def summary(board: Sequence[Entry]) -> str:
    """The runs in a phrase: "20 runs of 3 models" (:func:`runs_of_models`).

    >>> summary([])
    'no runs'
    """
    return runs_of_models([e.model for e in board]) if board else "no runs"


def runs_of_models(models: Sequence[str]) -> str:
    """How many runs of how many models, the runs whose model is not recorded apart.

    >>> runs_of_models(["a", "b", "a"]), runs_of_models(["a", UNKNOWN]), runs_of_models([UNKNOWN])
    ('3 runs of 2 models', '2 runs of 1 model (1 with no model recorded)', '1 run, no model recorded')
    """
    k = len(models)
    known_models = {m for m in models if m != UNKNOWN}
    unknown = k - sum(m != UNKNOWN for m in models)
    runs = f"{k} run{'s' if k != 1 else ''}"
    if not known_models:
        return f"{runs}, no model recorded"
    m = len(known_models)
    out = f"{runs} of {m} model{'s' if m != 1 else ''}"
    return out + (f" ({unknown} with no model recorded)" if unknown else "")


def selection_phrase(
    models: Sequence[str], judges: Sequence[str], tasks: Sequence[int], ns: Sequence[int]
) -> str:
    """Several runs in a phrase, for a caption that does not list them: how many runs of how
    many models, then the judge, tasks and n when they share one, else their spread.

    >>> selection_phrase(["a", "a", "b"], ["1: orig", "2: orig", "orig"], [49] * 3, [5, 5, 1])
    '3 runs of 2 models; judge orig; 49 tasks; n = 1-5'
    >>> selection_phrase(["a"], ["x"], [2], [3])
    '1 run of 1 model; judge x; 2 tasks; n = 3'
    """

    def spread(values: Sequence[int]) -> str:
        lo, hi = min(values), max(values)
        return str(lo) if lo == hi else f"{lo}-{hi}"

    parts = [runs_of_models(models)]
    distinct = sorted({_judge_name(j) for j in judges})
    parts.append(f"judge {distinct[0]}" if len(distinct) == 1 else f"{len(distinct)} judges")
    if tasks:
        parts.append(f"{spread(tasks)} tasks" if len(set(tasks)) > 1 else plural(tasks[0], "task"))
    if ns:
        parts.append(f"n = {spread(ns)}")
    return "; ".join(parts)


def _judge_name(judge: str) -> str:
    """A cube's judge label without its id and coverage: what runs may share.

    >>> _judge_name("3: original verdicts, 441 of 441 messages"), _judge_name("none")
    ('original verdicts', 'none')
    """
    return re.sub(r"^\d+: ", "", judge).split(", ", 1)[0]


def as_records(board: pd.DataFrame) -> list[dict[str, Any]]:
    """The table as JSON-ready records (missing numbers as None)."""
    clean = board.astype(object).where(board.notna(), None)
    return [{str(k): v for k, v in r.items()} for r in clean.to_dict(orient="records")]


__all__ = [
    "COLUMNS",
    "DEFAULT_RUNS",
    "NO_LABELS",
    "UNKNOWN",
    "Entry",
    "Filters",
    "SortKey",
    "as_records",
    "choices",
    "default_selection",
    "entries",
    "filtered",
    "known",
    "labelled",
    "level_from_name",
    "run_metrics",
    "runs_of_models",
    "selection_phrase",
    "sort_table",
    "summary",
    "table",
]
