"""`copy` (whole runs from one database into another: a file into a lake and back) and `compact`
(a lake's small files merged, its old snapshots forgotten)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cimem.cli.common import add_db, open_store
from cimem.errors import CimemError
from cimem.store import Store
from cimem.store.location import is_lake, shown
from cimem.text import plural


def cmd_copy(args: argparse.Namespace) -> int:
    """Each chosen run of --from copied into --db, with new ids there; one transaction per run."""
    if not is_lake(args.source) and not Path(args.source).is_file():
        raise CimemError(f"{args.source}: no such database to copy from")
    with Store.open(args.source, read_only=True) as source, open_store(args) as target:
        runs = [source.resolve_run(r) for r in args.run] if args.run else source.run_ids()
        if not runs:
            raise CimemError(f"{shown(args.source)}: no runs to copy")
        shared = source.shared_rows()
        for run_id in runs:
            rows = source.run_rows(run_id)
            new = target.add_copied_run(rows, shared)
            name = rows["runs"].column("name")[0].as_py()
            print(
                f"run {run_id} ({name}) -> run {new}: {plural(rows['messages'].num_rows, 'message')},"
                f" {plural(rows['verdicts'].num_rows, 'verdict')},"
                f" {plural(rows['judges'].num_rows, 'judge')}"
            )
            sys.stdout.flush()
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        done = store.compact(args.keep_days)
    print(
        f"{shown(store.path)}: {done.files_before} -> {done.files_after} data files,"
        f" {done.snapshots_before} -> {done.snapshots_after} snapshots,"
        f" {plural(done.deleted, 'old file')} deleted,"
        f" {plural(done.orphans, 'file')} of killed writes deleted"
    )
    return 0


def add_lake_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "copy",
        help="copy runs, with all their judges and people's verdicts, into another database",
        description="Copy runs from --from into --db (a file into a lake, a lake into a file, or"
        " file to file): each run with its messages, labels, every judge's verdicts and"
        " judgments, people's verdicts with their history, audit samples and progress, under new"
        " ids in --db; the call cache entries and people's labels --db lacks come along. One"
        " transaction per run; --from is only read.",
    )
    add_db(p)
    p.add_argument("--from", dest="source", required=True, help="database to copy from")
    p.add_argument("--run", action="append", help="run id or name (repeat; default: every run)")
    p.set_defaults(func=cmd_copy)
    p = sub.add_parser(
        "compact",
        help="merge a lake's small files and forget its old snapshots",
        description="A lake writes Parquet files at every commit: merge the small ones, write"
        " the rows kept inline in the catalog to files, forget snapshots older than --keep-days"
        " (time travel reaches back that far) and delete the files only they used, and the files"
        " a writer killed mid-write left once they are a day old.",
    )
    add_db(p)
    p.add_argument("--keep-days", type=int, default=7, help="days of snapshots to keep (default 7)")
    p.set_defaults(func=cmd_compact)
