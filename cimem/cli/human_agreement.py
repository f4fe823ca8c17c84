"""``human agreement``: how often a run's reviewers agree, and what waits for adjudication."""

from __future__ import annotations

import argparse
import json

from cimem.cli.common import add_db, open_store, table
from cimem.text import plural


def cmd_human_agreement(args: argparse.Namespace) -> int:
    from cimem.analysis.agreement import format_kappa
    from cimem.analysis.audit.reviewers import people_agreement

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        human = store.find_human_judge(run_id)
        rows = store.human_verdicts(human) if human is not None else []
    ag = people_agreement(rows)
    if args.json:
        print(json.dumps({"run": run_id, **ag.as_dict()}))
        return 0
    if len(ag.reviewers) < 2:
        named = ", ".join(ag.reviewers) or "none"
        print(
            f"run {run_id}: reviewers {named}; agreement needs two reviewers on the same cells"
            " (name yourselves: --reviewer, or the Reviewer field of the Audit and Review pages)"
        )
        return 0

    if not ag.shared_cells:
        print(
            f"run {run_id}: {len(ag.reviewers)} reviewers ({', '.join(ag.reviewers)}), no cell"
            " decided by two of them yet: agreement needs cells both decided (the Review page"
            " asks a second reviewer for every fifth draw; in a split sheet, give every fifth"
            " draw to two reviewers)"
        )
        return 0

    def ci(pair: tuple[float, float]) -> str:
        return "-" if pair[0] != pair[0] else f"[{pair[0]:.2f}, {pair[1]:.2f}]"

    print(
        f"run {run_id}: {len(ag.reviewers)} reviewers,"
        f" {plural(ag.shared_cells, 'cell')} decided by two or more"
    )
    print(
        table(
            ("reviewer A", "reviewer B", "cells both", "agree", "Cohen's kappa", "95% CI"),
            [
                (p.a, p.b, str(p.cells), str(p.agree), format_kappa(p.kappa), ci(p.kappa_ci95))
                for p in ag.pairs
            ],
        )
    )
    alpha = "undefined" if ag.alpha != ag.alpha else f"{ag.alpha:.3f}"
    print(f"Krippendorff's alpha (all reviewers): {alpha} {ci(ag.alpha_ci95)}")
    print(
        f"{plural(len(ag.disagreements), 'cell')} to adjudicate (audit-queue --filter"
        " people_disagree),"
        f" {ag.adjudicated} adjudicated; intervals: bootstrap over cells"
    )
    return 0


def add_agreement_command(hsub: argparse._SubParsersAction) -> None:
    a = hsub.add_parser(
        "agreement",
        help="how often the run's reviewers agree (kappa per pair, alpha overall)",
        description="People against people on the cells two or more reviewers decided: Cohen's"
        " kappa per pair of reviewers and Krippendorff's alpha over all, with bootstrap 95%"
        " intervals over cells, and the cells waiting for adjudication.",
    )
    add_db(a)
    a.add_argument("--run", required=True, help="run id or name")
    a.add_argument("--json", action="store_true", help="print JSON instead of text")
    a.set_defaults(func=cmd_human_agreement)
