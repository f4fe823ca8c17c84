"""What a report holds, computed once for its HTML and Markdown forms: the Overview table with
intervals and the trade-off's points, each run's growth curve, most leaked attributes and
recipients and heatmap, its judges with their coverage and agreement, the audit's corrected
numbers where people have audited, the message health scan of a stored run, and the provenance
of every number."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

import cimem
from cimem.analysis import overview_table
from cimem.analysis.audit.correction import Corrected, corrected
from cimem.analysis.breakdowns import attribute_table, group_table, pair_table
from cimem.analysis.cube import LeakCube
from cimem.analysis.growth import growth
from cimem.analysis.growth.random_order import ORDERS_PER_PROFILE, ORDERS_PER_RUN
from cimem.analysis.health import FLAG_TEXT, HealthReport, health_report, scan
from cimem.analysis.leak_table import SHARE_CI, interval_texts
from cimem.analysis.leaks import heat_cells
from cimem.analysis.level_curves import profile_set
from cimem.analysis.metrics import INTERVALS, MetricOptions, RunMetrics
from cimem.analysis.overview import common_cells, overview_of, run_part
from cimem.ingest import file_sha256
from cimem.publish.judges import judge_table
from cimem.store import Store

TOP = 10  # attributes, recipients and heatmap rows a report lists per run


@dataclass(frozen=True)
class RunOrigin:
    """Where one run's numbers come from: its file, judge and profile set."""

    run: str
    model: str
    source_file: str
    sha256: str
    judge: str
    judge_model: str
    prompt_hash: str
    n: int
    profiles: int
    profile_set: str  # a short hash of the sorted profile names: equal sets, equal hash
    simulated: bool = False  # made by a simulator, not measured on a model


@dataclass(frozen=True)
class RunCurve:
    """A run's Violation as tasks accumulate (random order), at all its samples per task."""

    run: str
    k: int
    tasks: list[int]
    observed: list[float | None]
    theory: list[float | None]
    method: str
    largest_error: float  # the Monte Carlo standard error's largest value (0: all exact)


@dataclass(frozen=True)
class RunDetail:
    """One run's sections: leaks, judges and the audit."""

    run: str
    attributes: pd.DataFrame
    recipients: pd.DataFrame
    heatmap: pd.DataFrame
    judges: pd.DataFrame
    corrected: Corrected | None
    audit_note: str
    health: HealthReport | None = None  # a stored run's message health scan

    def health_table(self) -> pd.DataFrame:
        """Each flag the scan found with its messages, then the metrics with and without the
        flagged messages (points)."""
        h = self.health
        if h is None:
            return pd.DataFrame()
        rows: list[dict[str, object]] = [
            {"what": FLAG_TEXT[c.flag], "messages": c.messages} for c in h.counts if c.messages
        ]
        rows.append(
            {"what": "flagged, of all messages", "messages": f"{h.flagged} of {h.messages}"}
        )
        for side in h.metrics:
            for name in ("violation", "completeness"):
                every, clean = getattr(side.all, name), getattr(side.clean, name)
                rows.append(
                    {
                        "what": f"{name.capitalize()} %, every message / without flagged",
                        "messages": f"{100 * every.mean:.2f} / {100 * clean.mean:.2f}",
                    }
                )
        return pd.DataFrame(rows)


@dataclass
class Report:
    """Everything a report shows, with how it was computed."""

    title: str
    options: MetricOptions
    headline: pd.DataFrame
    more: pd.DataFrame
    note: str
    intervals: str
    tradeoff: pd.DataFrame
    origins: list[RunOrigin]
    curves: list[RunCurve]
    details: list[RunDetail]
    database: str = "-"
    generated: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    version: str = cimem.__version__

    def provenance_table(self) -> pd.DataFrame:
        """One row per run: where its numbers come from, columns named for a reader."""
        return pd.DataFrame([o.__dict__ for o in self.origins]).rename(
            columns={
                "source_file": "source file",
                "judge_model": "judge model",
                "prompt_hash": "judge prompt hash",
                "profile_set": "profile set",
            }
        )

    @property
    def simulated_warning(self) -> str | None:
        """What a reader must know first when a run is simulated, else None."""
        runs = [o.run for o in self.origins if o.simulated]
        if not runs:
            return None
        return (
            f"SIMULATED data: {', '.join(runs)} {'is' if len(runs) == 1 else 'are'} made by a"
            " simulator, not measured on a model: the numbers show how the metrics work, not"
            " how any model behaves."
        )

    @property
    def how(self) -> str:
        """The line every figure of the report stands under."""
        options = ", ".join(f"{what} {value}" for what, value in self.options.described())
        low, high = ORDERS_PER_PROFILE
        return (
            f"{options}; intervals: {self.intervals}; growth: random task order, expected ratio from"
            f" {ORDERS_PER_RUN:,} task orders per run ({low} to {high} per profile, seed 0),"
            " enumerated where a task count has fewer subsets"
        )


def build_report(
    cubes: list[LeakCube], opts: MetricOptions, store: Store | None = None, title: str = ""
) -> Report:
    """The report of ``cubes`` under ``opts``; ``store``: the database they came from (its
    judges, audit and file hashes), None for a file read directly."""
    return report_of_runs(cubes.__getitem__, len(cubes), opts, store, title)


def report_of_runs(
    read: Callable[[int], LeakCube],
    count: int,
    opts: MetricOptions,
    store: Store | None = None,
    title: str = "",
) -> Report:
    """:func:`build_report` of ``count`` runs, ``read(i)`` giving run i's cube: each run's part
    is computed while its cube is the only one in memory (a run is read a second time only for
    the common columns, when runs differ in n or contexts and still share some)."""
    parts, origins, curves, details = [], [], [], []
    for i in range(count):
        cube = read(i)
        part = run_part(cube, opts, compared=count > 1)
        parts.append(part)
        origins.append(_origin(cube, store))
        curves.append(_curve(cube, opts))
        details.append(_detail(cube, part.metrics, opts, store))
        del cube  # dropped before the next run is read
    ov = overview_of(parts, lambda i, shared, cols: common_cells(read(i), opts, shared, cols))
    points, _front = overview_table.tradeoff_points(ov.table)
    return Report(
        title=title or "CIMemories results",
        options=opts,
        headline=overview_table.headline_table(ov.table),
        more=overview_table.more_table(ov).drop(columns=["simulated"]),
        note=ov.sentence,
        intervals=ov.metrics[0].intervals if ov.metrics else INTERVALS,
        tradeoff=points,
        origins=origins,
        curves=curves,
        details=details,
        database=store.display_name if store is not None else "-",
    )


def _origin(cube: LeakCube, store: Store | None) -> RunOrigin:
    info = cube.info
    sha = judge_model = prompt_hash = "-"
    source = Path(info.source).name if info.source else "-"
    if store is not None and info.run_id is not None:
        row = store.run_config(info.run_id)
        sha = row.get("content_hash") or "-"
        if info.judge_id is not None:
            judge = store.judge_info(info.judge_id)
            judge_model, prompt_hash = judge.model or "-", judge.prompt_hash or "-"
    elif info.source:
        sha = file_sha256(Path(info.source))
    return RunOrigin(
        run=cube.run,
        model=info.model or "-",
        source_file=source,
        sha256=sha,
        judge=cube.judge,
        judge_model=judge_model,
        prompt_hash=prompt_hash,
        n=cube.n_trials,
        profiles=len(cube.profile_names),
        profile_set=profile_set(cube),
        simulated=info.simulated,
    )


def _curve(cube: LeakCube, opts: MetricOptions) -> RunCurve:
    """The curve at k = n, as Growth's first chart and ``cimem growth`` compute it."""
    g = growth(cube, opts, trials=[cube.n_trials] if cube.n_trials else None)
    errors = [x for row in g.stderr or [] for x in row if x == x]
    return RunCurve(
        run=cube.run,
        k=g.trials[-1] if g.trials else 0,
        tasks=g.tasks,
        observed=[row[-1] for row in g.violation],
        theory=[row[-1] for row in g.theory],
        method=g.method,
        largest_error=max(errors, default=0.0),
    )


def _detail(cube: LeakCube, m: RunMetrics, opts: MetricOptions, store: Store | None) -> RunDetail:
    pairs = pair_table(cube, opts)
    fixed, note = None, "No audit: no person has recorded verdicts on this run."
    health = None
    if store is not None and cube.info.run_id is not None:
        fixed, note = _audit(store, cube, opts)
        health = health_report(cube, scan(store.health_messages(cube.info.run_id)), [opts])
    return RunDetail(
        run=cube.run,
        attributes=_top_attributes(pairs),
        recipients=_top_recipients(pairs),
        heatmap=heat_cells(pairs, only_private=True, top=TOP),
        judges=judge_table(store, cube, opts.label_rule) if store is not None else pd.DataFrame(),
        corrected=fixed,
        audit_note=note,
        health=health,
    )


def _audit(store: Store, cube: LeakCube, opts: MetricOptions) -> tuple[Corrected | None, str]:
    run_id = cube.info.run_id
    assert run_id is not None
    human = store.find_human_judge(run_id)
    if human is None or not store.human_verdicts(human):
        return None, "No audit: no person has recorded verdicts on this run."
    if cube.info.judge_id in (None, human) or not cube.has_labels:
        return None, f"People's verdicts (judge {human}) are the judge shown: nothing to correct."
    c = corrected(store, cube, opts, human)
    return c, c.method_sentence(opts.mode) + "."


def _top_attributes(pairs: pd.DataFrame) -> pd.DataFrame:
    t = attribute_table(pairs).head(TOP)
    return pd.DataFrame(
        {
            "profile": t["profile"].astype(str),
            "attribute": t["key"].astype(str),
            "domain": t["domain"].astype(str),
            "leaked in tasks": [
                f"{a:.0f} of {b:.0f}" for a, b in zip(t["leaked_tasks"], t["private_tasks"])
            ],
            "leak rate %": (100 * t["leak_rate"]).round(2),
        }
    )


def _top_recipients(pairs: pd.DataFrame) -> pd.DataFrame:
    t = group_table(pairs, ["recipient"])
    t = t[t["private_pairs"] > 0].head(TOP)
    return pd.DataFrame(
        {
            "recipient": t["recipient"].astype(str),
            "withheld pairs": t["private_pairs"].astype(int),
            "leaked %": (100 * t["pairs_leaked_share"]).round(2),
            SHARE_CI: interval_texts(t["pairs_leaked_lo"], t["pairs_leaked_hi"]),
            "per-message leak %": (100 * t["leak_rate_per_message"]).round(2),
            "Completeness %": (100 * t["completeness"]).round(2),
        }
    )
