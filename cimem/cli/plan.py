"""``plan``: how many profiles tell two runs apart at a chosen difference, or give one run a
chosen margin, from pilot runs, and what that costs in calls (docs/statistics.md)."""

from __future__ import annotations

import argparse
import json

from cimem.analysis.cube import LeakCube
from cimem.analysis.metrics import RunMetrics, compute
from cimem.analysis.planner import calls, plan, plan_frame, plan_note, tasks_of
from cimem.analysis.power import POWER
from cimem.cli.common import jsonable, table
from cimem.cli.sources import add_metric_args, add_source_args, map_runs, options_from
from cimem.errors import CimemError


def cmd_plan(args: argparse.Namespace) -> int:
    def digest(cube: LeakCube) -> tuple[RunMetrics, int]:
        return compute(cube, options_from(args, args.mode)), tasks_of(cube)

    pilots = map_runs(args, True, digest)
    if len(pilots) > 2:
        raise CimemError(f"plan takes one or two pilot runs; {len(pilots)} were named (--run)")
    a, tasks = pilots[0]
    b = pilots[1][0] if len(pilots) == 2 else None
    plans = plan(a, b, args.difference / 100, args.margin / 100)
    trials = args.trials or a.n_trials
    if args.json:
        doc = {
            "runs": [a.run] + ([b.run] if b else []),
            "mode": args.mode,
            "difference_points": args.difference,
            "margin_points": args.margin,
            "power": POWER,
            "trials": trials,
            "contexts": tasks,
            "metrics": [p.as_dict() for p in plans],
            "calls_per_profile": calls(1, tasks, trials),
        }
        print(json.dumps(jsonable(doc), indent=1))
        return 0
    pilot = f"runs {a.run} and {b.run}" if b else f"run {a.run}"
    frame = plan_frame(plans, args.difference, args.margin, tasks, trials)
    print(f"plan from {pilot}; mode {args.mode}, n = {trials} trials, {tasks} tasks")
    print(table(tuple(frame.columns), [tuple(r) for r in frame.itertuples(index=False)]))
    print(plan_note(b is not None, trials))
    return 0


def add_plan_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="profiles needed to tell two runs apart, or for a margin, from pilot runs",
        description="From one or two pilot runs: the spread of their per-profile differences"
        " (or of one run's profiles), the power the pilot has at a chosen difference, the"
        " profiles that find it with 80% power (the pilots' differences resampled; with one"
        " pilot, the paired t test's power), the profiles for a 95% interval of about +/- MARGIN"
        " points, and the model calls that costs (docs/statistics.md).",
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
