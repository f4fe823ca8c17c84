"""The judge's error rates, in one home: what people's verdicts show directly (missed and added
on the pairs they decided, :func:`audited_errors`), and the correction's estimates of sensitivity
and false-positive rate per stratum (:func:`rates`, from the audit's four groups of label and judge
verdict and the judge's counts over the whole run; :class:`ErrorRates`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.agreement import Agreement, wilson_interval
from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.cube import popcount
from cimem.analysis.metrics import Prepared

PRIOR = 0.5  # Jeffreys Beta(1/2, 1/2) for P(truly revealed | judge verdict)
STRATUM_NAMES = ("private", "share")
# Audited cells needed in each (label, judge verdict) group an estimate rests on: below that the
# error rates would come from the prior, not from people. Completeness rests on the two needed
# groups; Violation on all four (withheld attributes borrow the sensitivity pooled over both).
MIN_AUDITED = 5


@dataclass(frozen=True)
class ErrorRates:
    """A judge's estimated error rates in one stratum, with the audit behind them."""

    stratum: str
    sensitivity: float
    false_positive_rate: float
    audited: int
    audited_judge_yes: int
    audited_judge_no: int
    judge_yes_cells: int
    judge_no_cells: int


# --------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class Stratum:
    """The usable cells of one stratum, grouped by attribute (the unit of the propensity model)."""

    rows: np.ndarray  # pair rows
    group: np.ndarray  # per row: attribute group (0..G-1)
    n_groups: int
    m: np.ndarray  # per group: usable cells
    k: np.ndarray  # per group: cells the judge said revealed
    known_yes: np.ndarray  # per group: an audited cell people found revealed (Violation: = 1)
    aud_no_yes: np.ndarray  # per group: audited cells judge yes, people no
    aud_no_no: np.ndarray  # per group: audited cells judge no, people no
    aud_yes_no: np.ndarray  # per group: audited cells judge no, people yes
    aud_yes_yes: np.ndarray  # per group: audited cells judge yes, people yes
    # the four audit cells of the stratum: people yes/no given judge yes/no
    h_given_j: np.ndarray  # [2 (judge no, yes), 2 (people no, yes)] counts
    judge_cells: np.ndarray  # [2]: usable cells with judge no / yes
    hist: np.ndarray  # [G, S]: per group, how many of its rows (tasks) have each (n, k) shape
    shapes: np.ndarray  # [S, 2]: the distinct (usable cells n, judge yes k) of a row


def stratum_of(prep: Prepared, rows: np.ndarray, audit: AuditCells) -> Stratum:
    cube = prep.cube
    samples = prep.samples[cube.pair_ctx[rows]]
    m_row = popcount(samples)
    k_row = popcount(cube.pair_mask[rows] & samples)
    codes = prep.attr_group[cube.pair_attr[rows]]
    uniq, group = np.unique(codes, return_inverse=True)
    n_groups = len(uniq)
    m = np.bincount(group, weights=m_row, minlength=n_groups)
    k = np.bincount(group, weights=k_row, minlength=n_groups)
    pos = {int(r): i for i, r in enumerate(rows)}
    counts = np.zeros((4, n_groups))
    h_given_j = np.zeros((2, 2))
    for r, t, h in zip(audit.pair.tolist(), audit.trial.tolist(), audit.revealed.tolist()):
        i = pos.get(int(r))
        if i is None:
            continue
        bit = np.uint64(1) << np.uint64(t)
        if not (samples[i] & bit):
            continue  # not a usable sample of this computation
        j = int(bool(cube.pair_mask[rows[i]] & bit))
        h_given_j[j, int(h)] += 1
        counts[2 * j + int(h), group[i]] += 1
    judge_cells = np.array([float(m.sum() - k.sum()), float(k.sum())])
    shapes, shape_of_row = np.unique(np.stack([m_row, k_row], axis=1), axis=0, return_inverse=True)
    hist = np.zeros((n_groups, len(shapes)))
    np.add.at(hist, (group, shape_of_row.ravel()), 1.0)
    return Stratum(
        rows=rows,
        group=group,
        n_groups=n_groups,
        m=m,
        k=k,
        known_yes=(counts[1] + counts[3]) > 0,
        aud_no_no=counts[0],
        aud_yes_no=counts[1],
        aud_no_yes=counts[2],
        aud_yes_yes=counts[3],
        h_given_j=h_given_j,
        judge_cells=judge_cells,
        hist=hist,
        shapes=shapes,
    )


# --------------------------------------------------------------------------- error rates
def rates(strata: tuple[Stratum, ...], p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sensitivity and false-positive rate per replicate and stratum, from ``p[b, s, j]`` =
    P(truly revealed | judge verdict j, stratum s) and the verdict counts.

    The withheld (first) stratum has too few true statements to estimate how often the judge misses
    one; the judge never sees the labels, so it borrows the sensitivity pooled over all strata. The
    needed stratum, full of true statements, uses its own (pooling there could imply more true
    statements than cells when the judge treats the two kinds differently)."""
    tp = np.stack([st.judge_cells[1] * p[:, s, 1] for s, st in enumerate(strata)], axis=1)
    fn = np.stack([st.judge_cells[0] * p[:, s, 0] for s, st in enumerate(strata)], axis=1)
    own = tp / np.maximum(tp + fn, 1e-300)
    pooled = tp.sum(axis=1) / np.maximum((tp + fn).sum(axis=1), 1e-300)
    se = np.clip(np.concatenate([pooled[:, None], own[:, 1:]], axis=1), 1e-6, 1.0)
    fpr = np.empty_like(tp)
    for s, st in enumerate(strata):
        total = st.judge_cells.sum()
        true_yes = np.minimum(tp[:, s] / se[:, s], total)
        fp = st.judge_cells[1] - tp[:, s]
        fpr[:, s] = np.where(total - true_yes > 0, fp / np.maximum(total - true_yes, 1e-300), 0.0)
    fpr = np.clip(fpr, 0.0, 1 - 1e-6)
    return se, fpr


def posterior_mean(strata: tuple[Stratum, ...]) -> np.ndarray:
    h = np.stack([st.h_given_j for st in strata])  # [S, 2 (judge no, yes), 2 (people no, yes)]
    return ((h[..., 1] + PRIOR) / (h.sum(axis=2) + 2 * PRIOR))[None]


def posterior_draws(strata: tuple[Stratum, ...], n: int, rng: np.random.Generator) -> np.ndarray:
    h = np.stack([st.h_given_j for st in strata])
    return rng.beta(h[..., 1] + PRIOR, h[..., 0] + PRIOR, size=(n, *h.shape[:2]))


def thin_groups(strata: tuple[Stratum, ...]) -> list[str]:
    """The (label, judge verdict) groups with fewer than MIN_AUDITED audited cells, as
    "private, judge yes: 2" (label first, in STRATUM_NAMES order)."""
    out = []
    for name, st in zip(STRATUM_NAMES, strata):
        for j, verdict in ((1, "yes"), (0, "no")):
            n = int(st.h_given_j[j].sum())
            if n < min(MIN_AUDITED, st.judge_cells[j]):  # a group the run does not have is fine
                out.append(f"{name}, judge {verdict}: {n}")
    return out


def error_rate_rows(
    strata: tuple[Stratum, ...], se0: np.ndarray, fpr0: np.ndarray
) -> tuple[ErrorRates, ...]:
    """The plug-in error rates of each stratum with the audit counts behind them."""
    return tuple(
        ErrorRates(
            STRATUM_NAMES[s],
            float(se0[0, s]),
            float(fpr0[0, s]),
            int(st.h_given_j.sum()),
            int(st.h_given_j[1].sum()),
            int(st.h_given_j[0].sum()),
            int(st.judge_cells[1]),
            int(st.judge_cells[0]),
        )
        for s, st in enumerate(strata)
    )


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
