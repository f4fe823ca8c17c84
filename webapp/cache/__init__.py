"""The app's cached reads, each keyed by one frozen value (:class:`DbScope` for the database,
:class:`RunScope` for a run under a judge and options, plus the few values of the question),
and the app's one write path, :func:`writing`, which forgets them.

The only part of the app that knows about Streamlit's caches. Every read takes its scope's
database path and version (a changed file is read again); each is registered where it is made
(:mod:`webapp.cache.registry`), and :func:`writing` forgets every registered read after the app's
own writes.
"""

from __future__ import annotations

from webapp.cache.cubes import (
    attribute_view,
    composition,
    corrected,
    cube,
    metrics,
    overview,
    pairs,
    prefetch_overview,
    report_html,
    study_plan,
)
from webapp.cache.curves import CurveAsk, growth_slice, prefetch_growth
from webapp.cache.health import health as message_health
from webapp.cache.labels import (
    agreement_of,
    context_sheet,
    contexts_by_profile,
    people_labels,
    saved_labels,
    sensitivity_of,
)
from webapp.cache.leaderboard import board_entries, board_metrics, board_metrics_known
from webapp.cache.leak_views import (
    ONE_VALUE_PAGES,
    effective_filters,
    filter_options,
    group_tables,
    heat_cells,
    leak_tables,
    leaky_pairs,
    make_leaks_page,
    matching_pairs,
    prefetch_heat_cells,
    prefetch_leaks_pages,
    ranked_attributes,
)
from webapp.cache.queues import (
    QueueAsk,
    audit_plan_sentence,
    audit_seed,
    noted_size,
    prefetch_queues,
    review_queue,
    sample_queue,
    sample_rows,
)
from webapp.cache.records import (
    agreement,
    counterparts,
    coverage_of,
    find_message,
    human_judge_of,
    judges_of,
    message_audit,
    pair_messages,
    run_config,
    run_contents,
    run_names,
    run_progress,
    run_summaries,
    runs_frame,
)
from webapp.cache.registry import writing
from webapp.cache.scope import DbScope, RunScope
from webapp.connection import db_path, version

__all__ = [
    "ONE_VALUE_PAGES",
    "CurveAsk",
    "DbScope",
    "QueueAsk",
    "RunScope",
    "agreement",
    "agreement_of",
    "attribute_view",
    "audit_seed",
    "noted_size",
    "board_entries",
    "board_metrics",
    "board_metrics_known",
    "composition",
    "context_sheet",
    "contexts_by_profile",
    "corrected",
    "counterparts",
    "coverage_of",
    "cube",
    "current",
    "delete_run",
    "effective_filters",
    "filter_options",
    "find_message",
    "group_tables",
    "growth_slice",
    "heat_cells",
    "human_judge_of",
    "judges_of",
    "leak_tables",
    "leaky_pairs",
    "make_leaks_page",
    "matching_pairs",
    "message_audit",
    "message_health",
    "metrics",
    "overview",
    "pair_messages",
    "pairs",
    "people_labels",
    "prefetch_overview",
    "report_html",
    "study_plan",
    "prefetch_growth",
    "prefetch_heat_cells",
    "prefetch_leaks_pages",
    "ranked_attributes",
    "rename_run",
    "prefetch_queues",
    "review_queue",
    "run_config",
    "run_contents",
    "run_names",
    "run_progress",
    "run_summaries",
    "runs_frame",
    "sample_queue",
    "sample_rows",
    "saved_labels",
    "sensitivity_of",
    "audit_plan_sentence",
    "writing",
]


def current() -> DbScope:
    """This visit's database at its version (:mod:`webapp.connection`)."""
    return DbScope(db_path(), version())


def rename_run(run_id: int, name: str) -> None:
    """Rename a run of this visit's database (cached results are forgotten)."""
    with writing() as store:
        store.rename_run(run_id, name)


def delete_run(run_id: int) -> None:
    """Delete a run of this visit's database with everything in it (cached results are
    forgotten)."""
    with writing() as store:
        store.delete_run(run_id)
