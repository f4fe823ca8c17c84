"""The typed rows the store returns and accepts: every field has a name, so adding a column to a
query cannot silently shift what a caller reads.

Two shapes, chosen by how many rows a call returns:

- frozen dataclasses for rows read a few at a time (runs, judges, profiles, contexts, one message);
- ``NamedTuple`` for rows read per attribute, message, verdict or label, of which one run holds
  hundreds of thousands to millions: a NamedTuple is built from a database tuple about three times
  faster than a frozen dataclass and takes less memory. Read their fields by name all the same.

Raw database tuples never leave :mod:`cimem.store`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from cimem.store.enums import JudgeKind, JudgmentStatus, Label, MessageStatus, PeopleLabel

__all__ = [
    "AttributeKey",
    "AttributeRow",
    "CachedCall",
    "CachedCompletion",
    "CompositionMessage",
    "ContextRow",
    "Counterpart",
    "HardLabelRow",
    "HealthMessage",
    "HumanVerdict",
    "HumanVerdictRow",
    "JudgeCoverage",
    "JudgeInfo",
    "JudgeVerdict",
    "Judgment",
    "LeaderboardFacts",
    "MessageDetail",
    "MessageRow",
    "MessageSlot",
    "MessageToJudge",
    "NewMessage",
    "PairLabel",
    "PairMessage",
    "PeopleLabelEntry",
    "PeopleLabelRow",
    "PeoplePairLabel",
    "PersonaLabelRow",
    "ProfileRow",
    "RunLabel",
    "RunProgress",
    "RunRef",
    "RunSummary",
    "VerdictRow",
]


def field_names(row_type: type) -> tuple[str, ...]:
    """The field names of a NamedTuple or dataclass row type, in order.

    >>> field_names(RunRef), field_names(MessageSlot)
    (('run_id', 'name'), ('message_id', 'status'))
    """
    if dataclasses.is_dataclass(row_type):
        return tuple(f.name for f in dataclasses.fields(row_type))
    return tuple(row_type._fields)  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- runs and judges
@dataclass(frozen=True)
class RunSummary:
    """One row of `cimem runs`: what a run holds."""

    run_id: int
    name: str
    kind: str
    source_format: str
    model: str | None
    source: str | None
    level: int | None
    n_trials: int | None
    simulated: bool
    created_at: datetime
    profiles: int
    contexts: int
    messages: int
    verdicts: int
    judges: int
    memory_format: str | None = None


@dataclass(frozen=True)
class LeaderboardFacts:
    """What a run records about how it was made, for a leaderboard of every run: its row of
    ``runs`` (the config as stored JSON), its judges' names, its profiles' names (sorted) and
    its messages."""

    run_id: int
    name: str
    source_format: str
    source: str | None
    model: str | None
    prompt_set: str | None
    level: int | None
    memory_format: str | None
    n_trials: int | None
    simulated: bool
    created_at: datetime
    config: str | None
    judges: list[str]
    profile_names: list[str]
    messages: int


@dataclass(frozen=True)
class RunRef:
    """A run found by the content hash of its source file."""

    run_id: int
    name: str


@dataclass(frozen=True)
class JudgeInfo:
    judge_id: int
    run_id: int
    name: str
    kind: JudgeKind
    model: str | None
    prompt_hash: str | None
    created_at: datetime


@dataclass(frozen=True)
class JudgeCoverage:
    """How many of a run's generated messages a judge judged (any status: a parse failure was
    judged too). A judge that covers part of a run describes those messages only."""

    judge_id: int
    judged: int
    total: int

    @property
    def partial(self) -> bool:
        return self.judged < self.total

    def describe(self) -> str:
        """Judged of total, in words.

        >>> JudgeCoverage(3, 1, 120).describe()
        '1 of 120 messages'
        """
        return f"{self.judged:,} of {self.total:,} " + (
            "message" if self.total == 1 else "messages"
        )


# ----------------------------------------------------------------------------- a run's contents
@dataclass(frozen=True)
class ProfileRow:
    """A profile of a run; ``bio_json`` is the bio object as it came, for export."""

    profile_id: int
    name: str
    sex: str | None
    address: str | None
    age: str | None
    bio_json: str | None


class AttributeRow(NamedTuple):
    """An attribute (a memory) of a profile; ``attr_id`` is unique within the run."""

    profile_id: int
    attr_id: int
    key: str
    value_json: str | None  # the value as JSON: numbers, lists and booleans keep their type
    domain: str | None
    event: str | None
    memory_statement: str | None


class AttributeKey(NamedTuple):
    attr_id: int
    key: str


@dataclass(frozen=True)
class ContextRow:
    """A task of a profile: what to write (``task``) for whom (``recipient``)."""

    profile_id: int
    ctx_idx: int
    recipient: str
    task: str
    prompt: str | None  # a source's task prompt when it ships one without messages


class PersonaLabelRow(NamedTuple):
    """Label fractions of one persona (``combined``: the weighted view) for one pair."""

    ctx_idx: int
    persona: str
    attr_id: int
    necessary: float | None
    private: float | None
    unlabeled: float | None


class HardLabelRow(NamedTuple):
    """A label shipped as it is (sources without fractions)."""

    ctx_idx: int
    attr_id: int
    label: Label


class RunLabel(NamedTuple):
    """A labelled pair of a run: its combined fractions, or the hard label its source shipped."""

    profile_id: int
    ctx_idx: int
    attr_id: int
    necessary: float | None
    private: float | None
    hard_label: Label | None  # None: derive the label from the fractions by a rule


class PairLabel(NamedTuple):
    """One label row of an (attribute, context) pair: a persona's fractions, or a hard label
    (then ``persona``, ``necessary``, ``private`` and ``unlabeled`` are None)."""

    attr_id: int
    persona: str | None
    necessary: float | None
    private: float | None
    unlabeled: float | None
    hard_label: Label | None


# ----------------------------------------------------------------------------- messages
class MessageRow(NamedTuple):
    """A stored message slot of a profile; ``shared_json`` is set for composition trials."""

    message_id: int
    ctx_idx: int
    trial: int
    num_to_share: int | None
    num_not_to_share: int | None
    shared_json: str | None  # [to_share, not_to_share] lists when not the full memory
    prompt: str | None
    text: str | None
    status: MessageStatus
    error: str | None


class NewMessage(NamedTuple):
    """A message to append (the store assigns its ``message_id``)."""

    profile_id: int
    ctx_idx: int
    trial: int
    num_to_share: int | None
    num_not_to_share: int | None
    shared_json: str | None
    prompt: str | None
    text: str | None
    status: MessageStatus
    error: str | None
    finish_reason: str | None = None  # the endpoint's (stop, length, ...); None: not known
    prompt_tokens: int | None = None  # of the call that made it; None: not known
    completion_tokens: int | None = None


class HealthMessage(NamedTuple):
    """A full-memory message of a run with what the health scan reads of it."""

    message_id: int
    profile_id: int
    profile: str  # the profile's name
    ctx_idx: int
    trial: int
    status: MessageStatus
    text: str | None
    finish_reason: str | None  # None: the source did not say


class MessageToJudge(NamedTuple):
    """A generated message with what a judge needs to find its profile's attributes."""

    message_id: int
    profile_id: int
    profile: str  # the profile's name
    ctx_idx: int
    trial: int
    text: str


class RunProgress(NamedTuple):
    """How far `cimem run` has come with a run (one row per run it made or makes)."""

    run_id: int
    pid: int  # the process making it, on ``host``
    host: str
    started_at: datetime
    updated_at: datetime
    finished_at: datetime | None  # None while it runs, or since it stopped unfinished
    total: int  # messages the run makes
    done: int  # messages stored, each with its judge's verdicts
    done_at_start: int  # of them, stored before this process began
    failed: int  # generation calls that failed after their retries
    cost: float  # USD of this process's calls so far


class MessageSlot(NamedTuple):
    """What a runner slot already holds."""

    message_id: int
    status: MessageStatus


@dataclass(frozen=True)
class MessageDetail:
    """One message with its run, profile, context, prompt and status (the audit's header)."""

    message_id: int
    run_id: int
    profile_id: int
    profile: str
    ctx_idx: int
    recipient: str
    task: str
    trial: int
    prompt: str | None
    text: str | None
    status: MessageStatus
    error: str | None


class Counterpart(NamedTuple):
    """The message of the same profile (by name), recipient, task and trial in another run (the
    lowest trial there when that run has no such trial)."""

    run_id: int
    message_id: int
    trial: int


class PairMessage(NamedTuple):
    """A message of one (context, attribute) pair and one judge's verdict on the attribute."""

    message_id: int
    trial: int
    text: str | None
    revealed: bool | None  # None: this judge left no verdict
    evidence: str | None


class CompositionMessage(NamedTuple):
    """A judged message of the memory-composition experiment, with its context."""

    profile_id: int
    ctx_idx: int
    num_not_to_share: int
    shared_json: str  # [to_share, not_to_share]
    revealed_keys: list[str]


# ----------------------------------------------------------------------------- verdicts
class VerdictRow(NamedTuple):
    message_id: int
    attr_id: int
    revealed: bool
    evidence: str | None


class JudgeVerdict(NamedTuple):
    """A verdict on one message, by judge."""

    judge_id: int
    attr_id: int
    revealed: bool
    evidence: str | None


class HumanVerdict(NamedTuple):
    """A person's verdict on one (message, attribute), as recorded (the history keeps every one;
    a reviewer's latest on a pair is that reviewer's current verdict). An ``adjudication``
    settles reviewers' disagreement on the pair."""

    message_id: int
    attr_id: int
    revealed: bool
    reviewer: str | None
    note: str | None
    created_at: datetime | None = None  # set by the store when None
    adjudication: bool = False


class HumanVerdictRow(NamedTuple):
    """A human verdict with what a reviewer reads to place it (the CSV export's row)."""

    message_id: int
    profile: str
    ctx_idx: int
    recipient: str
    task: str
    trial: int
    attr_id: int
    key: str
    revealed: bool
    reviewer: str | None
    note: str | None
    created_at: datetime
    current: bool  # its reviewer's latest verdict on the pair (adjudications apart)
    adjudication: bool


class Judgment(NamedTuple):
    """A judge's call on one message: its status and the raw reply (or error)."""

    status: JudgmentStatus
    raw: str | None


# ----------------------------------------------------------------------------- the call cache
class CachedCompletion(NamedTuple):
    """A completed model call, as the cache gives it back."""

    response: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None  # None: not known (calls cached before it was kept)


class CachedCall(NamedTuple):
    """A completed model call, as the cache stores it."""

    key: str  # sha256 of model, whole prompt, sampling parameters, trial
    model: str | None
    purpose: str
    response: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    created_at: datetime
    finish_reason: str | None = None

    def completion(self) -> CachedCompletion:
        return CachedCompletion(
            response=self.response,
            reasoning=self.reasoning,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            finish_reason=self.finish_reason,
        )


class PeopleLabelEntry(NamedTuple):
    """A person's label of one (person, task, attribute), named by text so it serves every run
    of that person (profile name, the context's recipient and task, the attribute key)."""

    profile: str
    recipient: str
    task: str
    attr_key: str
    label: PeopleLabel
    reviewer: str | None
    note: str | None = None
    created_at: datetime | None = None  # set by the store when None


class PeopleLabelRow(NamedTuple):
    """A recorded label, with whether it is its reviewer's latest on the pair (``current``)."""

    seq: int
    profile: str
    recipient: str
    task: str
    attr_key: str
    label: PeopleLabel
    reviewer: str | None
    note: str | None
    created_at: datetime
    current: bool


class PeoplePairLabel(NamedTuple):
    """A reviewer's current label of a pair of one run, by the run's ids."""

    profile_id: int
    ctx_idx: int
    attr_id: int
    label: PeopleLabel
    reviewer: str
