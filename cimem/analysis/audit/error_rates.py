"""The judge's errors as people's verdicts show them: what it missed and added on the pairs
people decided (:func:`audited_errors`). The correction's own use of them is :mod:`.estimate`'s."""

from __future__ import annotations

from dataclasses import dataclass

from cimem.analysis.agreement import Agreement, wilson_interval


# --------------------------------------------------------------------------- seen by people
@dataclass(frozen=True)
class AuditedErrors:
    """A judge against people's verdicts on the pairs people decided, in one label: what it
    missed (people found it revealed, the judge did not) and added (the reverse), each with a
    Wilson 95% interval (None when no pair of that truth was decided)."""

    label: str
    decided: int
    missed: int
    truly_yes: int
    missed_ci95: tuple[float, float] | None
    added: int
    truly_no: int
    added_ci95: tuple[float, float] | None


def audited_errors(ag: Agreement) -> list[AuditedErrors]:
    """Per label, the judge's errors in ``ag`` (judge A: the judge, judge B: people).

    >>> from cimem.analysis.agreement import AgreementStats
    >>> import numpy as np
    >>> judge, people = np.array([1, 1, 0, 0], bool), np.array([1, 0, 1, 1], bool)
    >>> stats = AgreementStats.of(judge, people)
    >>> e = audited_errors(Agreement(1, 2, "unanimous", stats, {"private": stats}, {}, {}))[0]
    >>> (e.label, e.decided, e.missed, e.truly_yes, e.added, e.truly_no)
    ('private', 4, 2, 3, 1, 1)
    """
    out = []
    for label, v in ag.by_label.items():
        c = v.confusion
        truly_yes, truly_no = c["both_yes"] + c["b_only"], c["a_only"] + c["both_no"]
        out.append(
            AuditedErrors(
                label,
                v.n,
                c["b_only"],
                truly_yes,
                wilson_interval(c["b_only"], truly_yes) if truly_yes else None,
                c["a_only"],
                truly_no,
                wilson_interval(c["a_only"], truly_no) if truly_no else None,
            )
        )
    return out
