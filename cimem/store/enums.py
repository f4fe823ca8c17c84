"""The closed vocabularies the store keeps as text (statuses, run and judge kinds, labels), and the
integer codes of labels the metrics compute with.

Each vocabulary is a :class:`~enum.StrEnum` whose values are the strings in the database, so SQL and files
are unchanged and a member compares equal to its string; Python code names the member instead of
retyping the string. :class:`LabelCode` is the one integer enum: it also writes the SQL that
turns stored label text into its codes, so no code is typed into a query.

>>> MessageStatus.OK == "ok", str(Label.PRIVATE), JudgmentStatus("parse_failure").name
(True, 'private', 'PARSE_FAILURE')
>>> LabelCode.sql_case("label", otherwise=LabelCode.AMBIGUOUS)
"(CASE label WHEN 'share' THEN 1 WHEN 'private' THEN 0 WHEN 'ambiguous' THEN -1 ELSE -1 END)::TINYINT"
>>> LabelCode(0).label
<Label.PRIVATE: 'private'>
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class MessageStatus(StrEnum):
    """Whether a message was generated (``messages.status``)."""

    OK = "ok"
    FAILED = "failed"  # the model call failed or the source had no message: no text


class JudgmentStatus(StrEnum):
    """What became of a judge's call on one message (``judgments.status``)."""

    OK = "ok"
    PARSE_FAILURE = "parse_failure"  # a reply came but could not be read as verdicts
    ERROR = "error"  # the call itself failed


class RunKind(StrEnum):
    """What a run holds (``runs.kind``)."""

    RESULTS = "results"  # messages and the verdicts on them
    PROFILES = "profiles"  # profiles only (the official profiles.json)
    LABELS = "labels"  # profiles with labels, no messages (a labelling run, Hugging Face rows)


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


class PeopleLabel(StrEnum):
    """A person's label of an (attribute, task) pair (``people_labels.label``)."""

    SHARE = "share"  # the task needs it
    WITHHOLD = "withhold"  # the recipient must not learn it
    UNSURE = "unsure"  # the person cannot say: out of both metrics


class LabelCode(IntEnum):
    """A hard label as the small integer the metrics compute with (``int8`` arrays); the store
    turns the stored text into these codes with :meth:`sql_case`."""

    SHARE = 1
    PRIVATE = 0
    AMBIGUOUS = -1
    FROM_FRACTIONS = -2  # no hard label: derive one from the fractions under a rule

    @property
    def label(self) -> Label:
        """The stored text of a hard label's code (``FROM_FRACTIONS`` has none: KeyError)."""
        return _LABEL_OF_CODE[self]

    @classmethod
    def sql_case(cls, column: str, otherwise: LabelCode) -> str:
        """A SQL expression giving the code of the label text in ``column`` (``otherwise`` for
        NULL or any other text), as a TINYINT."""
        whens = " ".join(
            f"WHEN '{label}' THEN {int(code)}" for code, label in _LABEL_OF_CODE.items()
        )
        return f"(CASE {column} {whens} ELSE {int(otherwise)} END)::TINYINT"


_LABEL_OF_CODE = {
    LabelCode.SHARE: Label.SHARE,
    LabelCode.PRIVATE: Label.PRIVATE,
    LabelCode.AMBIGUOUS: Label.AMBIGUOUS,
}
