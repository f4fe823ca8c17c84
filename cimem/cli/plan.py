"""``plan``: how many profiles tell two runs apart at a chosen difference, or give one run a
chosen margin, from pilot runs, and what that costs in calls (docs/statistics.md)."""

from __future__ import annotations

import argparse
import json

from cimem.analysis.cube import LeakCube
from cimem.analysis.metrics import RunMetrics, compute
from cimem.analysis.planner import METRICS, MetricPlan, calls, plan
from cimem.analysis.power import MAX_PROFILES, POWER
from cimem.cli.common import jsonable, table
from cimem.cli.sources import add_metric_args, add_source_args, map_runs, options_from
from cimem.errors import CimemError


def cmd_plan(args: argparse.Namespace) -> int:
    def digest(cube: LeakCube) -> tuple[RunMetrics, int]:
        tasks = len(set(zip(cube.ctx_recipient, cube.ctx_task)))
        return compute(cube, options_from(args, args.mode)), tasks

    pilots = map_runs(args, True, digest)
    if len(pilots) > 2:
        raise CimemError(f"plan takes one or two pilot runs; {len(pilots)} were named (--run)")
    a, contexts = pilots[0]
    b = pilots[1][0] if len(pilots) == 2 else None
    plans = plan(a, b, args.difference / 100, args.margin / 100)
    trials = args.trials or a.n_trials
    if args.json:
        print(json.dumps(jsonable(_document(args, a, b, plans, contexts, trials)), indent=1))
    else:
        print("\n".join(_lines(args, a, b, plans, contexts, trials)))
    return 0


def _document(
    args: argparse.Namespace,
    a: RunMetrics,
    b: RunMetrics | None,
    plans: list[MetricPlan],
    contexts: int,
    trials: int,
) -> dict[str, object]:
    return {
        "runs": [a.run] + ([b.run] if b else []),
        "mode": args.mode,
        "difference_points": args.difference,
        "margin_points": args.margin,
        "power": POWER,
        "trials": trials,
        "contexts": contexts,
        "metrics": [p.as_dict() for p in plans],
        "calls_per_profile": calls(1, contexts, trials),
    }


def _count(n: int) -> str:
    return "out of reach" if n >= MAX_PROFILES else f"{n:,}"


def _lines(
    args: argparse.Namespace,
    a: RunMetrics,
    b: RunMetrics | None,
    plans: list[MetricPlan],
    contexts: int,
    trials: int,
) -> list[str]:
    pilots = f"runs {a.run} and {b.run}" if b else f"run {a.run} (a second run assumed"
    pilots += "" if b else " to correlate 0.5 with it over the same profiles)"
    rows = []
    for p, (_, title) in zip(plans, METRICS):
        need = max(p.profiles_for_difference, 2)
        rows.append(
            (
                title,
                f"{100 * p.spread:.2f}",
                "-" if p.correlation is None else f"{p.correlation:.2f}",
                str(p.pilot_profiles),
                "-" if p.power_now is None else f"{p.power_now:.2f}",
                _count(need),
                _count(p.profiles_for_margin),
                _count(calls(need, contexts, trials)) if need < MAX_PROFILES else "-",
            )
        )
    return [
        f"plan from {pilots}; mode {args.mode}, n = {trials} trials, {contexts} tasks",
        table(
            (
                "metric",
                "sd, points",
                "corr",
                "pilot profiles",
                f"power at {args.difference:g} pts now",
                f"profiles for {args.difference:g} pts (80% power)",
                f"profiles for ±{args.margin:g} pts",
                "calls",
            ),
            rows,
        ),
        "sd: of the paired differences between the runs (of one run's profiles when one run is"
        " given); profiles are compared on the same people, paired (docs/statistics.md).",
        f"trials: Violation@n is defined at n; keep n = {trials} to compare at n (more trials"
        " sharpen the unbiased Violation@k for k < n). Calls: one message and one judge call per"
        " profile, task and trial.",
        "audited cells for the judge's correction: `cimem audit-plan --run RUN --margin M`",
    ]


def add_plan_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="profiles needed to tell two runs apart, or for a margin, from pilot runs",
        description="From one or two pilot runs: the spread of their per-profile differences"
        " (or of one run's profiles), the power the pilot has at a chosen difference, the"
        " profiles that find it with 80% power (paired t over the same profiles), the profiles"
        " for a 95% interval of about +/- MARGIN points, and the model calls that costs.",
    )
    add_source_args(p, many_runs=True)
    add_metric_args(p)
    p.add_argument(
        "--difference",
        type=float,
        default=5.0,
        help="the difference to detect, in points (default 5)",
    )
    p.add_argument(
        "--margin", type=float, default=5.0, help="the interval's half-width, in points (default 5)"
    )
    p.add_argument(
        "--trials",
        type=int,
        default=None,
        help="trials per task of the design (default: the pilot's)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_plan)
