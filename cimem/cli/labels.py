"""``labels diff``: how two runs label the contexts they share."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_diff import label_diff
from cimem.analysis.labels import LabelRule
from cimem.analysis.metrics import MetricOptions
from cimem.cli.common import add_db, open_store, pct, positive_int, table
from cimem.cli.people_labels import add_people_label_commands
from cimem.cli.sources import named_runs
from cimem.errors import CimemError

if TYPE_CHECKING:
    from cimem.analysis.label_sources import Scheme
    from cimem.analysis.metrics import MetricOptions
    from cimem.analysis.sensitivity import RunLabels, Sensitivity
    from cimem.store import Store
    from cimem.store.rows import PeoplePairLabel


def cmd_labels_diff(args: argparse.Namespace) -> int:

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


def cmd_labels_sensitivity(args: argparse.Namespace) -> int:
    from cimem.analysis.sensitivity import sensitivity

    with open_store(args, read_only=True) as store:
        ids = named_runs(args, store, many=True)
        people = {i: store.people_labels_of(i) for i in ids}
        schemes = _schemes(args, any(people.values()))
        found = sensitivity(_each_run(store, ids, people), schemes, _options(args))
    if args.json:
        print(json.dumps(found.as_dict()))
        return 0
    _print_sensitivity(found)
    return 0


def _each_run(
    store: Store, ids: list[int], people: dict[int, list[PeoplePairLabel]]
) -> Iterator[RunLabels]:
    """The runs read lazily: one run's cube in memory at a time however many runs are compared,
    and DuckDB's cache of its blocks released before the next is read."""
    from cimem.analysis.sensitivity import RunLabels

    for i in ids:
        yield RunLabels(cube_from_store(store, i), store.persona_fractions(i), people[i])
        store.release_cache()


def _options(args: argparse.Namespace) -> MetricOptions:

    return MetricOptions(mode=args.mode, k=args.n)


def _schemes(args: argparse.Namespace, with_people: bool) -> list[Scheme]:
    """The schemes asked for, else the default ones (and people's, when a run has them)."""
    from cimem.analysis.label_sources import DEFAULT_SCHEMES, PEOPLE_SCHEMES, Scheme

    texts = args.scheme or [*DEFAULT_SCHEMES, *(PEOPLE_SCHEMES if with_people else ())]
    try:
        return [Scheme.parse(t) for t in texts]
    except ValueError as exc:
        raise CimemError(str(exc)) from None


def _print_sensitivity(found: Sensitivity) -> None:
    names = {s.name: f"S{i}" for i, s in enumerate(found.schemes, start=1)}
    n = f"n = {found.options.k}" if found.options.k else "n = every sample"
    print(f"label sensitivity, {found.options.mode} mode, {n}; each run's default judge:")
    for run, judge in found.judges.items():
        print(f"  {run}: {judge}")
    if found.cohort:
        print(f"note: {found.cohort}")
    rows = [
        (names[s.name], s.name, s.describe(), pct(found.ambiguous_share(s.name)))
        + (_tau(r.violation_tau), _tau(r.completeness_tau))
        for s, r in zip(found.schemes, found.ranks)
    ]
    print(table(("", "scheme", "reads", "ambig %", "tau V", "tau C"), rows))
    print("tau: Kendall's tau-b of the runs' ranking against S1's (the official rule)")
    for metric in ("violation", "completeness"):
        print(f"\n{'Violation@n' if metric == 'violation' else 'Completeness'} (%) per run")
        print(_per_run(found, metric, names))
    print("\nshare of pairs left ambiguous (%), per domain")
    domains = sorted({d.domain for d in found.discards})
    cells = {(d.scheme, d.domain): pct(d.share) for d in found.discards}
    print(
        table(
            ("domain", *names.values()),
            [(d, *(cells.get((s, d), "") for s in names)) for d in domains],
        )
    )
    for scheme, why in found.skipped.items():
        for run, reason in why.items():
            print(f"{names[scheme]} ({scheme}) not computed for {run}: {reason}")


def _per_run(found: Sensitivity, metric: str, names: dict[str, str]) -> str:
    rows = [
        (run[:40], *(pct(values[s]) if s in values else "" for s in names))
        for run, values in found.by_run(metric).items()
    ]
    return table(("run", *names.values()), rows)


def _tau(value: float) -> str:
    return "-" if value != value else f"{value:+.2f}"


def add_labels_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "labels",
        help="compare labels: two runs, labelling rules and personas, people's labels",
        description="Labels as data: how two runs label the contexts they share, how much the"
        " metrics and the ranking of runs move under other labelling rules and personas, and"
        " people's own labels (by CSV) with their agreement with the personas.",
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
    _add_sensitivity(lsub)
    add_people_label_commands(lsub)


def _add_sensitivity(lsub: argparse._SubParsersAction) -> None:
    s = lsub.add_parser(
        "sensitivity",
        help="the metrics and the ranking of runs under each persona and labelling rule",
        description="Violation@n and Completeness of each run under labelling schemes: the"
        " official rule (unanimous), the weighted majority, the personas weighted alike, each"
        " single persona (unanimous and majority of its own samples), and people's labels when"
        " there are any (with the official rule on the same pairs beside them). For each:"
        " Kendall's tau-b of the runs' ranking against the official rule's, and the share of"
        " pairs each leaves ambiguous (out of both metrics) per domain. A scheme is RULE or"
        " RULE@SOURCE, SOURCE one of combined, equal, fundamentalist, pragmatic, unconcerned,"
        " reviewed (people's pairs only); `people` is people's labels. Runs are read one at a"
        " time: memory does not grow with the number of runs.",
    )
    add_db(s)
    s.add_argument("--run", action="append", help="a run (repeat; default: every run)")
    s.add_argument("--scheme", action="append", help="a scheme (repeat; default: the set above)")
    s.add_argument("--mode", choices=("official", "definition"), default="official")
    s.add_argument("--n", type=positive_int, help="samples per task (default: all)")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s.set_defaults(func=cmd_labels_sensitivity)
