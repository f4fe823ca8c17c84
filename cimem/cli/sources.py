"""What the analysis commands share: where the cubes come from (a database or an official file),
the metric options, and reading both from the command line."""

from __future__ import annotations

import argparse

from cimem.analysis.coverage import check_coverage
from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MODES, MetricOptions, Mode
from cimem.cli.common import add_db, open_store
from cimem.errors import CimemError


def add_source_args(p: argparse.ArgumentParser, many_runs: bool) -> None:
    src = p.add_mutually_exclusive_group()
    add_db(src)
    src.add_argument(
        "--results",
        metavar="PATH",
        help="read an official run-output file directly, without a database",
    )
    if many_runs:
        p.add_argument(
            "--run",
            action="append",
            metavar="RUN",
            help="run id or name; repeat for several (default: every run with messages)",
        )
    else:
        p.add_argument(
            "--run", metavar="RUN", help="run id or name (default: the only run with messages)"
        )
    p.add_argument(
        "--judge",
        type=int,
        default=None,
        help="judge id whose verdicts to use (default: the run's original verdicts)",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="use a judge that judged part of the run; every number is then over the judged"
        " messages only and says so (default: refuse such a judge)",
    )


def add_metric_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=(*MODES, "both"),
        default="official",
        help="official: the official script's numbers, quirks included; definition: the "
        "paper's Definitions 3.1 and 3.2 literally; both: side by side (default:"
        " official)",
    )
    p.add_argument(
        "--label-rule",
        default="unanimous",
        help="unanimous (official, default), majority or threshold:X with 0.5 < X <= 1",
    )
    p.add_argument(
        "--exclude",
        default="",
        help="definition mode: comma-separated attribute keys to leave out of the"
        " private set (e.g. name,sex,address,age)",
    )
    p.add_argument(
        "--parse-failures",
        choices=("exclude", "zero"),
        default="exclude",
        help="definition mode: leave trials whose judge reply failed to parse out"
        " (default) or count them as nothing revealed",
    )


def load_cubes(args: argparse.Namespace, many: bool) -> list[LeakCube]:
    """The cubes the user named: from --results, or runs of the database."""
    if args.results:
        return [cube_from_official(args.results)]

    with open_store(args, read_only=True) as store:
        refs = args.run if many else ([args.run] if args.run else None)
        if refs:
            ids = [store.resolve_run(r) for r in refs]
        else:
            ids = [r.run_id for r in store.list_runs() if r.messages > 0]
            if not ids:
                raise CimemError(
                    f"{store.shown_path} has no run with messages; import one with"
                    " `python -m cimem ingest`"
                )
            if not many and len(ids) > 1:
                raise CimemError(
                    f"{store.shown_path} has {len(ids)} runs with messages; choose one with --run"
                )
        judge = getattr(args, "judge", None)
        if judge is not None and len(ids) > 1:
            raise CimemError("--judge applies to one run: give one --run with it")
        cubes = [cube_from_store(store, i, judge) for i in ids]
    check_coverage(cubes, args.allow_partial, "give --allow-partial")  # PartialJudge: exit 2
    return cubes


def options_from(args: argparse.Namespace, mode: Mode, k: int | None = None) -> MetricOptions:
    exclude = tuple(x.strip() for x in args.exclude.split(",") if x.strip())
    return MetricOptions(
        mode=mode,
        label_rule=args.label_rule,
        exclude=exclude,
        parse_failures=args.parse_failures,
        k=k,
    )
