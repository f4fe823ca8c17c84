"""The closed vocabularies the store keeps as text: statuses, judge kinds, labels.

Each is a :class:`~enum.StrEnum` whose values are the strings in the database, so SQL and files
are unchanged and a member compares equal to its string; Python code names the member instead of
retyping the string.

>>> MessageStatus.OK == "ok", str(Label.PRIVATE), JudgmentStatus("parse_failure").name
(True, 'private', 'PARSE_FAILURE')
"""

from __future__ import annotations

from enum import StrEnum


class MessageStatus(StrEnum):
    """Whether a message was generated (``messages.status``)."""

    OK = "ok"
    FAILED = "failed"  # the model call failed or the source had no message: no text


class JudgmentStatus(StrEnum):
    """What became of a judge's call on one message (``judgments.status``)."""

    OK = "ok"
    PARSE_FAILURE = "parse_failure"  # a reply came but could not be read as verdicts
    ERROR = "error"  # the call itself failed


class JudgeKind(StrEnum):
    """Where a judge's verdicts came from (``judges.kind``)."""

    IMPORTED = "imported"  # shipped with an imported file
    LLM = "llm"
    OFFLINE = "offline"  # the text-matching judge
    HUMAN = "human"
    SIMULATOR = "simulator"  # the demo's ground truth


class Label(StrEnum):
    """A hard label of an (attribute, task) pair (``hard_labels.label``, or derived by a rule)."""

    SHARE = "share"  # the task needs it
    PRIVATE = "private"  # the recipient must not learn it
    AMBIGUOUS = "ambiguous"  # labellers disagreed: out of both metrics
