"""``health``: the message health scan of a run (refusals, empty, truncated, placeholder and
duplicate messages, reasoning left in, failed generations) with its metrics with and without
the flagged messages."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from cimem.analysis.coverage import check_coverage
from cimem.analysis.cube import cube_from_store
from cimem.analysis.health import ALL_FLAGS, FLAG_TEXT, Flag, HealthReport, health_report, scan
from cimem.analysis.metrics import MODES, Mode
from cimem.cli.common import add_db, jsonable, open_store, pct, table
from cimem.cli.sources import add_metric_args, options_from
from cimem.errors import CimemError
from cimem.text import plural

if TYPE_CHECKING:
    from cimem.store import Store


def parse_flags(text: str | None) -> frozenset[Flag]:
    """--drop: comma-separated flags (empty: every flag).

    >>> sorted(parse_flags("refusal, truncated"))
    [<Flag.REFUSAL: 'refusal'>, <Flag.TRUNCATED: 'truncated'>]
    """
    names = [x.strip() for x in (text or "").split(",") if x.strip()]
    unknown = [n for n in names if n not in set(Flag)]
    if unknown:
        raise CimemError(
            f"--drop {', '.join(unknown)}: unknown flag; choose from {', '.join(Flag)}"
        )
    return frozenset(Flag(n) for n in names) or ALL_FLAGS


def text_report(rep: HealthReport) -> str:
    """Counts per flag with example message ids, then the metrics with and without."""
    share = f" ({100 * rep.flagged / rep.messages:.1f}%)" if rep.messages else ""
    endings = ", ".join(f"{k} {v:,}" for k, v in rep.finish_reasons.items()) or "none"
    lines = [
        f"run {rep.run}  (judge {rep.judge})"
        + ("  [SIMULATED run, not a measurement of a real model]" if rep.simulated else ""),
        f"{plural(rep.messages, 'full-memory message')}, {rep.flagged:,} flagged{share};"
        f" finish reasons: {endings}",
        "",
        table(
            ["flag", "messages", "what it means", "examples (message ids)"],
            [
                [str(c.flag), f"{c.messages:,}", FLAG_TEXT[c.flag], ", ".join(map(str, c.examples))]
                for c in rep.counts
            ],
        ),
        "",
        (
            "without the flagged messages"
            if set(rep.drop) == ALL_FLAGS
            else f"without the messages flagged {', '.join(rep.drop)}"
        )
        + f": {plural(rep.dropped_samples, 'sample')} of the metrics dropped as failed"
        " generations are (not sampled, never 'nothing revealed')",
    ]
    rows = []
    for m in rep.metrics:
        a, c, mode = m.all, m.clean, m.all.options.mode
        rows += [
            [f"Violation@{a.k} ({mode})", *(pct(x.violation.mean).strip() for x in (a, c))],
            [f"Completeness ({mode})", *(pct(x.completeness.mean).strip() for x in (a, c))],
            [f"profiles ({mode})", str(a.violation.n_profiles), str(c.violation.n_profiles)],
        ]
    lines.append(table(["%", "all messages", "without flagged"], rows))
    return "\n".join(lines)


def cmd_health(args: argparse.Namespace) -> int:

    drop = parse_flags(args.drop)
    modes: list[Mode] = list(MODES) if args.mode == "both" else [args.mode]
    with open_store(args, read_only=True) as store:
        run_id = _run_of(store, args.run)
        cube = cube_from_store(store, run_id, args.judge)
        frame = scan(store.health_messages(run_id))
    check_coverage([cube], args.allow_partial, "give --allow-partial")
    options = [options_from(args, mode, args.k) for mode in modes]
    rep = health_report(cube, frame, options, drop)
    if args.json:
        print(json.dumps(jsonable(rep.as_dict()), indent=1))
    else:
        print(text_report(rep))
    return 0


def _run_of(store: Store, ref: str | None) -> int:
    """The run named by --run, else the database's only run with messages."""
    if ref:
        return store.resolve_run(ref)
    ids = [r.run_id for r in store.list_runs() if r.messages > 0]
    if len(ids) != 1:
        raise CimemError(
            f"{store.shown_path} has {len(ids)} runs with messages; choose one with --run"
            if ids
            else f"{store.shown_path} has no run with messages; import one with `python -m cimem ingest`"
        )
    return ids[0]


def add_health_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "health",
        help="refusals, truncated, empty, placeholder and duplicate messages, and the metrics"
        " without them",
        description="Scan a run's full-memory messages for what is no letter at all: failed,"
        " empty, refusal (opens with a refusal), placeholder ([Your Name], <name>, XXX),"
        " reasoning_left (<think> tags), truncated (finish reason length, or an unfinished last"
        " sentence when the source has no finish reason) and duplicate (the same text as an"
        " earlier trial of the prompt). Prints the count of each flag with example message ids,"
        " and Violation@n and Completeness with every message and without the flagged ones"
        " (dropped as failed generations are). The rules are in docs/cli.md.",
    )
    add_db(p)
    p.add_argument("--run", help="run id or name (default: the only run with messages)")
    p.add_argument(
        "--judge", type=int, default=None, help="judge id (default: the run's original verdicts)"
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="use a judge that judged part of the run (numbers over the judged messages only)",
    )
    add_metric_args(p)
    p.add_argument("--k", type=int, default=None, help="samples per task (default: all n)")
    p.add_argument(
        "--drop",
        default="",
        metavar="FLAGS",
        help="comma-separated flags whose messages the second column leaves out (default: every"
        f" flag: {','.join(Flag)})",
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    p.set_defaults(func=cmd_health)
