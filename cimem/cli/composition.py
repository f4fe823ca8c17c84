"""``composition``: leakage against memory size, for runs made with ``run --composition``."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from cimem.cli.common import add_db, open_store, pct


def cmd_composition(args: argparse.Namespace) -> int:

    from cimem.analysis.composition import composition_curve

    with open_store(args, read_only=True) as store:
        curve = composition_curve(store, store.resolve_run(args.run), args.judge)
    if args.json:
        print(json.dumps(asdict(curve), indent=1))
        return 0
    print(
        f"run {curve.run}: memory composition by {curve.axis.label} (judge {curve.judge},"
        " parsed judgments only)"
    )
    print(f"  {str(curve.axis):>8}  messages  leak rate  any leak  completeness")
    for b, n, lr, al, co in zip(
        curve.steps, curve.messages, curve.leak_rate, curve.any_leak, curve.completeness
    ):
        cells = [pct(v) if v is not None else "   -" for v in (lr, al, co)]
        print(f"  {b:8d}  {n:8d}  {cells[0]:>9}  {cells[1]:>8}  {cells[2]:>12}")
    return 0


def add_composition_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "composition",
        help="leakage against memory size (run --composition, or eval.py's composition styles)",
        description="Per step of the memory-composition experiment (withheld memories added to"
        " each task's needed ones; or, for eval.py's all_not_share and iid styles, needed"
        " memories added to the withheld ones, or memories of either kind in sizes): the leak"
        " rate of the withheld memories, the share of messages leaking any, and completeness."
        " Official mode counts these messages in Violation@n too, as the official script does.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judge", type=int, default=None, help="judge id (default: the run's first)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_composition)
