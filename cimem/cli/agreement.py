"""``agreement``: agreement and Cohen's kappa of two judges of a run."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from cimem.cli.common import add_db, jsonable, open_store
from cimem.errors import CimemError

if TYPE_CHECKING:
    from cimem.analysis.agreement import Agreement
    from cimem.store.rows import JudgeInfo


def judge_pair(args: argparse.Namespace, run_id: int, judges: list[JudgeInfo]) -> tuple[int, int]:
    """The two judges to compare: --judges A,B, else the run's first and last judge."""
    if args.judges:
        try:
            a, b = (int(x) for x in args.judges.split(","))
        except ValueError:
            raise CimemError("--judges expects two judge ids, e.g. --judges 1,2") from None
    elif len(judges) >= 2:
        a, b = judges[0].judge_id, judges[-1].judge_id
    else:
        raise CimemError(
            f"run {run_id} has {len(judges)} judge(s); agreement needs two"
            " (make one with `python -m cimem judge`)"
        )
    known = {j.judge_id for j in judges}
    for j in (a, b):
        if j not in known:
            raise CimemError(
                f"judge {j} is not a judge of run {run_id}; its judges are "
                + ", ".join(f"{x.judge_id} ({x.name})" for x in judges)
            )
    return a, b


def agreement_lines(ag: Agreement, a: int, b: int) -> list[str]:
    """The agreement as text: overall, by label, domain and stratum, then the disagreements."""
    from cimem.analysis.agreement import format_kappa

    o = ag.overall
    c = o.confusion
    out = [
        f"judges {a} vs {b}: {o.n} (message, attribute) pairs both decided;"
        f" agreement {100 * o.agreement:.1f}% [{100 * o.agreement_ci95[0]:.1f},"
        f" {100 * o.agreement_ci95[1]:.1f}], Cohen's kappa {format_kappa(o.kappa)}",
        f"  both revealed {c['both_yes']}, only {a} {c['a_only']}, only {b} {c['b_only']},"
        f" neither {c['both_no']}",
    ]
    for title, group in (
        ("by label (rule " + ag.label_rule + ")", ag.by_label),
        ("by domain", ag.by_domain),
        ("by stratum (label / domain)", ag.by_stratum),
    ):
        out.append(f"  {title}:")
        for k, v in group.items():
            lo, hi = v.agreement_ci95
            out.append(
                f"    {k:<28} n={v.n:<7} agreement {100 * v.agreement:5.1f}%"
                f" [{100 * lo:5.1f}, {100 * hi:5.1f}]  kappa {format_kappa(v.kappa):>9}"
            )
    out.append(
        "  (agreement: 95% Wilson interval; kappa is undefined where a judge says the same"
        " on every pair)"
    )
    out.append(f"  disagreements (first {len(ag.disagreements)}):")
    for d in ag.disagreements:
        out.append(
            f"    message {d['message_id']} {d['key']} [{d['label']}]: {a}="
            f"{'yes' if d['a_revealed'] else 'no'} {d['a_evidence']!r} | {b}="
            f"{'yes' if d['b_revealed'] else 'no'} {d['b_evidence']!r}"
        )
    return out


def cmd_agreement(args: argparse.Namespace) -> int:
    from cimem.analysis.agreement import agreement

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        a, b = judge_pair(args, run_id, store.judges(run_id))
        ag = agreement(store, a, b, args.label_rule, max_disagreements=args.show)
    if args.json:
        print(json.dumps(jsonable(ag.as_dict()), indent=1))
    else:
        print("\n".join(agreement_lines(ag, a, b)))
    return 0


def add_agreement_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agreement",
        help="agreement and Cohen's kappa of two judges of a run",
        description="Agreement, Cohen's kappa and the confusion matrix of two judges over the"
        " (message, attribute) pairs both decided (messages either judge failed to parse are"
        " left out), split by label and domain, with the disagreements and both evidences.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judges", help="A,B judge ids (default: the first and the last judge)")
    p.add_argument("--label-rule", default="unanimous")
    p.add_argument("--show", type=int, default=20, help="disagreements to list (default 20)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agreement)
