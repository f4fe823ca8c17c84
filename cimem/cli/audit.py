"""Audit commands: ``audit-queue`` (what needs a look), ``audit-sample`` (the audit's draws to
review, in order), ``audit-plan`` (:mod:`.audit_plan`), ``human export|import`` (people's verdicts as CSV, so a team can split the work)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from cimem.analysis.metrics import MetricOptions, prepare
from cimem.cli.audited import labelled_cube
from cimem.cli.common import add_db, open_store, read_text_file, table

if TYPE_CHECKING:
    from cimem.analysis.audit.queue import Queue, QueueItem
    from cimem.store import Store


def cmd_audit_queue(args: argparse.Namespace) -> int:

    from cimem.analysis.audit.queue import review_queue
    from cimem.analysis.choices import QueueFilter

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        if QueueFilter(args.filter) is QueueFilter.SAMPLE:
            queue = _sample_queue(store, run_id, args)
        else:
            queue = review_queue(
                store,
                run_id,
                args.judge,
                vs=args.vs,
                filter=args.filter,
                label_rule=args.label_rule,
                profile=args.profile,
                task=args.task,
                recipient=args.recipient,
                attribute=args.attribute,
            )
    shown = queue.items[: args.limit] if args.limit else queue.items
    if args.json:
        print(json.dumps(_queue_doc(run_id, queue, shown), indent=1))
        return 0
    _print_queue(run_id, queue, shown, args)
    return 0


def _queue_doc(run_id: int, queue: Queue, shown: list[QueueItem]) -> dict[str, object]:
    """The queue as ``--json`` prints it."""
    return {
        "run": run_id,
        "judge": queue.judge,
        "vs": queue.vs,
        "human_judge": queue.human_judge,
        "filter": queue.filter,
        "total": len(queue.items),
        "left": queue.left,
        "counts": queue.counts,
        "items": [asdict(i) for i in shown],
    }


def _print_queue(
    run_id: int, queue: Queue, shown: list[QueueItem], args: argparse.Namespace
) -> None:
    """The queue as a table: how many are left, then one row per message shown."""
    from cimem.analysis.choices import QueueFilter

    print(f"run {run_id}: {queue.describe()}")
    if queue.filter == QueueFilter.SAMPLE:
        print(
            f"  sample of {args.size} cells, seed {args.seed}: {queue.counts['draws_decided']}"
            f" of {queue.counts['draws']} draws decided ({queue.counts['cells_decided']} of"
            f" {queue.counts['cells']} cells); decide them in this order"
        )
    if shown:
        sample = queue.filter == QueueFilter.SAMPLE
        head = ("message", "profile", "task", "trial", "reviewed")
        print(
            table(
                (*head, "sampled cells left", "attributes") if sample else (*head, "attributes"),
                [
                    (
                        str(i.message_id),
                        i.profile,
                        f"{i.recipient}: {i.task}"[:40],
                        str(i.trial),
                        "yes" if i.reviewed else "no",
                        *([str(i.cells_left)] if sample else []),
                        ", ".join(i.attributes)[:60],
                    )
                    for i in shown
                ],
            )
        )
    if len(shown) < len(queue.items):
        print(f"... {len(queue.items) - len(shown)} more (--limit 0 lists all)")


def _sample_queue(store: Store, run_id: int, args: argparse.Namespace) -> Queue:
    """The suggested audit sample (as ``audit-sample`` draws it) as a queue."""
    from cimem.analysis.audit.correction import audit_seed
    from cimem.analysis.audit.queue import sample_queue
    from cimem.analysis.audit.sample import audit_sample

    cube = labelled_cube(store, run_id, args)
    assert cube.info.judge_id is not None
    prep = prepare(cube, MetricOptions(label_rule=args.label_rule))
    args.seed = audit_seed(store, cube, prep.opts, args.seed)
    rows = audit_sample(store, prep, args.size, args.seed)
    return sample_queue(store, run_id, cube.info.judge_id, rows)


def cmd_audit_sample(args: argparse.Namespace) -> int:
    from cimem.analysis.audit.correction import audit_seed, audited_spec
    from cimem.analysis.audit.sample import audit_sample, undecided_sample
    from cimem.analysis.audit.verdict_csv import sample_records, sheet_cells, write_csv

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        cube = labelled_cube(store, run_id, args)
        prep = prepare(cube, MetricOptions(label_rule=args.label_rule))
        args.seed = audit_seed(store, cube, prep.opts, args.seed)
        pick = undecided_sample if args.undecided else audit_sample
        rows = pick(store, prep, args.size, args.seed)
        spec = audited_spec(cube, prep.opts, args.seed, args.size)
        assert spec is not None  # labelled_cube refuses a run without a judge
        read = sheet_cells(store, spec.judge_id, rows) if args.out else {}
    if not rows:
        what = "undecided cell" if args.undecided else "judged cell of a labelled pair"
        print(f"run {run_id}: no {what} to audit")
        return 0
    if args.out:
        write_csv(args.out, sample_records(rows, spec, read))
        print(
            f"wrote {len(rows)} cells of run {run_id} (judge {cube.judge}, seed {args.seed}) to"
            f" {args.out}: fill the revealed column, then `python -m cimem human import`; each"
            f" row names its sample ({spec.text()}), which the corrected metrics follow"
        )
        return 0
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.stratum] = counts.get(r.stratum, 0) + 1
    print(
        f"audit sample of run {run_id}: {len(rows)} (message, attribute, trial) cells, judge"
        f" {cube.judge}, label rule {prep.opts.label_rule}, seed {args.seed}; "
        + ", ".join(f"{n} {s}" for s, n in counts.items())
    )
    print(
        table(
            ("draw", "message", "profile", "task", "attribute", "trial", "judge", "stratum"),
            [
                (
                    str(r.draw),
                    str(r.message_id),
                    r.profile,
                    f"{r.recipient}: {r.task}"[:40],
                    r.attribute,
                    str(r.trial),
                    r.judge_says,
                    r.stratum,
                )
                for r in rows
            ],
        )
    )
    return 0


def cmd_human_export(args: argparse.Namespace) -> int:
    from cimem.analysis.audit.verdict_csv import noted_sample_cells, verdict_records, write_csv

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        judge = store.find_human_judge(run_id)
        rows = store.human_verdicts(judge, history=args.history) if judge is not None else []
        sampled = noted_sample_cells(store, run_id) if rows else {}
    write_csv(args.out, verdict_records(rows, sampled))
    what = "verdicts with their history" if args.history else "current verdicts"
    print(f"wrote {len(rows)} {what} of people on run {run_id} to {args.out}")
    return 0


def cmd_human_import(args: argparse.Namespace) -> int:
    from cimem.analysis.audit.verdict_csv import read_verdicts

    text = read_text_file(args.path)
    with open_store(args) as store:
        run_id = store.resolve_run(args.run)
        sheet = read_verdicts(store, run_id, text, args.path, args.reviewer)
        judge = store.find_human_judge(run_id)
        n = 0
        if sheet.verdicts:
            with store.transaction():
                judge = store.get_or_create_human_judge(run_id)
                n = store.add_human_verdicts(judge, sheet.verdicts)
                store.record_audit_samples(
                    judge, [spec.noted(judge, rows) for spec, rows in sheet.samples.items()]
                )
    print(
        f"recorded {n} human verdicts on run {run_id}"
        + (
            f" as judge {judge} (metrics --corrected-by people reads them)"
            if judge is not None
            else ""
        )
        + f"; {sheet.unset} rows left unset (empty revealed)"
        + "".join(f"; {rows} rows of {spec.text()}" for spec, rows in sheet.samples.items())
    )
    return 0


def add_audit_commands(sub: argparse._SubParsersAction) -> None:
    from cimem.cli.audit_plan import add_plan_command

    _add_queue_command(sub)
    _add_sample_command(sub)
    add_plan_command(sub)
    _add_human_commands(sub)


def _add_queue_command(sub: argparse._SubParsersAction) -> None:
    from cimem.analysis.choices import QueueFilter

    p = sub.add_parser(
        "audit-queue",
        help="the messages of a run that need a person's look",
        description="Messages of a run filtered by what needs a look: leaked (the judge found a"
        " private attribute revealed), disagree (two judges differ: --vs), parse_failure,"
        " judge_error, ungrounded (evidence not found in the message), flagged (by the health"
        " scan: a refusal, a truncated message, a placeholder left in, ...), unreviewed (no person's"
        " verdict yet), people_disagree (reviewers' verdicts differ, not adjudicated yet), sample"
        " (the cells of audit-sample); narrowed by profile, task, recipient"
        " and attribute; with how many are left to review.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judge", type=int, default=None, help="judge (default: the original)")
    p.add_argument("--vs", type=int, default=None, help="a second judge, for --filter disagree")
    p.add_argument(
        "--filter",
        choices=[str(f) for f in QueueFilter],
        default=str(QueueFilter.LEAKED),
        help="what needs a look (sample: the messages of audit-sample's cells, with progress)",
    )
    p.add_argument("--size", type=int, default=200, help="--filter sample: cells (default 200)")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="--filter sample: seed (default: the sample people decided, else 0)",
    )
    p.add_argument("--profile", help="profile name contains this")
    p.add_argument("--task", help="task contains this")
    p.add_argument("--recipient", help="recipient contains this")
    p.add_argument("--attribute", help="an attribute behind the filter contains this key text")
    p.add_argument("--label-rule", default="unanimous")
    p.add_argument("--limit", type=int, default=50, help="rows to print (0: all; default 50)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_audit_queue)


def _add_sample_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit-sample",
        help="the audit's next draws of a judge's decisions, in the order people decide them",
        description="The first cells of the audit's review order: draws at random within the"
        " judge's yes and no, of withheld attributes (their cells the judge called revealed) and"
        " of needed cells, in the order to decide them; what metrics --corrected-by counts (same"
        " --seed). --out writes it as CSV with an empty revealed column for `human import`.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judge", type=int, default=None, help="judge to audit (default: original)")
    p.add_argument("--size", type=int, default=200, help="cells to list (default 200)")
    p.add_argument(
        "--undecided",
        action="store_true",
        help="skip the draws people decided: the next SIZE cells still needed (audit-plan's count)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the draws' seed (default: the sample people decided on this run, else 0, as the app)",
    )
    p.add_argument("--label-rule", default="unanimous")
    p.add_argument("--out", metavar="CSV", help="write the sample as CSV instead of printing it")
    p.set_defaults(func=cmd_audit_sample)


def _add_human_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "human",
        help="export or import people's verdicts as CSV; reviewers' agreement",
        description="People's verdicts live in one human judge per run, append-only: a"
        " reviewer's later verdict on the same (message, attribute) supersedes their earlier one,"
        " which stays in the history; reviewers who disagree wait for an adjudication. Export"
        " them (or a sample from audit-sample) as CSV, split the rows among reviewers, import"
        " the filled files, and see how often reviewers agree.",
    )
    hsub = p.add_subparsers(dest="human_command", required=True, metavar="ACTION")
    e = hsub.add_parser("export", help="write people's verdicts on a run as CSV")
    add_db(e)
    e.add_argument("--run", required=True, help="run id or name")
    e.add_argument("--out", required=True, metavar="CSV")
    e.add_argument(
        "--history", action="store_true", help="every verdict ever recorded, not only the latest"
    )
    e.set_defaults(func=cmd_human_export)
    i = hsub.add_parser("import", help="record the verdicts of a filled CSV")
    i.add_argument("path", metavar="CSV")
    add_db(i)
    i.add_argument("--run", required=True, help="run id or name")
    i.add_argument("--reviewer", help="reviewer name for rows whose reviewer column is empty")
    i.set_defaults(func=cmd_human_import)
    from cimem.cli.human_agreement import add_agreement_command

    add_agreement_command(hsub)
