"""The discard report: what a metric computation left out, and why.

Every number of :mod:`cimem.analysis.metrics` comes with one. It explains the difference between
official and definition mode: pairs by label, the official identity filter, keys excluded by
choice, contexts dropped from both metrics, how profiles and contexts were grouped, and what
happened to the trials. :meth:`DiscardReport.as_dict` is the ``discarded`` object of
``cimem metrics --json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class PairCounts:
    """Labelled (context, attribute) pairs by label; ambiguous pairs are out of both metrics."""

    share: int
    private: int
    ambiguous: int


@dataclass(frozen=True)
class IdentityFilter:
    """Official mode: private attributes whose key names an identity field leave the private set."""

    rule: str
    attributes: int
    keys: list[str]
    private_pairs_removed: int


@dataclass(frozen=True)
class ExcludedKeys:
    """Definition mode: keys the user left out of the private set."""

    keys: list[str]
    private_pairs_removed: int


@dataclass(frozen=True)
class DroppedContext:
    profile: str
    recipient: str
    task: str
    reason: str


@dataclass(frozen=True)
class ContextsDropped:
    """Contexts out of both metrics (official mode: no needed or no private attribute)."""

    contexts: list[DroppedContext] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.contexts)


@dataclass(frozen=True)
class Grouping:
    """Official mode groups profiles by name and contexts by task text, as the script does."""

    profiles_merged_by_name: int
    contexts_merged_by_task: int


PARTIAL_COUNTED = (
    "counted beside the full-memory ones (the official script counts every trial key; an"
    " attribute their memory left out reads as not revealed)"
)
PARTIAL_LEFT_OUT = "left out (the composition views read them)"


@dataclass(frozen=True)
class TrialCounts:
    """Full-memory message slots by what happened to them under this judge, and the
    partial-memory trials (the composition experiment) with how the mode treats them."""

    messages: int
    parse_failures: int
    parse_failures_treated: str
    failed_generations: int
    judge_errors: int
    not_judged: int
    partial_memory: int = 0  # trials whose memory held part of the profile
    partial_memory_treated: str = ""
    partial_memory_not_read: int = 0  # of them, past the 64 samples a task holds
    full_memory_per_task: int = 0  # the most full-memory trials a task has (runs with partial)

    def n_said(self, n: int, official: bool) -> str:
        """What n counts: the full-memory trials per task and, where the run has them, the
        partial-memory trials counted beside them at every k (official) or left out.

        >>> counts = TrialCounts(10, 0, "", 0, 0, 0, partial_memory=4, full_memory_per_task=1)
        >>> counts.n_said(2, official=True)
        '1 full-memory trial (+ 4 partial-memory trials, counted at every k)'
        """
        if not self.partial_memory:
            return str(n)
        n = self.full_memory_per_task
        trials = "trial" if n == 1 else "trials"
        how = "counted at every k" if official else "left out"
        return f"{n} full-memory {trials} (+ {self.partial_memory:,} partial-memory trials, {how})"

    def partial_sentence(self) -> str | None:
        """The partial-memory trials in one clause (None: the run has none)."""
        if not self.partial_memory:
            return None
        beyond = (
            f"; {self.partial_memory_not_read:,} of them past the 64 samples a task holds, not"
            " read (official mode then differs from the official script)"
            if self.partial_memory_not_read
            else ""
        )
        return (
            f"{self.partial_memory:,} partial-memory trials, {self.partial_memory_treated}{beyond}"
        )


@dataclass(frozen=True)
class DiscardReport:
    pairs: PairCounts
    label_rule: str
    contexts_dropped: ContextsDropped
    trials: TrialCounts
    identity_filter: IdentityFilter | None = None  # official mode
    grouping: Grouping | None = None  # official mode
    excluded_keys: ExcludedKeys | None = None  # definition mode with excluded keys
    note: str | None = None
    # {metric: names of profiles (groups) with nothing eligible for it}
    profiles_without_eligible_set: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape: absent parts are left out, in the order the report is read."""
        out: dict[str, Any] = {"pairs": asdict(self.pairs), "label_rule": self.label_rule}
        if self.identity_filter is not None:
            out["identity_filter"] = asdict(self.identity_filter)
        if self.excluded_keys is not None:
            out["excluded_keys"] = asdict(self.excluded_keys)
        out["contexts_dropped"] = {
            "count": self.contexts_dropped.count,
            "list": [asdict(c) for c in self.contexts_dropped.contexts],
        }
        if self.grouping is not None:
            out["grouping"] = asdict(self.grouping)
        out["trials"] = asdict(self.trials)
        if self.note is not None:
            out["note"] = self.note
        if self.profiles_without_eligible_set:
            out["profiles_without_eligible_set"] = dict(self.profiles_without_eligible_set)
        return out
