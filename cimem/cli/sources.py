"""What the analysis commands share: where the cubes come from (a database or an official file),
the metric options, and reading both from the command line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

from cimem.analysis.coverage import check_coverage
from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MODES, MetricOptions, Mode
from cimem.cli.common import add_db, open_store
from cimem.errors import CimemError
from cimem.store import Store

T = TypeVar("T")


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
    """The cubes the user named, all in memory (for a few runs; tens of runs: :func:`map_runs`)."""
    return map_runs(args, many, lambda cube: cube)


def map_runs(
    args: argparse.Namespace,
    many: bool,
    digest: Callable[[LeakCube], T],
    one_run_only: str | None = None,
) -> list[T]:
    """``digest`` of each cube the user named (--results, or runs of the database), one cube in
    memory at a time: a command over every run of a lab's database keeps what it computed of
    each run, not the run's verdicts, so its memory stays flat in the number of runs.

    ``one_run_only``: the error to raise when more than one run is named."""
    with RunReader(args, many, one_run_only) as runs:
        # each cube is a temporary, dropped before the next one is read
        return [digest(runs.read(i)) for i in range(len(runs))]


class RunReader:
    """The runs the user named (--results, or runs of the database), each read when asked for,
    with the blocks DuckDB cached of the one before given back: a command holds one run at a
    time when it drops each cube before reading the next."""

    def __init__(
        self, args: argparse.Namespace, many: bool, one_run_only: str | None = None
    ) -> None:
        self.args, self.many, self.one_run_only = args, many, one_run_only
        self.store: Store | None = None
        self.ids: list[int] = []
        self._reads = 0

    def __enter__(self) -> RunReader:
        if self.args.results:
            return self
        self.store = open_store(self.args, read_only=True)
        try:
            self.ids = named_runs(self.args, self.store, self.many)
            if getattr(self.args, "judge", None) is not None and len(self.ids) > 1:
                raise CimemError("--judge applies to one run: give one --run with it")
            if self.one_run_only is not None and len(self.ids) > 1:
                raise CimemError(self.one_run_only)
        except BaseException:
            self.store.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.store is not None:
            self.store.close()

    def __len__(self) -> int:
        return 1 if self.store is None else len(self.ids)

    def read(self, i: int) -> LeakCube:
        """Run i's cube, once the coverage gate lets its judge through (PartialJudge: exit 2)."""
        if self.store is None:
            cube = cube_from_official(self.args.results)
        else:
            if self._reads:
                self.store.release_cache()
            cube = cube_from_store(self.store, self.ids[i], getattr(self.args, "judge", None))
        self._reads += 1
        check_coverage([cube], self.args.allow_partial, "give --allow-partial")
        return cube


def named_runs(args: argparse.Namespace, store: Store, many: bool) -> list[int]:
    """The run ids of --run, else every run with messages (one run only when not ``many``)."""
    refs = args.run if many else ([args.run] if args.run else None)
    if refs:
        return [store.resolve_run(r) for r in refs]
    ids = [r.run_id for r in store.list_runs() if r.messages > 0]
    if not ids:
        raise CimemError(
            f"{store.shown_path} has no run with messages; import one with `python -m cimem ingest`"
        )
    if not many and len(ids) > 1:
        raise CimemError(
            f"{store.shown_path} has {len(ids)} runs with messages; choose one with --run"
        )
    return ids


def options_from(args: argparse.Namespace, mode: Mode, k: int | None = None) -> MetricOptions:
    exclude = tuple(x.strip() for x in args.exclude.split(",") if x.strip())
    return MetricOptions(
        mode=mode,
        label_rule=args.label_rule,
        exclude=exclude,
        parse_failures=args.parse_failures,
        k=k,
    )
