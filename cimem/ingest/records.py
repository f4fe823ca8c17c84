"""The records every importer emits, whatever the source format.

An importer yields one :class:`RunMeta`, then one :class:`ProfileRecord` per profile. Indices inside
a profile record are local (attribute and message positions in the record); the writer turns them
into database ids. Columns are plain lists or numpy arrays so big files stay fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cimem.store.enums import JudgeKind, RunKind

if TYPE_CHECKING:
    from cimem.store import Store

Progress = Callable[[int, int], None]
"""progress(done, total), in the importer's unit (bytes for files)."""

LABELS_COMBINED = "combined"


MESSAGE_COLUMNS = (
    "ctx_idx",
    "trial",
    "num_to_share",
    "num_not_to_share",
    "shared_json",
    "prompt",
    "text",
    "status",
    "error",
)
"""The message columns every reader fills (see :attr:`ProfileRecord.messages`)."""
ENDING_COLUMNS = ("finish_reason", "prompt_tokens", "completion_tokens")
"""The message columns a reader fills when its format says how a generation ended."""


@dataclass
class JudgeMeta:
    """The judge whose verdicts a source file carries."""

    name: str
    kind: JudgeKind = JudgeKind.IMPORTED
    model: str | None = None
    prompt_hash: str | None = None
    config: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunMeta:
    """How a run was made, as far as the source says."""

    name: str
    kind: RunKind
    source_format: str  # a SourceFormat, or "runner" for a run cimem makes
    model: str | None = None
    prompt_set: str | None = None
    level: int | None = None
    memory_format: str | None = None
    simulated: bool = False
    judge: JudgeMeta | None = None
    config: dict[str, Any] = field(default_factory=dict)
    # what the reader writes once the run's rows are, in the import's transaction (an Inspect
    # log's further judges); returns the verdicts it wrote
    after: Callable[[Store, int], int] | None = None


@dataclass(frozen=True)
class Told:
    """What the person importing a file says made its run, where the file does not say it (or
    says it otherwise): these take precedence over the file's own. ``judge_model`` and
    ``judge_prompt_hash`` describe the judge whose verdicts the file carries."""

    name: str | None = None
    model: str | None = None
    level: int | None = None
    memory_format: str | None = None
    judge_model: str | None = None
    judge_prompt_hash: str | None = None
    simulated: bool | None = None

    def joined(self, **more: Any) -> Told:
        """These, with the values of ``more`` that are given (not None or empty)."""
        return replace(self, **{k: v for k, v in more.items() if v not in (None, "")})

    def apply(self, meta: RunMeta) -> None:
        """Write what was told into the run's description read from the file."""
        for field_name in ("name", "model", "level", "memory_format", "simulated"):
            value = getattr(self, field_name)
            if value is not None:
                setattr(meta, field_name, value)
        if meta.judge is not None:
            if self.judge_model is not None:
                meta.judge.model = self.judge_model
            if self.judge_prompt_hash is not None:
                meta.judge.prompt_hash = self.judge_prompt_hash


@dataclass
class Attribute:
    key: str
    value_json: str | None
    domain: str | None
    event: str | None
    memory_statement: str | None


@dataclass
class ProfileRecord:
    """One profile with its attributes, contexts, labels, messages and verdicts."""

    name: str
    sex: str | None = None
    address: str | None = None
    age: str | None = None
    bio_json: str | None = None
    attributes: list[Attribute] = field(default_factory=list)
    contexts: list[tuple[str, str, str | None]] = field(
        default_factory=list
    )  # recipient, task, prompt
    # persona label columns: ctx_idx, attr_idx, persona_code (an index into personas, the
    # labellers' names), fractions (necessary, private, unlabeled: one row of three per label)
    persona_labels: dict[str, Any] = field(default_factory=dict)
    # hard label columns: ctx_idx, attr_idx, label
    hard_labels: dict[str, Any] = field(default_factory=dict)
    # message columns: ctx_idx, trial, num_to_share, num_not_to_share, shared_json, prompt, text,
    # status, error; and, when the format has them, finish_reason, prompt_tokens, completion_tokens
    # (a column left out is NULL: not known)
    messages: dict[str, list] = field(default_factory=dict)
    # judgment columns: msg_idx, status, raw
    judgments: dict[str, list] = field(default_factory=dict)
    # verdict columns: msg_idx, attr_idx, revealed, evidence
    verdicts: dict[str, Any] = field(default_factory=dict)

    @property
    def n_messages(self) -> int:
        return len(self.messages.get("ctx_idx", ()))
