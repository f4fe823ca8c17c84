"""``growth``: Violation as tasks and samples accumulate, against the independence prediction."""

from __future__ import annotations

import argparse
import json

from cimem.analysis.growth import GrowthCurve
from cimem.analysis.metrics import Mode
from cimem.cli.common import int_list, jsonable, pct
from cimem.cli.sources import add_metric_args, add_source_args, load_cubes, options_from
from cimem.text import plural


def growth_method(text: str) -> str:
    """--method: the new names, the old 'montecarlo', a clear error for the old 'exact'."""
    from cimem.analysis.growth import method_name

    try:
        return method_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_growth(args: argparse.Namespace) -> int:
    from cimem.analysis.growth import growth

    cube = load_cubes(args, many=False)[0]
    mode = Mode.OFFICIAL if args.mode == "both" else Mode(args.mode)
    curve = growth(
        cube,
        options_from(args, mode),
        order=args.order,
        tasks=int_list(args.tasks, "--tasks"),
        trials=int_list(args.trials, "--trials"),
        samples=args.samples,
        method=args.method,
        draws=args.draws,
        seed=args.seed,
        fixed_order=int_list(args.fixed_order, "--fixed-order"),
    )
    if args.json:
        doc = {
            "mode": curve.mode,
            "label_rule": curve.label_rule,
            "order": curve.order,
            "samples": curve.samples,
            "tasks": curve.tasks,
            "trials": curve.trials,
            "violation": curve.violation,
            "theory": curve.theory,
            "union_bound": curve.union_bound,
            "stderr": curve.stderr,
            "violation_ci95": curve.violation_ci95,
            "method": curve.method,
            "run": curve.run,
            "judge": curve.judge,
            "n_tasks": curve.n_tasks,
            "n_trials": curve.n_trials,
        }
        print(json.dumps(jsonable(doc), indent=1))
        return 0
    print_curve(curve)
    return 0


def print_curve(curve: GrowthCurve) -> None:
    """The curve as text: its grid, the end point's interval, the Monte Carlo error and the
    union bound."""
    print(
        f"run {curve.run}: Violation by task count T and samples k  (mode {curve.mode}, label"
        f" rule {curve.label_rule}, judge {curve.judge}, order {curve.order}, method"
        f" {curve.method}, samples {curve.samples}; {plural(curve.n_tasks, 'task')}, n = {curve.n_said or curve.n_trials})"
    )
    head = "     T " + "".join(f"   k={k:<2} obs / 1-(1-p)^k" for k in curve.trials)
    print(head)
    for i, t in enumerate(curve.tasks):
        cells = "".join(
            f"   {pct(curve.violation[i][j])} / {pct(curve.theory[i][j])}      "
            for j in range(len(curve.trials))
        )
        print(f"  {t:4d} {cells}")
    if (end := curve.end_interval()) is not None:
        print(
            f"at T = {curve.tasks[-1]}, k = {curve.trials[-1]}: observed {pct(curve.violation[-1][-1]).strip()}%,"
            f" 95% interval [{100 * end[0]:.2f}, {100 * end[1]:.2f}] over people like these"
            " (Korn-Graubard over profiles; every point's in --json)"
        )
    if curve.stderr:
        worst = max((x for row in curve.stderr for x in row if x == x), default=0.0)
        print(f"Monte Carlo standard error: at most {100 * worst:.3f} points")
    if curve.order == "random":
        print(
            "union bound V(T) <= T x V(1) at k = "
            f"{curve.trials[-1]}: "
            + ", ".join(f"T={t}: {pct(b[-1])}" for t, b in zip(curve.tasks, curve.union_bound))
        )


def add_growth_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "growth",
        help="Violation as tasks and samples accumulate, against 1-(1-p)^k",
        description="Violation as a function of the number of tasks T and samples per task k,"
        " averaged over profiles, with the independence prediction 1-(1-p)^k from each"
        " attribute's per-task leak frequency, and the union bound. Orders: random (the"
        " expectation of Violation over random task subsets, what the paper's Figure 2 samples,"
        " or the ratio of expected counts), fixed (listed order), worst (greedy upper envelope).",
    )
    add_source_args(p, many_runs=False)
    add_metric_args(p)
    p.add_argument("--order", choices=("random", "fixed", "worst"), default="random")
    p.add_argument(
        "--method",
        type=growth_method,
        default="expected-ratio",
        help="random order: expected-ratio (default; the expectation of Violation over random"
        " task subsets, enumerated when there are at most --draws of them, else sampled from"
        " --draws random task orders with its standard error; 'montecarlo' is an old name for"
        " it) or ratio-of-expectations (expected leaked over expected eligible counts, exact)",
    )
    p.add_argument(
        "--draws",
        type=int,
        help="random task orders per profile (expected-ratio; default: 1,000 per run shared by"
        " its profiles, 32 to 400 each, as the app takes)",
    )
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed")
    p.add_argument(
        "--samples",
        choices=("first", "unbiased"),
        default="first",
        help="samples per task: the first k trials, or the unbiased estimator",
    )
    p.add_argument("--tasks", help="task counts, e.g. 1,5,10,20,40 (default: every count)")
    p.add_argument("--trials", help="samples per task, e.g. 1,2,3,4,5 (default: 1..n)")
    p.add_argument("--fixed-order", help="fixed order: context positions, e.g. 3,0,1")
    p.add_argument("--json", action="store_true", help="print the JSON contract")
    p.set_defaults(func=cmd_growth)
