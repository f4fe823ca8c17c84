"""``audit-plan``: how much more audit gives the corrected metrics a chosen margin."""

from __future__ import annotations

import argparse
import json

from cimem.analysis.metrics import MetricOptions, prepare
from cimem.cli.audited import labelled_cube
from cimem.cli.common import add_db, open_store, table


def cmd_audit_plan(args: argparse.Namespace) -> int:

    from cimem.analysis.audit.correction import audit_seed
    from cimem.analysis.audit.plan import run_plan

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        cube = labelled_cube(store, run_id, args)
        prep = prepare(cube, MetricOptions(label_rule=args.label_rule))
        args.seed = audit_seed(store, cube, prep.opts, args.seed)
        plans = run_plan(store, prep, args.margin / 100, args.seed)
    if not plans and not args.json:
        print(f"run {run_id}: nothing to plan (no judged cell of a labelled pair is undecided)")
        return 0
    if args.json:
        print(
            json.dumps(
                {"run": run_id, "margin_points": args.margin, "strata": [p.__dict__ for p in plans]}
            )
        )
        return 0
    print(
        f"run {run_id}, judge {cube.judge}, seed {args.seed}: draws for a 95% interval of about"
        f" +/- {args.margin:g} points (normal approximation; Violation@n's upper end also"
        " grows with the judge's miss rate). Plan again as the audit goes."
    )
    names = {True: "judge yes", False: "judge no"}
    print(
        table(
            ("metric", "stratum", "weight", "decided", "needed", "more draws", "about cells"),
            [
                (
                    str(p.metric),
                    names[p.judge_yes],
                    f"{100 * p.weight:.1f}%",
                    str(p.decided),
                    str(p.needed),
                    str(p.more_draws),
                    str(p.more_cells),
                )
                for p in plans
            ],
        )
    )
    print(next_step(run_id, args.seed, sum(p.more_cells for p in plans)))
    return 0


def next_step(run_id: int, seed: int, cells: int) -> str:
    """The plan's last line: the command that lists exactly the cells still needed, in order.

    >>> next_step(1, 0, 0)
    'nothing more needed at this margin'
    >>> next_step(1, 0, 138)
    'about 138 more cells: `cimem audit-sample --run 1 --seed 0 --undecided --size 138` lists them in order'
    """
    if cells <= 0:
        return "nothing more needed at this margin"
    return (
        f"about {cells:,} more cells: `cimem audit-sample --run {run_id} --seed {seed} --undecided"
        f" --size {cells}` lists them in order"
    )


def add_plan_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit-plan",
        help="how many more audited draws, in which strata, give the corrected metrics a margin",
        description="From the audit so far (the run's human judge), the draws per stratum that"
        " give Violation@n and Completeness a 95% interval of about +/- MARGIN points, by the"
        " cost-weighted Neyman allocation, and about how many cells they take.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judge", type=int, default=None, help="judge audited (default: original)")
    p.add_argument("--margin", type=float, default=3.0, help="points either side (default 3)")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the draws' seed (default: the sample people decided, else 0)",
    )
    p.add_argument("--label-rule", default="unanimous")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_audit_plan)
