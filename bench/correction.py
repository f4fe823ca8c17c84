"""Correction benchmark: coverage of the corrected metrics' 95% intervals over a grid of regimes
with known truth (:mod:`cimem.analysis.audit.simulation`).

The run's structure is the demo's (10 profiles, 5 samples), and with ``../shared`` present also
the benchmark's fabricated full-size run (10 profiles x 49 tasks x 5 samples, its own verdicts
the truth). Truths: the demo simulator's cautious, erratic and over-sharing assistants; dense
drawn truths, where about 1%, 10%, 30% or 60% of withheld attributes leak and a leak shows in
many cells; sparse ones, where 3%, 10% or 26% leak and a leak mostly shows in one cell (as in the
fabricated run). A judge misses 5% or 30% of stated needed facts and adds 0.5% or 5% false ones,
and misses stated withheld facts 1, 1.5, 2 or 3 times as often as needed ones (the method allows
for up to 2); people audit 100 or 800 cells in the audit's order. Per regime: coverage of
Violation@5 and Completeness (share of seeds whose interval holds the truth), mean width, bias
of the corrected point and of the raw number, and how many seeds the audit could not support an
interval. Goal: coverage >= 0.93 in every regime within the method's assumption (ratio <= 2).

    python bench/correction.py [--seeds 100] [--jobs 2]
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cimem.analysis.audit.estimate import WITHHELD_MISS_RATIO  # noqa: E402
from cimem.analysis.audit.simulation import (  # noqa: E402
    Trial,
    drawn_truth,
    simulate,
    simulator_truths,
    sparse_truth,
)
from cimem.analysis.metrics import MetricOptions, Prepared, prepare  # noqa: E402

MISSES = (0.05, 0.30)
FALSE_POSITIVES = (0.005, 0.05)
BUDGETS = (100, 800)
RATIOS = (1.0, 1.5, 2.0, 3.0)  # withheld facts missed this many times as often as needed ones
DENSE = (0.01, 0.10, 0.30, 0.60)
SPARSE = (0.03, 0.10, 0.26)
INTERVAL_DRAWS = 10_000
SHARED = Path(__file__).resolve().parents[2] / "shared"


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


def fabricated_truth(folder: Path) -> Prepared | None:
    """The benchmark's fabricated full-size run (its verdicts the truth), when ../shared is here."""
    from cimem.analysis.cube_file import cube_from_official

    tool, profiles = SHARED / "tools" / "fabricate_results.py", SHARED / "cimemories/profiles.json"
    if not tool.exists() or not profiles.exists():
        return None
    out = folder / "fabricated.jsonl"
    subprocess.run([sys.executable, str(tool), str(profiles), str(out), "--seed", "1"], check=True)
    return prepare(cube_from_official(out), MetricOptions())


def truths() -> dict[str, object]:
    """Each truth by name: a prepared run, or a function of the seed that draws one."""
    with tempfile.TemporaryDirectory() as tmp:
        demo = demo_truths(Path(tmp) / "demo.duckdb")
        fabricated = fabricated_truth(Path(tmp))
    base = demo["cautious"]
    out: dict[str, object] = {f"demo {n}": p for n, p in demo.items()}
    for share in DENSE:
        out[f"dense {share:.0%}"] = (drawn_truth, base, share)
    for share in SPARSE:
        out[f"sparse {share:.0%}"] = (sparse_truth, base, share)
    if fabricated is not None:
        out["fabricated"] = fabricated
    return out


def truth_for(spec: object, seed: int) -> Prepared:
    if isinstance(spec, tuple):
        draw, base, share = spec
        return draw(base, share, np.random.default_rng([seed, 2]))
    assert isinstance(spec, Prepared)
    return spec


def run_regime(args: tuple) -> tuple[Tally, Tally]:
    spec, miss, fp, budget, ratio, seeds, allowed = args
    viol, comp = Tally(), Tally()
    for seed in range(seeds):
        trial: Trial = simulate(
            truth_for(spec, seed), miss, fp, budget, seed, INTERVAL_DRAWS, ratio, allowed
        )
        viol.add(trial.result.violation, trial.true_violation)
        comp.add(trial.result.completeness, trial.true_completeness)
    return viol, comp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100, help="seeds per regime (default 100)")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument(
        "--allowed",
        type=float,
        default=WITHHELD_MISS_RATIO,
        help="how many times the needed miss rate the method allows on withheld facts (default"
        f" {WITHHELD_MISS_RATIO:g}, cimem's; 1 is the earlier assumption of equal rates)",
    )
    args = ap.parse_args()
    started = time.perf_counter()
    grid = [
        (name, spec, miss, fp, budget, ratio)
        for (name, spec), ratio, miss, fp, budget in itertools.product(
            truths().items(), RATIOS, MISSES, FALSE_POSITIVES, BUDGETS
        )
    ]
    print(
        f"{args.seeds} seeds per regime; the method allows withheld facts to be missed up to"
        f" {args.allowed:g} times as often as needed ones. Violation@5 then Completeness:"
    )
    print(
        f"{'truth':<16} {'ratio':>5} {'miss':>5} {'fp':>5} {'cells':>5} | {'trueV':>6} {'cover':>6}"
        f" {'width':>6} {'bias':>7} {'rawbias':>7} {'refd':>4} | {'trueC':>6} {'cover':>6}"
        f" {'width':>6} {'bias':>7} {'rawbias':>7} {'refd':>4}"
    )
    worst: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        jobs = [
            (spec, miss, fp, budget, ratio, args.seeds, args.allowed)
            for _, spec, miss, fp, budget, ratio in grid
        ]
        for (name, _, miss, fp, budget, ratio), (viol, comp) in zip(
            grid, pool.map(run_regime, jobs)
        ):
            print(
                f"{name:<16} {ratio:>5g} {miss:>5.0%} {fp:>5.1%} {budget:>5} |"
                f" {np.mean(viol.truths):>6.3f} {viol.cells(args.seeds)} |"
                f" {np.mean(comp.truths):>6.3f} {comp.cells(args.seeds)}",
                flush=True,
            )
            within = ratio <= args.allowed
            for metric, tally in (("violation", viol), ("completeness", comp)):
                if tally.estimated:
                    found = worst.setdefault((metric, within), [])
                    found.append((tally.coverage(), float(np.mean(viol.truths))))
    print(f"({time.perf_counter() - started:.0f} s)")
    for (metric, within), found in sorted(worst.items(), key=lambda kv: (not kv[0][1], kv[0][0])):
        covs = [c for c, _ in found]
        truth = [t for _, t in found]
        where = (
            f"ratio <= {args.allowed:g} (the method's assumption)"
            if within
            else f"ratio > {args.allowed:g} (outside it)"
        )
        print(
            f"coverage ({metric}, {where}): min {min(covs):.2f}, mean {np.mean(covs):.3f} over"
            f" {len(found)} regimes (true Violation {min(truth):.1%}-{max(truth):.1%})"
        )


if __name__ == "__main__":
    main()
