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


class QueueFilter(StrEnum):
    """Which messages the review queue holds (``audit-queue --filter``, the Audit page's queue):
    every member but SAMPLE picks messages by what they show (:data:`MESSAGE_FILTERS`)."""

    LEAKED = "leaked"  # the judge found a private attribute revealed
    DISAGREE = "disagree"  # two judges disagree on some attribute
    PARSE_FAILURE = "parse_failure"  # the judge's reply could not be read
    JUDGE_ERROR = "judge_error"  # the judge's call failed
    UNGROUNDED = "ungrounded"  # an evidence sentence does not occur in the message
    FLAGGED = "flagged"  # the health scan flagged the message
    UNREVIEWED = "unreviewed"  # no person has reviewed it yet
    PEOPLE_DISAGREE = "people_disagree"  # its reviewers disagree, not adjudicated yet
    SAMPLE = "sample"  # the suggested audit sample (.audit.sample.audit_sample) as a queue


MESSAGE_FILTERS = tuple(f for f in QueueFilter if f is not QueueFilter.SAMPLE)
