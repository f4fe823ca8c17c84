"""Label sensitivity: Violation@n, Completeness and the ranking of runs under each labelling
scheme (:mod:`cimem.analysis.label_sources`), and the share of pairs each scheme leaves
ambiguous (out of both metrics) per domain.

Rankings are compared with the official scheme's by Kendall's tau-b over the runs both rank,
when there are at least three (two runs give only the sign of one comparison); a run a scheme
gives no value (no eligible pair) is left out of that comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from cimem.analysis.cube import HARD_FROM_FRACTIONS, LeakCube
from cimem.analysis.label_sources import OFFICIAL, Scheme, Source, persona_columns, relabelled
from cimem.analysis.labels import AMBIGUOUS
from cimem.analysis.level_curves import cohort_note_of, profile_set
from cimem.analysis.metrics import MetricOptions, compute
from cimem.analysis.options import labels_of
from cimem.store.columns import PersonaFractions
from cimem.store.rows import PeoplePairLabel

NO_FRACTIONS = "the run has hard labels only (no persona fractions to re-weigh)"
COMBINED_ONLY = (
    "the run has the combined fractions only, not each persona's (nothing to re-weigh by persona)"
)
MIN_RANKED = 3  # fewer runs: no tau (two runs give the sign of one comparison)
NO_PEOPLE = "people have labelled none of the run's pairs"
COHORT_REMEDY = "compare the rankings of runs of one profile set"


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings (ties in either count as neither concordant nor
    discordant, and shrink the denominator); nan with fewer than two values or a constant side.

    >>> kendall_tau_b([1, 2, 3], [1, 2, 3]), kendall_tau_b([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> round(kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 4]), 3)
    0.913
    """
    a, b = np.asarray(x, np.float64), np.asarray(y, np.float64)
    upper = np.triu_indices(len(a), k=1)
    da = np.sign(a[:, None] - a[None, :])[upper]
    db = np.sign(b[:, None] - b[None, :])[upper]
    denominator = np.sqrt(float(np.count_nonzero(da)) * float(np.count_nonzero(db)))
    return float(np.sum(da * db) / denominator) if denominator else float("nan")


@dataclass(frozen=True)
class RunUnderScheme:
    """One run's metrics under one scheme, and how its pairs were labelled."""

    scheme: str
    run_id: int | None
    run: str
    violation: float  # nan: no eligible pair under the scheme
    completeness: float
    share: int
    private: int
    ambiguous: int


@dataclass(frozen=True)
class RankAgreement:
    """How a scheme's ranking of the runs compares with the official scheme's."""

    scheme: str
    runs: int  # runs both schemes give a value
    violation_tau: float
    completeness_tau: float


@dataclass(frozen=True)
class DomainDiscard:
    """Pairs of one domain a scheme leaves ambiguous, summed over the runs."""

    scheme: str
    domain: str
    pairs: int
    ambiguous: int

    @property
    def share(self) -> float:
        return self.ambiguous / self.pairs if self.pairs else float("nan")


@dataclass
class Sensitivity:
    """Every scheme's metrics per run, rank agreement with the official scheme, and discards
    per domain. ``skipped`` says which (scheme, run) could not be computed and why."""

    options: MetricOptions
    judges: dict[str, str]  # run -> the judge its verdicts came from
    schemes: list[Scheme]
    results: list[RunUnderScheme] = field(default_factory=list)
    ranks: list[RankAgreement] = field(default_factory=list)
    discards: list[DomainDiscard] = field(default_factory=list)
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)  # scheme -> run -> why
    cohort: str | None = None  # runs of different profile sets: said, not hidden

    def ambiguous_share(self, scheme: str) -> float:
        """The share of the runs' labelled pairs the scheme leaves ambiguous (nan: none)."""
        mine = [r for r in self.results if r.scheme == scheme]
        total = sum(r.share + r.private + r.ambiguous for r in mine)
        return sum(r.ambiguous for r in mine) / total if total else float("nan")

    def by_run(self, metric: str) -> dict[str, dict[str, float]]:
        """``violation`` or ``completeness`` per run, then per scheme (a scheme that could not
        label a run has no entry there)."""
        out: dict[str, dict[str, float]] = {}
        for r in self.results:
            out.setdefault(r.run, {})[r.scheme] = getattr(r, metric)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.options.mode,
            "n": self.options.k,
            "judges": self.judges,
            "schemes": [{"name": s.name, "reads": s.describe()} for s in self.schemes],
            "baseline": OFFICIAL.name,
            "results": [asdict(r) for r in self.results],
            "rank_agreement": [asdict(r) for r in self.ranks],
            "discards_per_domain": [asdict(d) | {"share": d.share} for d in self.discards],
            "skipped": self.skipped,
            "cohort_note": self.cohort,
        }


@dataclass(frozen=True)
class RunLabels:
    """What one run brings to the comparison: its cube and the labels the schemes read."""

    cube: LeakCube
    fractions: PersonaFractions
    people: Sequence[PeoplePairLabel] = ()


def sensitivity(
    runs: Iterable[RunLabels], schemes: Sequence[Scheme], opts: MetricOptions
) -> Sensitivity:
    """Every scheme on every run (the official scheme always first, as the baseline). ``runs``
    is read once, in order: given lazily, one run's cube is in memory at a time."""
    ordered = [OFFICIAL, *(s for s in schemes if s != OFFICIAL)]
    out = Sensitivity(options=opts, judges={}, schemes=ordered)
    domains: dict[tuple[str, str], list[int]] = {}
    sets: list[tuple[str, str]] = []
    for run in runs:
        out.judges[run.cube.run] = run.cube.judge
        sets.append((run.cube.run, profile_set(run.cube)))
        _every_scheme(out, run, domains)
        del run  # dropped before the next run is read
    out.cohort = cohort_note_of(sets, remedy=COHORT_REMEDY)
    out.ranks = _rank_agreement(out.results, ordered)
    out.discards = [DomainDiscard(s, d, n, a) for (s, d), (n, a) in sorted(domains.items())]
    return out


def _every_scheme(
    out: Sensitivity, run: RunLabels, domains: dict[tuple[str, str], list[int]]
) -> None:
    """One run under each of ``out``'s schemes, added to its results and domain counts."""
    personas = persona_columns(run.cube, run.fractions) if len(run.fractions.persona) else None
    codes, names = pd.factorize(np.asarray(run.cube.attr_domain, dtype=object))
    codes[codes < 0] = len(names)  # an attribute without a domain: the last slot
    pair_domain = codes[run.cube.pair_attr]
    for scheme in out.schemes:
        why = _cannot(run, scheme.source)
        if why:
            out.skipped.setdefault(scheme.name, {})[run.cube.run] = why
            continue
        cube = relabelled(run.cube, scheme.source, personas, run.people)
        out.results.append(_under(cube, scheme, out.options))
        label = labels_of(cube, scheme.rule)
        _count_domains(pair_domain, list(names), label == AMBIGUOUS, scheme.name, domains)


def _cannot(run: RunLabels, source: Source) -> str | None:
    """Why a source cannot label a run, or None."""
    if source in (Source.PEOPLE, Source.REVIEWED):
        return None if run.people else NO_PEOPLE
    if source is not Source.COMBINED and not len(run.fractions.persona):
        has_combined = bool((run.cube.pair_hard == HARD_FROM_FRACTIONS).any())
        return COMBINED_ONLY if has_combined else NO_FRACTIONS
    return None


def _under(cube: LeakCube, scheme: Scheme, opts: MetricOptions) -> RunUnderScheme:
    m = compute(cube, replace(opts, label_rule=scheme.rule.name))
    pairs = m.discarded.pairs
    return RunUnderScheme(
        scheme=scheme.name,
        run_id=cube.info.run_id,
        run=cube.run,
        violation=m.violation.mean,
        completeness=m.completeness.mean,
        share=pairs.share,
        private=pairs.private,
        ambiguous=pairs.ambiguous,
    )


def _count_domains(
    pair_domain: np.ndarray,
    names: list[str | None],
    ambiguous: np.ndarray,
    scheme: str,
    into: dict[tuple[str, str], list[int]],
) -> None:
    """Add a run's pairs and ambiguous pairs per attribute domain (``pair_domain``: each pair's
    index into ``names``, -1 for none) under the scheme."""
    size = len(names) + 1  # the last slot: no domain
    pairs = np.bincount(pair_domain, minlength=size)
    left = np.bincount(pair_domain[ambiguous], minlength=size)
    for i, name in enumerate([*names, None]):
        if pairs[i]:
            counts = into.setdefault((scheme, name or "(none)"), [0, 0])
            counts[0] += int(pairs[i])
            counts[1] += int(left[i])


def _rank_agreement(
    results: Sequence[RunUnderScheme], schemes: Sequence[Scheme]
) -> list[RankAgreement]:
    """Each scheme's Kendall tau-b against the official scheme, over the runs both rank."""
    by: Mapping[str, dict[str, RunUnderScheme]] = {
        s.name: {r.run: r for r in results if r.scheme == s.name} for s in schemes
    }
    base = by[OFFICIAL.name]
    out = []
    for scheme in schemes:
        mine = by[scheme.name]
        taus = []
        for metric in ("violation", "completeness"):
            both = [
                (getattr(base[r], metric), getattr(mine[r], metric))
                for r in base
                if r in mine
                and not np.isnan(getattr(base[r], metric))
                and not np.isnan(getattr(mine[r], metric))
            ]
            tau = kendall_tau_b([x for x, _ in both], [y for _, y in both])
            taus.append(tau if len(both) >= MIN_RANKED else float("nan"))
        runs = sum(1 for r in base if r in mine)
        out.append(RankAgreement(scheme.name, runs, taus[0], taus[1]))
    return out
