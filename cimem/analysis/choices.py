"""Vocabularies the command line offers as choices (the orders of a leaderboard, the review
queue's filters), light to import: the command line builds its options from them at start-up,
while the modules that use them need pandas."""

from __future__ import annotations

from enum import StrEnum


class SortKey(StrEnum):
    """What the leaderboard may be sorted by (the grouping, model then level, by default)."""

    GROUPED = "grouped"
    VIOLATION = "violation"
    COMPLETENESS = "completeness"
    DATE = "date"
    RUN = "run"


QUEUE_FILTERS = (
    "leaked",
    "disagree",
    "parse_failure",
    "judge_error",
    "ungrounded",
    "flagged",
    "unreviewed",
    "people_disagree",
)
SAMPLE = "sample"  # the suggested audit sample (.audit.sample.audit_sample) as a queue
