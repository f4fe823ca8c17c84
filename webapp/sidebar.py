"""The sidebar every page shares (the database, runs, judge, mode and label rule, kept in the
URL's query parameters), the :class:`Choices` it returns, and the openings pages share: a run
with labels, the simulated-data banner, the partial-judge note."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import streamlit as st

from cimem import paths
from cimem.analysis import coverage
from cimem.analysis.cube import LeakCube
from cimem.analysis.labels import LabelRule
from cimem.analysis.leaderboard import default_selection
from cimem.analysis.metrics import MODES, PARSE_FAILURES, MetricOptions, ParseFailures, RunMetrics
from cimem.analysis.options import Mode
from cimem.errors import CimemError
from cimem.store import RunSummary
from cimem.text import plural
from webapp import cache, judge_views
from webapp.cache import DbScope, RunScope
from webapp.connection import (
    db_path,
    default_database,
    ensure_demo_database,
    opened,
    shown_name,
    version,
)
from webapp.render import escape_md

PARTIAL_LABEL = "Use a judge that covers part of a run"


@dataclass
class Choices:
    db: str
    v: float
    runs: list[int]  # selected runs with messages
    run: int | None  # the first selected run (pages that show one)
    judges: dict[int, int]  # a selected run -> the judge chosen for it (absent: its original)
    opts: MetricOptions
    allow_partial: bool = False  # use a judge that covers part of its run
    # runs shown once more under another judge (Overview, Growth): a key below 0 -> (run, judge)
    also: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    view_names: dict[int, str] = field(default_factory=dict)  # key -> which judge, when doubled

    def views(self) -> list[int]:
        """The keys of what Overview and Growth show: each selected run (its id), then each
        run shown again under another judge (a key below 0)."""
        return [*self.runs, *self.also]

    def run_of(self, key: int) -> int:
        """The run a view's key stands for."""
        return self.also[key][0] if key in self.also else key

    @property
    def judge(self) -> int | None:
        """The judge of the first selected run (None: its original verdicts)."""
        return None if self.run is None else self.judges.get(self.run)

    @property
    def run_id(self) -> int:
        """The chosen run, on pages past :func:`labelled_run` (which stops without one)."""
        if self.run is None:
            raise CimemError("no run is chosen")
        return self.run

    @property
    def at(self) -> DbScope:
        """The chosen database at its version: the key of its cached reads."""
        return DbScope(self.db, self.v)

    def scope(self, run_id: int, opts: MetricOptions | None = None) -> RunScope:
        """A selected run under its judge (:func:`judge_for`) and the chosen options (or
        ``opts``): the key of its cached reads; a view's key (:meth:`views`) gives its run
        under its judge, named by it when the run is shown twice."""
        run, judge = self.also.get(run_id, (run_id, judge_for(self, run_id)))
        scope = self.at.run(run, judge, opts or self.opts)
        view = self.view_names.get(run_id)
        return scope if view is None else replace(scope, view=view)

    def describe(self, m: RunMetrics | None = None) -> str:
        """How the numbers on screen were computed."""
        options = self.opts.described()
        parts = [f"{what} **{escape_md(value)}**" for what, value in options[:2]]
        if m is not None:
            parts += [
                f"judge **{escape_md(m.judge)}**",
                f"n = **{escape_md(m.n_said())}**",
                f"k = **{m.k}**",
            ]
        parts += [f"{what} {escape_md(value)}" for what, value in options[2:]]
        return ", ".join(parts)


def judge_for(choices: Choices, run_id: int) -> int | None:
    """The judge chosen for a selected run (None: its original verdicts)."""
    return choices.judges.get(run_id)


def _param(name: str, default: str) -> str:
    return st.query_params.get(name, default)


# ----------------------------------------------------------------------------- the database
def _pick_database() -> None:
    """The picker changed: open that database (the runs and judge belong to the old one)."""
    chosen = st.session_state.get("db_pick") or ""
    if chosen:
        st.query_params["db"] = chosen
    elif "db" in st.query_params:
        del st.query_params["db"]
    for key in ("runs", "judge", "judges"):
        st.session_state.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]
    for key in [k for k in st.session_state if re.fullmatch(r"judge_\d+", str(k))]:
        del st.session_state[key]


def database_picker() -> None:
    """The sidebar's database choice: the default one and the .duckdb files in the data
    folder (a ?db= typed by hand shows as it was typed)."""
    default = default_database()
    options = ["", *paths.databases_in(paths.data_dir())]
    current = st.query_params.get("db", "")
    if current not in options:
        options.append(current)
    st.selectbox(
        "Database",
        options,
        index=options.index(current),
        format_func=lambda o: o or f"{shown_name(default)} (default)",
        key="db_pick",
        on_change=_pick_database,
        help="the .duckdb files in the data folder (CIMEM_DATA_DIR); also ?db=NAME in the URL",
    )


# ----------------------------------------------------------------------------- the sidebar
def sidebar() -> Choices:
    """The database, runs, mode, label rule and judge, kept in the URL query parameters."""
    with st.sidebar:
        database_picker()
    ensure_demo_database()
    db = DbScope(db_path(), version())
    runs = opened(cache.run_summaries, db)  # a clear message when the database cannot be opened
    with_messages = [r for r in runs if r.messages > 0]
    with st.sidebar:
        run_ids: list[int] = []
        judges: dict[int, int] = {}
        also: dict[int, tuple[int, int | None]] = {}
        if not with_messages:
            st.info("No run with messages in this database yet. See the Data page.")
        else:
            run_ids = _run_picker(with_messages)
            judges = _judge_pickers(db, run_ids)
            also = judge_views.picker(db, run_ids, judges)
        allow_partial = st.checkbox(
            PARTIAL_LABEL,
            value=_param("partial", "") == "1",
            key="partial",
            help="A judge that judged some messages of a run (say, re-judged on the Audit page)"
            " describes those messages only; its numbers then say over how many.",
        )
        opts = _metric_options()
        st.divider()
        st.caption(
            "Use your own data: `python -m cimem ingest results.jsonl --db my.duckdb` "
            "(official run output, the benchmark's profiles.json, Hugging Face rows or a "
            "PersistBench file), then open `?db=my.duckdb` or set CIMEM_DB. Run a real "
            "model: `python -m cimem judge --run 1 --model M --base-url URL`."
        )
    _keep_in_url(run_ids, judges, allow_partial, opts)
    judge_views.keep_in_url(also)
    return Choices(
        db=db.path,
        v=db.db_version,
        runs=run_ids,
        run=run_ids[0] if run_ids else None,
        judges=judges,
        opts=opts,
        allow_partial=allow_partial,
        also=also,
        view_names=judge_views.names(db, run_ids, judges, also),
    )


COMPACT_RUNS = 8  # more runs than this in a database: the run list folds under a count


def _run_picker(with_messages: list[RunSummary]) -> list[int]:
    """The runs chosen: those in the URL at first, else :func:`default_selection`'s few (a run
    just imported joins them; runs picked in the leaderboard replace them). With many runs the
    list folds under a count, so the sidebar stays short."""
    labels = {r.run_id: f"{r.run_id}: {r.name}" for r in with_messages}
    parts = [x.strip() for x in _param("runs", "").split(",") if x.strip()]
    wanted = list(dict.fromkeys(int(x) for x in parts if x.isdigit()))  # each run once
    default = [r for r in wanted if r in labels] or _default_runs(with_messages)
    unknown = [x for x in parts if not (x.isdigit() and int(x) in labels)]
    if unknown and "runs" not in st.session_state:  # said once, when the link is opened
        st.caption(
            "The link names runs this database has no messages for ("
            + escape_md(", ".join(unknown[:5]))
            + ("..." if len(unknown) > 5 else "")
            + "): left out."
        )
    chosen = st.session_state.get("runs", default)
    picked = st.session_state.pop("runs_pick", None)
    if picked:  # runs picked in the leaderboard (Overview)
        chosen = list(picked)
    join = st.session_state.pop("runs_join", None)
    if join in labels and join not in chosen:  # a run just imported on the Data page
        chosen = [*chosen, join]
    st.session_state["runs"] = [r for r in chosen if r in labels]
    if len(labels) <= COMPACT_RUNS:
        return _runs_multiselect(labels)
    shown = len(st.session_state["runs"])
    st.caption(
        f"Showing **{shown} of {plural(len(labels), 'run')}**: pick more in the leaderboard (Overview)"
        " or below."
    )
    with st.expander(f"Runs ({shown} selected)"):
        return _runs_multiselect(labels)


def _runs_multiselect(labels: dict[int, str]) -> list[int]:
    return st.multiselect("Runs", list(labels), format_func=lambda r: labels[r], key="runs")


def _default_runs(with_messages: list[RunSummary]) -> list[int]:
    """The few runs a visit opens with when its link names none (the rule is
    :func:`cimem.analysis.leaderboard.default_selection`'s)."""
    return default_selection(with_messages)


def _judge_pickers(db: DbScope, run_ids: list[int]) -> dict[int, int]:
    """A judge for each selected run that has more than one: the first run's in the sidebar,
    the others' folded under it. A run left on its original verdicts is not in the result."""
    wanted = _wanted_judges(run_ids)
    chosen: dict[int, int] = {}
    several = [r for r in run_ids if len(cache.judges_of(db, r)) > 1]
    if run_ids:
        judge = _judge_picker(db, run_ids[0], wanted.get(run_ids[0]), "judge")
        if judge is not None:
            chosen[run_ids[0]] = judge
    others = [r for r in several if r != (run_ids[0] if run_ids else None)]
    if others:
        with st.expander(f"Judges of the other runs ({len(others)} with several)"):
            for r in others:
                judge = _judge_picker(db, r, wanted.get(r), f"judge_{r}")
                if judge is not None:
                    chosen[r] = judge
    return chosen


def _wanted_judges(run_ids: list[int]) -> dict[int, int]:
    """The judges the link asks for: ``judges=RUN:JUDGE,...``, and ``judge=J`` for the first
    run (older links)."""
    wanted: dict[int, int] = {}
    for part in _param("judges", "").split(","):
        run, _, judge = part.partition(":")
        if run.strip().isdigit() and judge.strip().isdigit():
            wanted[int(run)] = int(judge)
    first = _param("judge", "")
    if run_ids and first.isdigit():
        wanted.setdefault(run_ids[0], int(first))
    return wanted


def _judge_picker(db: DbScope, run_id: int, wanted: int | None, key: str) -> int | None:
    """The judge of one chosen run (None: its original verdicts)."""
    judges = cache.judges_of(db, run_id)
    cov = cache.coverage_of(db, run_id)
    jl = {
        j.judge_id: f"{j.judge_id}: {j.name} ({j.kind}), {cov[j.judge_id].describe()}"
        for j in judges
    }
    options = [None, *jl]
    judge: int | None = st.selectbox(
        f"Judge (run {run_id})",
        options,
        index=options.index(wanted) if wanted in options else 0,
        format_func=lambda j: "original verdicts" if j is None else jl[j],
        key=key,
    )
    return judge


def _metric_options() -> MetricOptions:
    """The mode and label rule, and in definition mode, parse failures and excluded keys."""
    mode = st.radio(
        "Metric mode",
        MODES,
        horizontal=True,
        key="mode",
        index=MODES.index(_param("mode", "official")) if _param("mode", "official") in MODES else 0,
        help="official: the official script's numbers, quirks included;"
        " definition: the paper's definitions literally",
    )
    rule_text = st.text_input(
        "Label rule",
        value=_param("rule", "unanimous"),
        key="rule",
        help="unanimous (official), majority, or threshold:X",
    )
    try:
        rule = LabelRule.parse(rule_text).name
    except ValueError as exc:
        st.error(escape_md(exc))
        rule = "unanimous"
    parse_failures: ParseFailures = "exclude"
    exclude: tuple[str, ...] = ()
    if mode == Mode.DEFINITION:
        parse_failures = st.radio(
            "Parse failures",
            PARSE_FAILURES,
            horizontal=True,
            key="pf",
            help="leave unparsed judge replies out, or count them as nothing revealed",
        )
        ex = st.text_input(
            "Exclude keys",
            value=_param("exclude", ""),
            key="exclude",
            help="comma-separated attribute keys left out of the private set",
        )
        exclude = tuple(x.strip() for x in ex.split(",") if x.strip())
    return MetricOptions(mode=mode, label_rule=rule, exclude=exclude, parse_failures=parse_failures)


def _keep_in_url(
    run_ids: list[int], judges: dict[int, int], allow_partial: bool, opts: MetricOptions
) -> None:
    """The choices in the URL's query parameters, so a link opens the same view."""
    said = ",".join(f"{r}:{j}" for r, j in judges.items())
    st.query_params.update(
        {
            "runs": ",".join(map(str, run_ids)),
            "mode": opts.mode,
            "rule": opts.label_rule,
            **({"judges": said} if said else {}),
            **({"partial": "1"} if allow_partial else {}),
        }
    )
    if not allow_partial and "partial" in st.query_params:
        del st.query_params["partial"]
    for name in ("judge", *(() if said else ("judges",))):
        if name in st.query_params:
            del st.query_params[name]


def pick_selection(run_ids: list[int]) -> None:
    """Make these runs the sidebar's selection on the next run of the script (the sidebar is
    drawn before the page that asks, so it reruns)."""
    st.session_state["runs_pick"] = list(run_ids)
    st.rerun()


def join_selection(run_id: int, note: str) -> None:
    """Add a run to the sidebar's selection on the next run of the script (the sidebar is drawn
    before the page, so the Data page asks for a rerun), with a note to show then."""
    st.session_state["runs_join"] = run_id
    st.session_state["import_note"] = note
    st.rerun()


# ----------------------------------------------------------------------------- page openings
def labelled_run(no_labels: str) -> tuple[Choices, LeakCube]:
    """The opening of a page about one run: the choices and the run's cube, or a message and a
    stop when no run is chosen or the run has no labels (``no_labels`` says what that means)."""
    ch: Choices = st.session_state["choices"]
    if ch.run is None:
        st.info("Choose a run with messages in the sidebar (or import one on the Data page).")
        st.stop()
    simulated_banner([ch.run])
    if len(ch.runs) > 1:
        st.caption(
            f"One run at a time here: the first of the {len(ch.runs)} runs selected in the"
            " sidebar. To see another, put it first there (remove the runs before it)."
        )
    run_cube = cache.cube(ch.scope(ch.run))
    check_coverage(ch, [run_cube])
    if not run_cube.has_labels:
        st.warning(no_labels)
        st.stop()
    return ch, run_cube


def labelled_runs(choices: Choices) -> list[int]:
    """The views (:meth:`Choices.views`) whose runs have labels (pages comparing runs); a
    message when there is none and a note naming the runs left out."""
    if not choices.runs:
        st.info(
            "Choose one or more runs with messages in the sidebar (or import one on the Data page)."
        )
        return []
    cubes = {r: cache.cube(choices.scope(r)) for r in choices.views()}
    check_coverage(choices, list(cubes.values()))
    out = [r for r in choices.views() if cubes[r].has_labels]
    names = view_names(choices)
    left = [names.get(r, str(r)) for r in choices.views() if r not in out]
    if not out:
        st.warning(
            "No selected run has labels: nothing counts as a leak. Import a labelled results file"
            " (official run output) or labels (Hugging Face rows)."
        )
    elif left:
        st.caption("Left out (no labels): " + ", ".join(escape_md(x) for x in left))
    return out


def view_names(ch: Choices) -> dict[int, str]:
    """Each view's name as pages show it: the run's, and which judge when it is shown twice."""
    runs = cache.run_names(ch.at)
    out = {k: runs.get(ch.run_of(k), str(ch.run_of(k))) for k in ch.views()}
    return {
        k: f"{name} · {ch.view_names[k]}" if k in ch.view_names else name for k, name in out.items()
    }


def check_coverage(ch: Choices, cubes: list[LeakCube]) -> None:
    """Stop with a message when a judge covers part of its run and the sidebar does not allow
    that; when it does, say over how many messages every number is."""
    try:
        notes = coverage.check_coverage(
            cubes, ch.allow_partial, f'tick "{PARTIAL_LABEL}" in the sidebar'
        )
    except coverage.PartialJudge as exc:
        st.warning(escape_md(exc), icon=":material/rule:")
        st.stop()
    for run, note in notes:
        st.info(f"Every number of run {escape_md(run)} is {escape_md(note)}.")


def simulated_banner(run_ids: list[int]) -> None:
    """A warning when any of these runs is simulated (the demo's are)."""
    if any(r.simulated for r in cache.run_summaries(cache.current()) if r.run_id in run_ids):
        st.warning(
            "SIMULATED data: the demo runs come from simulated assistants, not from any"
            " real model. Import real results on the Data page.",
            icon="⚠️",
        )
