"""Cached reads of what the database records as it is: its runs, a run's judges and their
coverage, one message and its counterparts, a pair's messages, two judges' agreement."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pandas as pd

from cimem.analysis import agreement as analysis_agreement
from cimem.analysis import audit
from cimem.analysis.agreement import Agreement
from cimem.analysis.audit import MessageAudit
from cimem.store import (
    Counterpart,
    JudgeCoverage,
    JudgeInfo,
    PairMessage,
    RunProgress,
    RunSummary,
)
from webapp.cache import registry
from webapp.cache.scope import DbScope
from webapp.connection import reading_at


@registry.data_read(show_spinner=False, max_entries=64)
def run_summaries(db: DbScope) -> list[RunSummary]:
    """Every run of the database, one typed row each (what the sidebar and the Data page list)."""
    with reading_at(db.path) as store:
        return store.list_runs()


def runs_frame(db: DbScope) -> pd.DataFrame:
    """:func:`run_summaries` as a table, for a page that draws them as one."""
    return pd.DataFrame([asdict(r) for r in run_summaries(db)])


RUN_CONTENT = ("name", "messages", "verdicts", "judges", "profiles", "contexts")


@registry.data_read(show_spinner=False, max_entries=16)
def run_contents(db: DbScope) -> dict[int, str]:
    """Per run, what its row of the runs table says it holds (name, messages, verdicts, judges,
    profiles, contexts): it changes when a command adds to the run, not when another run
    changes, so numbers of the other runs are kept while a `cimem run` stores its parts."""
    return {r.run_id: "/".join(str(getattr(r, c)) for c in RUN_CONTENT) for r in run_summaries(db)}


@registry.data_read(show_spinner=False, max_entries=16)
def run_names(db: DbScope) -> dict[int, str]:
    """Run id -> "id: name", as the sidebar shows it."""
    return {r.run_id: f"{r.run_id}: {r.name}" for r in run_summaries(db)}


@registry.data_read(show_spinner=False, max_entries=64)
def run_config(db: DbScope, run_id: int) -> dict[str, Any]:
    with reading_at(db.path) as store:
        return store.run_config(run_id)


@registry.data_read(show_spinner=False, max_entries=32)
def judges_of(db: DbScope, run_id: int) -> list[JudgeInfo]:
    with reading_at(db.path) as store:
        return store.judges(run_id)


@registry.data_read(show_spinner=False, max_entries=32)
def coverage_of(db: DbScope, run_id: int) -> dict[int, JudgeCoverage]:
    """{judge_id: JudgeCoverage} of a run's judges."""
    with reading_at(db.path) as store:
        return {c.judge_id: c for c in store.judge_coverage(run_id)}


@registry.data_read(show_spinner=False, max_entries=32)
def human_judge_of(db: DbScope, run_id: int) -> int | None:
    """The run's human judge when people have recorded verdicts on it, else None."""
    with reading_at(db.path) as store:
        human = store.find_human_judge(run_id)
        return human if human is not None and store.human_verdicts(human) else None


@registry.data_read(show_spinner=False, max_entries=64)
def message_audit(db: DbScope, message_id: int, label_rule: str) -> MessageAudit | None:
    """One message under audit (the Audit page), or None when there is no such message."""
    with reading_at(db.path) as store:
        return audit.message_audit(store, message_id, label_rule)


@registry.data_read(show_spinner=False, max_entries=64)
def find_message(db: DbScope, run_id: int, profile_id: int, ctx_idx: int, trial: int) -> int | None:
    with reading_at(db.path) as store:
        return store.find_message(run_id, profile_id, ctx_idx, trial)


@registry.data_read(show_spinner=False, max_entries=64)
def counterparts(db: DbScope, message_id: int) -> list[Counterpart]:
    """The same profile, task and trial in the other runs (the Audit page's side by side)."""
    with reading_at(db.path) as store:
        return store.counterparts(message_id)


@registry.data_read(show_spinner=False, max_entries=64)
def pair_messages(
    db: DbScope, run_id: int, profile_id: int, ctx_idx: int, attr_id: int, judge_id: int | None
) -> list[PairMessage]:
    """The messages of one (context, attribute) pair with a judge's verdict (the Leaks page)."""
    with reading_at(db.path) as store:
        return store.pair_messages(run_id, profile_id, ctx_idx, attr_id, judge_id)


@registry.data_read(show_spinner=False, max_entries=16)
def agreement(db: DbScope, judge_a: int, judge_b: int, label_rule: str) -> Agreement:
    """Agreement of two judges over a whole run (the Audit page)."""
    with reading_at(db.path) as store:
        return analysis_agreement.agreement(
            store, judge_a, judge_b, label_rule, max_disagreements=200
        )


@registry.data_read(show_spinner=False, max_entries=16)
def run_progress(db: DbScope) -> list[RunProgress]:
    """The progress rows of runs `cimem run` made or makes (their states are read at drawing:
    whether a process still runs changes without the file changing)."""
    with reading_at(db.path) as store:
        return store.run_progress()
