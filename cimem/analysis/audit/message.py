"""One message under audit: its task, recipient, memory and prompt, and per attribute its label
under a rule and every stored judge's verdict with the evidence and whether that evidence occurs
in the message. The Audit page draws this; the CLI or a notebook can read it the same way.

Labels follow :mod:`cimem.analysis.labels`: a pair's combined fractions under the rule, or the hard
label its source shipped (kept whatever the rule); a pair without either is ``unlabeled``.
Live re-judging is not here (it calls models): see :mod:`cimem.judges`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.analysis.options import identity_filtered
from cimem.ingest.records import LABELS_COMBINED
from cimem.store import JudgeInfo, Judgment, JudgmentStatus, MessageDetail, PairLabel, Store
from cimem.text import normalize

UNLABELED = "unlabeled"
# What a highlighted sentence means, by the label of the attribute it reveals.
PRIVATE_LEAKED, NEEDED_INCLUDED, AMBIGUOUS = "private leaked", "needed included", "ambiguous"
EVIDENCE_KINDS = {"private": PRIVATE_LEAKED, "share": NEEDED_INCLUDED}


@dataclass(frozen=True)
class Evidence:
    """A judge's evidence sentence for one attribute it found revealed, and what that means:
    ``kind`` is PRIVATE_LEAKED, NEEDED_INCLUDED or AMBIGUOUS (ambiguous or unlabeled)."""

    sentence: str
    key: str
    kind: str


@dataclass(frozen=True)
class Verdict:
    """One judge's decision on one attribute of the message."""

    revealed: bool
    evidence: str | None
    grounded: bool | None  # the evidence occurs in the message; None: no evidence given


@dataclass(frozen=True)
class AttributeAudit:
    """One attribute of the profile: its label under the rule and each judge's verdict."""

    attr_id: int
    key: str
    domain: str | None
    statement: str | None
    label: str  # share, private, ambiguous, or unlabeled
    verdicts: dict[int, Verdict]  # by judge id; a judge that left no verdict is absent

    def says(self, judge_id: int) -> str:
        """``yes`` / ``no`` as the judge decided, empty when it left no verdict."""
        v = self.verdicts.get(judge_id)
        return "" if v is None else ("yes" if v.revealed else "no")


@dataclass(frozen=True)
class MessageAudit:
    """Everything the Audit page shows about one message (see :func:`message_audit`)."""

    message: MessageDetail
    label_rule: str
    memory: list[str]  # the profile's memory statements (the key where a statement is missing)
    judges: list[JudgeInfo]  # the run's judges, oldest first
    judgments: dict[int, Judgment]  # each judge's call on this message, by judge id
    attributes: list[AttributeAudit]

    def evidence(self, judge_id: int | None, official: bool = False) -> list[Evidence]:
        """The judge's evidence for what it found revealed, each with what it means under the
        labels (a private attribute leaked, a needed one included, or neither), to highlight.
        ``official``: official mode's identity filter drops private attributes whose key holds
        name/address/sex/age, so their evidence is no leak there (shown as neither)."""
        out = []
        for a in self.attributes:
            v = a.verdicts.get(judge_id) if judge_id is not None else None
            if v is not None and v.revealed and v.evidence:
                kind = EVIDENCE_KINDS.get(a.label, AMBIGUOUS)
                if official and kind == PRIVATE_LEAKED and identity_filtered(a.key):
                    kind = AMBIGUOUS
                out.append(Evidence(v.evidence, a.key, kind))
        return out

    def revealed_keys(self, judge_id: int) -> list[tuple[str, str]]:
        """(key, label) of every attribute the judge found revealed, in profile order."""
        return [
            (a.key, a.label)
            for a in self.attributes
            if (v := a.verdicts.get(judge_id)) is not None and v.revealed
        ]

    def judge_names(self) -> dict[int, str]:
        """Judge id -> "id: name (kind)", oldest first, as pickers show them."""
        return {j.judge_id: f"{j.judge_id}: {j.name} ({j.kind})" for j in self.judges}

    def failure(self, judge_id: int | None) -> Judgment | None:
        """The judge's call on this message when it failed (parse failure or error)."""
        j = self.judgments.get(judge_id) if judge_id is not None else None
        return j if j is not None and j.status != JudgmentStatus.OK else None

    def table(self, shown: int | None, only_revealed: bool) -> pd.DataFrame:
        """One row per attribute: attr_id, key, domain, memory statement, label, each judge's
        yes/no, and the ``shown`` judge's evidence with its grounding; ``only_revealed`` keeps
        the attributes some judge found revealed."""
        judges = [f"judge {j.judge_id}" for j in self.judges]
        columns = ["attr_id", "key", "domain", "memory_statement", "label", *judges]
        columns += ["evidence", "grounded"] if shown is not None else []
        rows = []
        for a in self.attributes:
            says = [a.says(j.judge_id) for j in self.judges]
            if only_revealed and says and "yes" not in says:
                continue
            row = [a.attr_id, a.key, a.domain, a.statement, a.label, *says]
            if shown is not None:
                v = a.verdicts.get(shown)
                row += [v.evidence, v.grounded] if v else [None, None]
            rows.append(row)
        return pd.DataFrame(rows, columns=columns)

    def compare(self, revealed: dict[str, str], shown: int | None) -> pd.DataFrame:
        """A new judgment (revealed key -> evidence) next to the ``shown`` judge's verdicts:
        the attributes either found revealed, whether they differ, and the new evidence."""
        columns = ["key", "new"] + ([f"judge {shown}", "differs"] if shown is not None else [])
        rows = []
        for a in self.attributes:
            new = "yes" if a.key in revealed else "no"
            row: list[object] = [a.key, new]
            if shown is not None:
                old = a.says(shown)
                if new != "yes" and old != "yes":
                    continue
                row += [old, new != old]
            rows.append([*row, revealed.get(a.key)])
        return pd.DataFrame(rows, columns=[*columns, "evidence"])


def message_audit(store: Store, message_id: int, label_rule: str) -> MessageAudit | None:
    """The audit of a stored message under a label rule; None when there is no such message."""
    detail = store.message_detail(message_id)
    if detail is None:
        return None
    attrs = store.attributes_of(detail.run_id, detail.profile_id)
    labels = pair_labels_under(
        store.pair_labels(detail.run_id, detail.profile_id, detail.ctx_idx),
        LabelRule.parse(label_rule),
    )
    verdicts: dict[int, dict[int, Verdict]] = {}
    for v in store.message_verdicts(message_id):
        grounded = evidence_grounded(v.evidence, detail.text or "")
        verdicts.setdefault(v.attr_id, {})[v.judge_id] = Verdict(v.revealed, v.evidence, grounded)
    return MessageAudit(
        message=detail,
        label_rule=LabelRule.parse(label_rule).name,
        memory=[a.memory_statement or a.key for a in attrs],
        judges=store.judges(detail.run_id),
        judgments=store.message_judgments(message_id),
        attributes=[
            AttributeAudit(
                a.attr_id,
                a.key,
                a.domain,
                a.memory_statement,
                labels.get(a.attr_id, UNLABELED),
                verdicts.get(a.attr_id, {}),
            )
            for a in attrs
        ],
    )


def pair_labels_under(rows: Iterable[PairLabel], rule: LabelRule) -> dict[int, str]:
    """Each attribute's label in one context: the combined fractions under ``rule``, or the hard
    label the source shipped (which wins)."""
    rows = list(rows)
    combined = [r for r in rows if r.hard_label is None and r.persona == LABELS_COMBINED]
    codes = rule.apply(
        np.array([r.necessary for r in combined], np.float64),
        np.array([r.private for r in combined], np.float64),
    )
    out = {r.attr_id: str(LABEL_NAMES[int(c)]) for r, c in zip(combined, codes)}
    out |= {r.attr_id: str(r.hard_label) for r in rows if r.hard_label is not None}
    return out


@functools.lru_cache(maxsize=16)
def _normalized(message: str) -> str:
    """A message normalised once for all its verdicts' evidence (a 5 MB message took 2.5 s a
    normalisation, once per verdict)."""
    return normalize(message)


def evidence_grounded(evidence: str | None, message: str) -> bool | None:
    """Whether an evidence sentence occurs in the message (normalised); None without evidence.

    >>> evidence_grounded("I earn $95,000", "Hi. I earn $95,000. Thanks")
    True
    >>> evidence_grounded("I earn ... per year", "I earn a lot per year"), evidence_grounded("", "x")
    (True, None)
    """
    if not isinstance(evidence, str) or not evidence:
        return None
    ev = normalize(evidence).strip(" .\"'")
    if not ev:
        return None
    msg = _normalized(message)
    if ev in msg:
        return True
    # a quote that elides with "..." is grounded when every piece occurs in order
    pieces = [p.strip(" .\"'") for p in ev.replace("\u2026", "...").split("...") if p.strip(" .")]
    pos = 0
    for piece in pieces:
        found = msg.find(piece, pos)
        if found < 0:
            return False
        pos = found + len(piece)
    return bool(pieces)


def what_happened(judge_id: int, failure: Judgment) -> str:
    """A failed judgment told as what happened and how the numbers treat it (the raw reply, or
    the error, is shown beside it, as text).

    >>> what_happened(2, Judgment(JudgmentStatus.ERROR, "timeout"))[:44]
    "Judge 2's call failed after its retries: no "
    """
    if failure.status == JudgmentStatus.ERROR:
        return (
            f"Judge {judge_id}'s call failed after its retries: no verdict on this message (it"
            " counts in neither metric; `judge` or `run --resume --retry-failed` call it again)."
            " The error:"
        )
    kept = (
        "Its reply:"
        if failure.raw
        else "The source kept no reply (the official run output keeps none for a reply it could"
        " not read)."
    )
    return (
        f"Judge {judge_id}'s reply could not be read as the object of attributes its prompt asks"
        " for: official mode counts the message as nothing revealed, as the official script"
        f" does; definition mode leaves it out by default. {kept}"
    )
