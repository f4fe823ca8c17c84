"""Correction benchmark: coverage of the corrected metrics' 95% intervals over a grid of regimes
with known truth (:mod:`cimem.analysis.audit.simulation`).

The run's structure is the demo's (10 profiles, 5 samples); its truth is the demo simulator's
for the cautious, erratic and over-sharing assistants, or drawn so that about 1%, 10%, 30% or 60%
of withheld attributes leak. A judge misses 5% or 30% of true reveals and adds 0.5% or 5% false
ones; people audit 100 or 800 cells in the audit's order. Per regime: coverage of Violation@5
and Completeness (share of seeds whose interval holds the truth), mean width and bias, and how
many seeds the audit could not support an interval. Goal: coverage >= 0.93 in every regime.

    python bench/correction.py [--seeds 100]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cimem.analysis.audit.simulation import (  # noqa: E402
    Trial,
    drawn_truth,
    simulate,
    simulator_truths,
)
from cimem.analysis.metrics import Prepared  # noqa: E402

MISSES = (0.05, 0.30)
FALSE_POSITIVES = (0.005, 0.05)
BUDGETS = (100, 800)
DRAWN = (0.01, 0.10, 0.30, 0.60)
INTERVAL_DRAWS = 10_000


@dataclass
class Tally:
    """One metric's results over a regime's seeds."""

    covered: int = 0
    estimated: int = 0
    widths: list[float] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)
    raw_errors: list[float] = field(default_factory=list)
    truths: list[float] = field(default_factory=list)

    def add(self, value, truth: float) -> None:
        self.truths.append(truth)
        self.raw_errors.append(value.raw - truth)
        if value.not_estimated:
            return
        self.estimated += 1
        lo, hi = value.ci95
        self.covered += lo <= truth <= hi
        self.widths.append(hi - lo)
        self.errors.append(value.mean - truth)

    def coverage(self) -> float:
        return self.covered / self.estimated if self.estimated else float("nan")

    def cells(self, seeds: int) -> str:
        if not self.estimated:
            return f"{'-':>6} {'-':>6} {'-':>7} {'-':>7} {seeds:>4}"
        return (
            f"{self.coverage():>6.2f} {np.mean(self.widths):>6.3f} {np.mean(self.errors):>+7.3f}"
            f" {np.mean(self.raw_errors):>+7.3f} {seeds - self.estimated:>4}"
        )


def demo_truths(db: Path) -> dict[str, Prepared]:
    from cimem.demo.simulate import build_demo_database
    from cimem.store import Store

    build_demo_database(db)
    with Store.open(db, read_only=True) as store:
        return simulator_truths(store)


def run_regime(truth_of, miss: float, fp: float, budget: int, seeds: int) -> tuple[Tally, Tally]:
    viol, comp = Tally(), Tally()
    for seed in range(seeds):
        trial: Trial = simulate(truth_of(seed), miss, fp, budget, seed, INTERVAL_DRAWS)
        viol.add(trial.result.violation, trial.true_violation)
        comp.add(trial.result.completeness, trial.true_completeness)
    return viol, comp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100, help="seeds per regime (default 100)")
    args = ap.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        demo = demo_truths(Path(tmp) / "demo.duckdb")
    base = demo["cautious"]
    truths = {f"demo {n}": (lambda seed, p=p: p) for n, p in demo.items()}
    for share in DRAWN:
        truths[f"drawn {share:.0%}"] = lambda seed, s=share: drawn_truth(
            base, s, np.random.default_rng([seed, 2])
        )
    print(f"{args.seeds} seeds per regime; Violation@5 then Completeness:")
    print(
        f"{'truth':<18} {'miss':>5} {'fp':>5} {'cells':>5} | {'trueV':>6} {'cover':>6} {'width':>6}"
        f" {'bias':>7} {'rawbias':>7} {'refd':>4} | {'trueC':>6} {'cover':>6} {'width':>6}"
        f" {'bias':>7} {'rawbias':>7} {'refd':>4}"
    )
    worst: dict[str, list[tuple[float, float]]] = {"violation": [], "completeness": []}
    for (name, truth_of), miss, fp, budget in itertools.product(
        truths.items(), MISSES, FALSE_POSITIVES, BUDGETS
    ):
        viol, comp = run_regime(truth_of, miss, fp, budget, args.seeds)
        print(
            f"{name:<18} {miss:>5.0%} {fp:>5.1%} {budget:>5} | {np.mean(viol.truths):>6.3f}"
            f" {viol.cells(args.seeds)} | {np.mean(comp.truths):>6.3f} {comp.cells(args.seeds)}",
            flush=True,
        )
        for metric, tally in (("violation", viol), ("completeness", comp)):
            if tally.estimated:
                worst[metric].append((tally.coverage(), float(np.mean(viol.truths))))
    print(f"({time.perf_counter() - started:.0f} s)")
    for metric, found in worst.items():
        covs = [c for c, _ in found]
        truth = [t for _, t in found]
        print(
            f"coverage ({metric}): min {min(covs):.2f} over {len(found)} regimes"
            f" (true Violation {min(truth):.1%}-{max(truth):.1%})"
        )


if __name__ == "__main__":
    main()
