"""``labels diff``: how two runs label the contexts they share."""

from __future__ import annotations

import argparse
import json

from cimem.cli.common import add_db, open_store, table
from cimem.errors import CimemError


def cmd_labels_diff(args: argparse.Namespace) -> int:
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.label_diff import label_diff
    from cimem.analysis.labels import LabelRule

    if len(args.run) != 2:
        raise CimemError("labels diff compares two runs: give --run twice")
    with open_store(args, read_only=True) as store:
        a, b = (cube_from_store(store, store.resolve_run(r)) for r in args.run)
    diff = label_diff(a, b, LabelRule.parse(args.label_rule), examples=args.limit)
    if args.json:
        print(json.dumps(diff.as_dict()))
        return 0
    print(
        f"{diff.run_a} against {diff.run_b} (label rule {diff.label_rule}):"
        f" {diff.shared_contexts} shared contexts (same person, recipient and task),"
        f" {diff.compared} labelled pairs, {diff.same} labelled alike"
    )
    if not diff.shared_contexts:
        print("no context is in both runs: their labels cannot be compared")
        return 0
    if diff.agree:
        print("the labels agree on every shared pair")
        return 0
    print("changes: " + ", ".join(f"{move}: {n}" for move, n in diff.changes.items()))
    print(
        table(
            ("profile", "task", "attribute", "label A", "label B"),
            [(p, f"{r}: {t}"[:48], k, x, y) for p, r, t, k, x, y in diff.examples],
        )
    )
    if len(diff.examples) < diff.compared - diff.same:
        print(f"... {diff.compared - diff.same - len(diff.examples)} more (--limit, or --json)")
    return 0


def add_labels_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "labels",
        help="compare the labels of two runs",
        description="Labels as data: how two runs label the (task, attribute) pairs of the"
        " contexts they share.",
    )
    lsub = p.add_subparsers(dest="labels_command", required=True, metavar="ACTION")
    d = lsub.add_parser(
        "diff",
        help="which labelled pairs two runs label differently, on the contexts they share",
        description="On the contexts two runs share (the same person, recipient and task): how"
        " many (task, attribute) pairs each labels share, private or ambiguous under the rule,"
        " the changes between them (share -> private, ...) and the first differing pairs."
        " Runs whose labels differ measure different things there.",
    )
    add_db(d)
    d.add_argument("--run", action="append", required=True, metavar="RUN", help="give twice")
    d.add_argument("--label-rule", default="unanimous")
    d.add_argument("--limit", type=int, default=20, help="differing pairs listed (default 20)")
    d.add_argument("--json", action="store_true", help="print JSON instead of text")
    d.set_defaults(func=cmd_labels_diff)
