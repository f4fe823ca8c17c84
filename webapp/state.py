"""App-side state: the database (confined to the data folder, one connection per server, one
cursor per session and thread), the endpoints visitors may call, cached results, and the shared
sidebar.

The only module of the app that knows about Streamlit caching. Pages read the sidebar's choices
from :func:`choices`, call these wrappers or ``cimem``, and draw.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from cimem import paths
from cimem.analysis import coverage
from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.labels import LabelRule
from cimem.analysis.metrics import (
    MODES,
    PARSE_FAILURES,
    MetricOptions,
    ParseFailures,
    RunMetrics,
    compute,
)
from cimem.errors import CimemError
from cimem.llm.client import NO_KEY
from cimem.llm.endpoints import (
    Endpoint,
    EndpointConfig,
    load_endpoint_file,
    parse_endpoint_config,
)
from cimem.store import DatabaseRefused, Store
from webapp import warm
from webapp.render import escape_md

DEMO_DB = warm.DEMO_DB
PARTIAL_LABEL = "Use a judge that covers part of a run"


# ----------------------------------------------------------------------------- the database
@dataclass(frozen=True)
class Database:
    path: str  # resolved, for opening
    shown: str  # what the visitor may see: what they typed, or a name inside the data folder


def _shown(path: str) -> str:
    """A server path as a visitor may see it: relative to the data folder, else its name."""
    p = Path(path).resolve()
    root = paths.data_dir()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else p.name


def database() -> Database:
    """?db= in the URL (confined to the data folder), else $CIMEM_DB, else the demo database.
    A ?db= the data folder does not allow stops the page with one line saying why. A ?db= opens
    only a database that exists: a visit is no way to create files on the server (the operator
    creates one with $CIMEM_DB or ``python -m cimem ingest FILE --db NAME``)."""
    typed = st.query_params.get("db")
    if typed:
        try:
            found = paths.confine(typed, paths.data_dir(), paths.DATABASE_SUFFIXES)
        except paths.PathRefused as exc:
            st.error(escape_md(exc))
            st.stop()
        return Database(str(found), typed)
    path = warm.default_database()
    return Database(path, _shown(path))


def db_path() -> str:
    """The database's resolved path (see :func:`database`)."""
    return database().path


def ensure_demo_database() -> None:
    """Build the demo database from data/demo the first time (a few seconds)."""
    if db_path() == str(DEMO_DB) and not DEMO_DB.exists():
        from cimem.demo.simulate import build_demo_database

        with st.spinner("First run: building the demo database from data/demo (simulated data)..."):
            DEMO_DB.parent.mkdir(parents=True, exist_ok=True)
            tmp = DEMO_DB.with_suffix(".building")
            tmp.unlink(missing_ok=True)
            build_demo_database(tmp)
            tmp.rename(DEMO_DB)


def _root(path: str) -> Store:
    """The server's one connection to a database (shared with the warm start)."""
    return warm.root(path)


_threads = threading.local()


def _store(path: str) -> Store:
    """This session's cursor on the database, in this thread: its own transactions, reading the
    last committed state (a second visitor keeps browsing while the first imports); every write
    goes through the database's one write lock (:meth:`cimem.store.Store.transaction`)."""
    root = _root(path)
    ctx = get_script_run_ctx()
    key = (path, ctx.session_id if ctx is not None else "")
    cursors = _threads.__dict__.setdefault("cursors", {})
    found = cursors.get(key)
    if found is None or found[0] is not root:
        found = cursors[key] = (root, root.cursor())
    return found[1]


def store() -> Store:
    """The open database; when it cannot be opened (another process holds it, it is not a
    cimem database), one line saying so, and a stop."""
    db = database()
    try:
        return _store(db.path)
    except DatabaseRefused as exc:
        st.error(escape_md(f"{db.shown}: {exc.reason}"))
        st.stop()
    except CimemError as exc:
        st.error(escape_md(exc))
        st.stop()


def _pick_database() -> None:
    """The picker changed: open that database (the runs and judge belong to the old one)."""
    chosen = st.session_state.get("db_pick") or ""
    if chosen:
        st.query_params["db"] = chosen
    elif "db" in st.query_params:
        del st.query_params["db"]
    for key in ("runs", "judge"):
        st.session_state.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]


def database_picker() -> None:
    """The sidebar's database choice: the default one and the .duckdb files in the data
    folder (a ?db= typed by hand shows as it was typed)."""
    default = warm.default_database()
    options = ["", *paths.databases_in(paths.data_dir())]
    current = st.query_params.get("db", "")
    if current not in options:
        options.append(current)
    st.selectbox(
        "Database",
        options,
        index=options.index(current),
        format_func=lambda o: o or f"{_shown(default)} (default)",
        key="db_pick",
        on_change=_pick_database,
        help="the .duckdb files in the data folder (CIMEM_DATA_DIR); also ?db=NAME in the URL",
    )


def version() -> float:
    """Changes whenever the database file changes: the key that invalidates cached results."""
    return warm.file_version(db_path())


def changed() -> None:
    """Call after a write: forget cached results (the big shared ones too)."""
    st.cache_data.clear()
    shared: tuple = (cube, pairs, _view, leak_tables, group_tables, leaky_pairs)
    for made in (*shared, review_queue, sample_queue, _growth_slice):
        made.clear()


# ----------------------------------------------------------------------------- endpoints
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def _secrets() -> dict:
    try:
        return dict(st.secrets)
    except Exception:  # no secrets file (Streamlit raises rather than returning nothing)
        return {}


def endpoint_config() -> EndpointConfig:
    """The operator's endpoints: the CIMEM_ENDPOINTS file's, then the Streamlit secrets' (whose
    allow_free_endpoints, when set, wins)."""
    from_file = load_endpoint_file()
    secrets = _secrets()
    from_secrets = parse_endpoint_config(
        {k: secrets[k] for k in ("endpoints", "allow_free_endpoints") if k in secrets},
        "Streamlit secrets",
    )
    endpoints = from_file.endpoints + from_secrets.endpoints
    if len({e.name for e in endpoints}) != len(endpoints):
        raise CimemError("endpoints: the same name is listed in CIMEM_ENDPOINTS and the secrets")
    allow = from_file.allow_free if from_secrets.allow_free is None else from_secrets.allow_free
    return EndpointConfig(endpoints, allow)


def _host(value: str | None) -> str | None:
    """The host of an address or a Host header (port and IPv6 brackets taken off)."""
    if not value:
        return None
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def is_local(
    address: str | None, visitor_ip: str | None, host_header: str | None, proxied: bool = False
) -> bool:
    """The server listens on loopback only, this visitor came through loopback (Streamlit
    reports no IP for it) to a loopback name, and no proxy forwarded the request: nobody else
    can be using the app.

    >>> is_local("127.0.0.1", None, "localhost:8501")
    True
    >>> is_local("0.0.0.0", None, "localhost:8501"), is_local("127.0.0.1", None, None)
    (False, False)
    """
    return (
        _host(address) in _LOOPBACK
        and (visitor_ip is None or _host(visitor_ip) in _LOOPBACK)
        and _host(host_header) in _LOOPBACK
        and not proxied
    )


_PROXY_HEADERS = ("X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "X-Real-Ip")


def free_endpoints_allowed(cfg: EndpointConfig) -> bool:
    """May this visitor type an endpoint of their own? The operator's allow_free_endpoints;
    unset: only on a server nobody else reaches (off when served)."""
    if cfg.allow_free is not None:
        return cfg.allow_free
    try:
        ip, headers = st.context.ip_address, st.context.headers
        host = headers.get("Host")
        proxied = any(headers.get(h) for h in _PROXY_HEADERS)
    except Exception:  # no browser behind this run (tests)
        ip, host, proxied = None, None, True
    return is_local(st.get_option("server.address"), ip, host, proxied)


def endpoint_key(endpoint: Endpoint) -> str:
    """A listed endpoint's key, from the environment or the secrets under its key_env; a
    placeholder when it lists none (the server's other keys are never sent)."""
    if endpoint.key_env is None:
        return NO_KEY
    key = os.environ.get(endpoint.key_env) or _secrets().get(endpoint.key_env)
    if not key:
        raise CimemError(
            f"endpoint {endpoint.name}: the server has no key in {endpoint.key_env}"
            " (environment or Streamlit secrets)"
        )
    return str(key)


# ----------------------------------------------------------------------------- cached reads
# Every cached read takes the database path and its version (hashed, so a changed file is read
# again); changed() also forgets everything after the app's own writes. The big read-only
# objects (a run's cube, its pair table, a filtered view) are shared resources: st.cache_data
# would unpickle a copy of millions of rows on every rerun.
@st.cache_data(show_spinner=False, max_entries=64)
def runs_frame(path: str, db_version: float):
    import pandas as pd

    return pd.DataFrame([r.__dict__ for r in _store(path).list_runs()])


@st.cache_data(show_spinner=False, max_entries=32)
def judges_of(path: str, db_version: float, run_id: int):
    return _store(path).judges(run_id)


@st.cache_data(show_spinner=False, max_entries=32)
def coverage_of(path: str, db_version: float, run_id: int):
    """{judge_id: JudgeCoverage} of a run's judges."""
    return {c.judge_id: c for c in _store(path).judge_coverage(run_id)}


# The queues are shared resources (read-only): copying a queue of thousands of items out of
# st.cache_data cost about 40 ms of every Next.
@st.cache_resource(show_spinner="Building the review queue...", max_entries=32)
def review_queue(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    vs: int | None,
    filter: str,
    label_rule: str,
    profile: str,
    task: str,
    attribute: str,
):
    """The Audit page's queue (task matches the task or the recipient)."""
    from cimem.analysis.audit.queue import Narrowing, narrow
    from cimem.analysis.audit.queue import review_queue as build

    q = build(_store(path), run_id, judge_id, vs=vs, filter=filter, label_rule=label_rule)
    return narrow(q, Narrowing(profile=profile, task_or_recipient=task, attribute=attribute))


@st.cache_resource(show_spinner="Drawing the audit sample...", max_entries=16)
def sample_queue(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    size: int,
    seed: int,
):
    """The suggested audit sample of a run under a judge, as a queue with its progress."""
    from cimem.analysis.audit.queue import sample_queue as build
    from cimem.analysis.audit.sample import audit_sample
    from cimem.analysis.metrics import prepare

    run_cube = cube(path, db_version, run_id, judge_id)
    rows = audit_sample(_store(path), prepare(run_cube, opts), size, seed)
    judge = run_cube.info.judge_id
    if judge is None:
        raise CimemError(f"run {run_id} has no judge: there is nothing to audit")
    return build(_store(path), run_id, judge, rows)


@st.cache_data(show_spinner=False, max_entries=32)
def human_judge_of(path: str, db_version: float, run_id: int) -> int | None:
    """The run's human judge when people have recorded verdicts on it, else None."""
    human = _store(path).human_judge_of(run_id)
    return human if human is not None and _store(path).human_verdicts(human) else None


@st.cache_data(show_spinner="Correcting for the judge's errors...", max_entries=16)
def corrected(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    human: int,
):
    """Violation and Completeness of a run under a judge, corrected from people's verdicts."""
    from cimem.analysis.audit.correction import corrected as build

    return build(_store(path), cube(path, db_version, run_id, judge_id), opts, human)


@st.cache_resource(show_spinner="Reading the run...", max_entries=16)
def cube(path: str, db_version: float, run_id: int, judge_id: int | None) -> LeakCube:
    warmed = warm.take_cube(path, db_version, run_id, judge_id)
    return warmed if warmed is not None else cube_from_store(_store(path), run_id, judge_id)


@st.cache_data(show_spinner=False, max_entries=64)
def metrics(
    path: str, db_version: float, run_id: int, judge_id: int | None, opts: MetricOptions
) -> RunMetrics:
    return compute(cube(path, db_version, run_id, judge_id), opts)


@st.cache_resource(show_spinner=False, max_entries=16)
def pairs(path: str, db_version: float, run_id: int, judge_id: int | None, opts: MetricOptions):
    """Every labelled pair of a run with its leaks (the Leaks and Growth pages' base table)."""
    from cimem.analysis.breakdowns import pair_table

    return pair_table(cube(path, db_version, run_id, judge_id), opts)


@st.cache_resource(show_spinner=False, max_entries=32)
def _view(path: str, db_version: float, run_id, judge_id, opts: MetricOptions, filters: tuple):
    """The pairs matching the Leaks page's filters (shared, never copied: read only)."""
    made = _made_ahead(path, db_version, run_id, judge_id, opts, filters)
    if made is not None:
        return made.view
    return filtered_pairs(pairs(path, db_version, run_id, judge_id, opts), filters)


@st.cache_data(show_spinner=False, max_entries=16)
def filter_options(path: str, db_version: float, run_id, judge_id, opts: MetricOptions) -> dict:
    """The Leaks page's filter choices, sorted (profile, domain, event, recipient, task)."""
    table = pairs(path, db_version, run_id, judge_id, opts)
    return {
        col: sorted(str(x) for x in table[col].dropna().unique())
        for col in ("profile", "domain", "event", "recipient", "task")
    }


@st.cache_data(show_spinner=False, max_entries=16)
def _full_columns(
    path: str, db_version: float, run_id, judge_id, opts: MetricOptions
) -> dict[str, frozenset[str]]:
    """Per filter column without a missing value: every value it has."""
    table = pairs(path, db_version, run_id, judge_id, opts)
    return {
        col: frozenset(str(x) for x in table[col].unique())
        for col in ("profile", "domain", "event", "recipient", "task")
        if table[col].notna().all()
    }


def drop_full_choices(filters: tuple, full: dict[str, frozenset[str]]) -> tuple:
    """The filters less those that choose every value of a column with no missing value: such a
    filter keeps every pair ("Select all" of the domains is the whole run), and without it the
    page finds what it has made already.

    >>> full = {"domain": frozenset({"a", "b"}), "task": frozenset({"t", "u"})}
    >>> drop_full_choices((("domain", ("b", "a")), ("task", ("t",)), ("search", "x")), full)
    (('task', ('t',)), ('search', 'x'))
    >>> drop_full_choices((("event", ("e",)),), full)  # a column with a missing value: kept
    (('event', ('e',)),)
    """
    return tuple(
        (col, chosen) for col, chosen in filters if not (col in full and full[col] <= set(chosen))
    )


def effective_filters(path: str, db_version: float, run_id, judge_id, opts, filters) -> tuple:
    """The Leaks page's filters as they act on this run (:func:`drop_full_choices`)."""
    return drop_full_choices(filters, _full_columns(path, db_version, run_id, judge_id, opts))


def matching_pairs(path: str, db_version: float, run_id, judge_id, opts, filters: tuple) -> int:
    return len(_view(path, db_version, run_id, judge_id, opts, filters))


# The Leaks page's tables and leaked pairs are shared read-only, like the view they come from:
# st.cache_data would pickle each new filter's tables and copy them out on every rerun.
@st.cache_resource(show_spinner=False, max_entries=64)
def leak_tables(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    filters: tuple,
):
    """The Leaks page's tables always on screen, for one filter selection: attributes, and
    recipients (with tasks). Shared: read only."""
    made = _made_ahead(path, db_version, run_id, judge_id, opts, filters)
    if made is not None:
        return made.tables
    return _leak_tables(_view(path, db_version, run_id, judge_id, opts, filters))


def _leak_tables(view):
    from cimem.analysis.breakdowns import attribute_table, group_table

    return attribute_table(view), group_table(view, ["recipient", "task"])


@st.cache_resource(show_spinner=False, max_entries=64)
def group_tables(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    filters: tuple,
):
    """The Leaks page's folded tables (made when opened), for one filter selection: domains and
    profiles. Shared: read only."""
    from cimem.analysis.breakdowns import group_table

    view = _view(path, db_version, run_id, judge_id, opts, filters)
    return group_table(view, ["domain"]), group_table(view, ["profile"])


@st.cache_data(show_spinner=False, max_entries=64)
def heat_cells(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    filters: tuple,
    only_private: bool,
    top: int,
):
    """The heatmap's cells for the ``top`` most leaked attributes only (what is on screen), with
    compact row and column labels that keep the distinguishing end of long names, unique, and
    their places (row_order: most leaked attribute first; column_order: most leaked task).
    Made in the background when :func:`prefetch_heat_cells` started them."""
    started = _claim(("heat", path, db_version, run_id, judge_id, opts, filters, only_private, top))
    if started is not None:
        return started.result()
    made = _made_ahead(path, db_version, run_id, judge_id, opts, filters)
    if made is not None and made.heat_for == (only_private, top):
        return made.cells
    return _heat_cells(_view(path, db_version, run_id, judge_id, opts, filters), only_private, top)


def prefetch_heat_cells(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    filters: tuple,
    only_private: bool,
    top: int,
) -> None:
    """Start making these heatmap cells in the background (the other colouring of the heatmap
    on screen, which its toggle shows next), unless started already."""
    key = ("heat", path, db_version, run_id, judge_id, opts, filters, only_private, top)
    view = _view(path, db_version, run_id, judge_id, opts, filters)
    _start(key, _heat_cells, view, only_private, top)


def _heat_cells(view, only_private: bool, top: int):
    from cimem.analysis.breakdowns import heatmap_table, most_leaked_keys

    keys = most_leaked_keys(view, only_private, top)
    cells = heatmap_table(view[view["key"].isin(keys)], only_private=only_private)
    by_ctx = cells.groupby("context")["leaks"].sum().sort_values(ascending=False, kind="stable")
    cells = cells.assign(
        row=cells["key"].map(compact_labels(keys, 34)),
        column=cells["context"].map(compact_labels(list(by_ctx.index), 40)),
        _r=cells["key"].map({k: i for i, k in enumerate(keys)}),
        _c=cells["context"].map({c: i for i, c in enumerate(by_ctx.index)}),
    ).sort_values(["_r", "_c"])
    keep = ["row", "column", "key", "context", "label", "leaks", "samples", "frequency", "profiles"]
    out = cells[keep].reset_index(drop=True)
    out["row_order"] = cells["_r"].to_numpy()
    out["column_order"] = cells["_c"].to_numpy()
    # repeated names sent once each (Arrow dictionaries): a heatmap's rows carry their attribute
    # and task in full for the tooltip, and were a third of a megabyte as plain strings
    for col in ("row", "column", "key", "context", "label"):
        out[col] = out[col].astype(str).astype("category")
    return out


@dataclass(frozen=True)
class LeaksPage:
    """What the Leaks page draws for one filter selection, made ahead in the background."""

    view: object  # the matching pairs
    tables: tuple  # attributes, recipients
    leaky: object  # the leaked pairs
    heat_for: tuple[bool, int]  # (only_private, top) of the cells
    cells: object  # the heatmap's cells


def _make_page(table, filters: tuple, only_private: bool, top: int) -> LeaksPage:
    view = filtered_pairs(table, filters)
    return LeaksPage(
        view,
        _leak_tables(view),
        _leaky_pairs(view),
        (only_private, top),
        _heat_cells(view, only_private, top),
    )


def _made_ahead(path: str, db_version: float, run_id, judge_id, opts, filters) -> LeaksPage | None:
    """The Leaks page for these filters if :func:`prefetch_leaks_pages` made it (waits for it
    when it is under way; None when it had not begun: :func:`_claim`)."""
    started = _claim(("leaks", path, db_version, run_id, judge_id, opts, filters))
    return None if started is None else started.result()


# At most this many values in a column for the Leaks page to make each value's page ahead.
ONE_VALUE_PAGES = 12


def prefetch_leaks_pages(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    column: str,
    only_private: bool,
    top: int,
) -> None:
    """Start making, in the background, the Leaks page of each value of ``column`` chosen alone
    (the filter a visitor most often sets first: the benchmark has ten domains), unless the
    column has more than ONE_VALUE_PAGES values. One domain's page took about 35 ms on a
    60-profile run, and two to three times that while the browser was busy: most of what the
    server did for a new filter."""
    values = filter_options(path, db_version, run_id, judge_id, opts)[column]
    if len(values) > ONE_VALUE_PAGES:
        return
    table = pairs(path, db_version, run_id, judge_id, opts)
    full = _full_columns(path, db_version, run_id, judge_id, opts)
    for value in values:
        filters = drop_full_choices(((column, (value,)),), full)
        if filters:  # (a column of one value: choosing it is no filter, and that page is made)
            key = ("leaks", path, db_version, run_id, judge_id, opts, filters)
            _start(key, _make_page, table, filters, only_private, top)


def make_leaks_page(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    filters: tuple,
    only_private: bool,
    top: int,
) -> None:
    """Make (and cache) what the Leaks page draws for these filters: the tables, the leaked
    pairs and the heatmap's cells (nothing when no pair matches)."""
    if matching_pairs(path, db_version, run_id, judge_id, opts, filters):
        leak_tables(path, db_version, run_id, judge_id, opts, filters)
        leaky_pairs(path, db_version, run_id, judge_id, opts, filters)
        heat_cells(path, db_version, run_id, judge_id, opts, filters, only_private, top)


def compact_labels(names: list[str], width: int) -> dict[str, str]:
    """name -> a label of at most ``width`` characters: the start and the END of a long name
    (keys that share a long prefix differ at the end), made unique."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for name in names:
        text = str(name)
        if len(text) > width:
            head = max(6, width // 3)
            text = text[:head] + "…" + text[-(width - head - 1) :]
        while text in seen:  # still equal: keep more of the end
            text = "…" + str(name)[-(len(text)) :]
            if text in seen:
                text = str(name)
        seen.add(text)
        out[name] = text
    return out


@st.cache_resource(show_spinner=False, max_entries=64)
def leaky_pairs(path: str, db_version: float, run_id, judge_id, opts: MetricOptions, filters):
    """The pairs with a leak (most leaks first), for the message list. Shared: read only."""
    made = _made_ahead(path, db_version, run_id, judge_id, opts, filters)
    if made is not None:
        return made.leaky
    return _leaky_pairs(_view(path, db_version, run_id, judge_id, opts, filters))


def _leaky_pairs(view):
    leaky = view[(view["leaks"] > 0) & view["in_violation"]]
    leaky = leaky.sort_values("leaks", ascending=False, kind="stable")
    out = leaky[
        ["profile", "profile_pos", "ctx", "attr", "key", "recipient", "task", "label"]
        + ["leaks", "samples"]
    ].astype({"profile": str, "key": str, "recipient": str, "task": str, "label": str})
    out["context"] = out["recipient"] + ": " + out["task"]
    out["pair"] = (  # how the page's pair picker names it
        out["profile"] + " · " + out["key"] + " → " + out["recipient"]
    ) + (" (" + out["leaks"].astype(str) + "/" + out["samples"].astype(str) + ")")
    return out.reset_index(drop=True)


@st.cache_data(show_spinner=False, max_entries=16)
def ranked_attributes(
    path: str, db_version: float, run_id: int, judge_id: int | None, opts: MetricOptions
):
    """Every attribute of the run, most leaked first (the Growth page's attribute picker): a
    small table of its own, so a rerun does not copy all of the Leaks page's tables."""
    from cimem.analysis.breakdowns import attribute_table

    return attribute_table(pairs(path, db_version, run_id, judge_id, opts))[["profile", "key"]]


def filtered_pairs(table, filters: tuple):
    """Rows matching ((column, values), ...) and an optional ("search", text) on the key."""
    import pandas as pd

    sel = pd.Series(True, index=table.index)
    for col, chosen in filters:
        if col == "search":
            sel &= table["key"].str.contains(chosen, case=False, regex=False)
        elif chosen:
            sel &= table[col].isin(chosen)
    return table[sel]


@st.cache_data(show_spinner=False, max_entries=16)
def overview(path: str, db_version: float, runs: tuple, judges: tuple, opts: MetricOptions):
    from cimem.analysis.overview import overview as build

    return build(
        [cube(path, db_version, r, j) for r, j in zip(runs, judges)],
        opts,
        [metrics(path, db_version, r, j, opts) for r, j in zip(runs, judges)],
    )


# a shared read-only resource, not a copy per call: a whole-grid curve keeps every profile's
# grid, and copying it out of the cache cost a page change about 70 ms
@st.cache_resource(show_spinner="Computing the curves...", max_entries=128)
def _growth_slice(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    order: str,
    samples: str,
    method: str,
    tasks: tuple | None,
    trials: tuple | None,
):
    started = _claim(
        (path, db_version, run_id, judge_id, opts, order, samples, method, tasks, trials)
    )
    if started is not None:  # under way or done in the background: the same call
        return started.result()
    return _curve(
        cube(path, db_version, run_id, judge_id), opts, order, samples, method, tasks, trials
    )


def _curve(run_cube: LeakCube, opts, order, samples, method, tasks, trials):
    """A run's growth curve as the page draws it (what a slice and a prefetch both compute)."""
    from cimem.analysis.growth import growth

    return growth(
        run_cube,
        opts,
        order=order,
        samples=samples,
        method=method,
        draws=GROWTH_DRAWS,
        tasks=list(tasks) if tasks else None,
        trials=list(trials) if trials else None,
    )


GROWTH_DRAWS = 32  # random task orders per profile for the expected ratio (its error is shown)
# Work started in the background before anyone asks (prefetch_growth's curves, by the key
# _growth_slice caches them under; prefetch_heat_cells's cells): one worker, so a prefetch never
# takes both cores.
_prefetch_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cimem-prefetch")
_prefetch_lock = threading.Lock()
_prefetched: dict[tuple, Future] = {}
PREFETCH_KEPT = 64


def prefetch_growth(
    choices: Choices,
    run_ids: list[int],
    order: str,
    samples: str,
    method: str,
    slices: Sequence[tuple[tuple | None, tuple | None]] | None = None,
):
    """Start computing the runs' curves in the background, by the key ``_growth_slice`` caches
    them under, so that a change finds them made or under way: the whole grid under another task
    ``order`` (the worst order takes about 0.3-0.5 s per 60-profile run), or the random order's
    ``slices`` (tasks, trials) a slider may ask for next (0.17 s per run and k). Nothing is
    started twice; the oldest unused ones are forgotten."""
    for tasks, trials in slices or [(None, None)]:
        for r in run_ids:
            judge = judge_for(choices, r)
            key = (
                choices.db,
                choices.v,
                r,
                judge,
                choices.opts,
                order,
                samples,
                method,
                tasks,
                trials,
            )
            if _ahead(key) is None:  # (looking up the cube costs a little: not for nothing)
                run_cube = cube(choices.db, choices.v, r, judge)
                _start(key, _curve, run_cube, choices.opts, order, samples, method, tasks, trials)


def _ahead(key: tuple) -> Future | None:
    """The work started in the background under ``key``, done or under way, if any."""
    with _prefetch_lock:
        return _prefetched.get(key)


def _claim(key: tuple) -> Future | None:
    """The work started in the background under ``key`` for a caller that needs it now: under
    way or done; None when there is none, or when it had not begun, which is then taken off the
    queue (made at once by the caller, it does not wait behind the work queued before it: a
    Leaks page queues ten domains' pages)."""
    with _prefetch_lock:
        started = _prefetched.get(key)
        if started is not None and started.cancel():
            del _prefetched[key]
            return None
        return started


def _start(key: tuple, make: Callable, *args) -> None:
    """Run make(*args) on the one background worker, kept under ``key`` (unless there already);
    the oldest unused results are forgotten."""
    with _prefetch_lock:
        if key in _prefetched:
            return
        while len(_prefetched) >= PREFETCH_KEPT:
            _prefetched.pop(next(iter(_prefetched))).cancel()
        _prefetched[key] = _prefetch_pool.submit(make, *args)


def wait_for_prefetch(timeout: float) -> bool:
    """Wait until everything started in the background is made (the server's own first visit
    is not over before that); False when ``timeout`` seconds were not enough."""
    with _prefetch_lock:
        pending = list(_prefetched.values())
    done, not_done = wait(pending, timeout=timeout)
    return not not_done


def growth_slice(
    choices: Choices,
    run_id: int,
    order: str,
    samples: str,
    method: str,
    tasks: tuple | None = None,
    trials: tuple | None = None,
):
    """A run's growth curve at the given task counts and samples per task (None: all of them).
    The same random task orders serve every slice (one seed per run), so two slices agree
    where they meet, and each slice is computed once. A fixed or worst order gives every task
    count at once, so there the whole grid is computed once and serves every slice."""
    if order != "random":
        tasks = trials = None
    return _growth_slice(
        choices.db,
        choices.v,
        run_id,
        judge_for(choices, run_id),
        choices.opts,
        order,
        samples,
        method,
        tasks,
        trials,
    )


@st.cache_data(show_spinner=False, max_entries=16)
def composition(path: str, db_version: float, run_id: int, judge_id: int | None):
    """The memory-composition curve of a run, or None when it has no composition messages."""
    from cimem.analysis.composition import composition_curve

    if not store().has_composition(run_id):
        return None
    return composition_curve(store(), run_id, judge_id)


@st.cache_data(show_spinner=False, max_entries=64)
def attribute_view(
    path: str,
    db_version: float,
    run_id: int,
    judge_id: int | None,
    opts: MetricOptions,
    profile: str,
    key: str,
):
    from cimem.analysis.growth import attribute_view as build

    return build(cube(path, db_version, run_id, judge_id), profile, key, opts)


# ----------------------------------------------------------------------------- the sidebar
@dataclass
class Choices:
    db: str
    v: float
    runs: list[int]  # selected runs with messages
    run: int | None  # the first selected run (pages that show one)
    judge: int | None  # judge of `run` (None: its original verdicts)
    opts: MetricOptions
    allow_partial: bool = False  # use a judge that covers part of its run

    @property
    def run_id(self) -> int:
        """The chosen run, on pages past :func:`labelled_run` (which stops without one)."""
        if self.run is None:
            raise CimemError("no run is chosen")
        return self.run

    def describe(self, m: RunMetrics | None = None) -> str:
        """How the numbers on screen were computed."""
        o = self.opts
        parts = [f"mode **{o.mode}**", f"label rule **{escape_md(o.label_rule)}**"]
        if m is not None:
            parts += [f"judge **{escape_md(m.judge)}**", f"n = **{m.n_trials}**", f"k = **{m.k}**"]
        if o.mode == "definition":
            parts.append(
                "parse failures "
                + ("excluded" if o.parse_failures == "exclude" else "counted as nothing revealed")
            )
            if o.exclude:
                parts.append("excluded keys " + escape_md(", ".join(o.exclude)))
        return ", ".join(parts)


def _param(name: str, default: str) -> str:
    return st.query_params.get(name, default)


def sidebar() -> Choices:
    """The database, runs, mode, label rule and judge, kept in the URL query parameters."""
    with st.sidebar:
        database_picker()
    ensure_demo_database()
    store()  # a clear message when the database cannot be opened
    path, v = db_path(), version()
    runs = runs_frame(path, v)
    with_messages = runs[runs["messages"] > 0] if not runs.empty else runs
    with st.sidebar:
        run_ids: list[int] = []
        judge_id = None
        if with_messages.empty:
            st.info("No run with messages in this database yet. See the Data page.")
        else:
            labels = {int(r.run_id): f"{r.run_id}: {r.name}" for r in with_messages.itertuples()}
            wanted = [int(x) for x in _param("runs", "").split(",") if x.strip().isdigit()]
            default = [r for r in wanted if r in labels] or list(labels)
            chosen = st.session_state.get("runs", default)
            join = st.session_state.pop("runs_join", None)
            if join in labels and join not in chosen:  # a run just imported on the Data page
                chosen = [*chosen, join]
            st.session_state["runs"] = [r for r in chosen if r in labels]
            run_ids = st.multiselect(
                "Runs", list(labels), format_func=lambda r: labels[r], key="runs"
            )
            if run_ids:
                judges = judges_of(path, v, run_ids[0])
                cov = coverage_of(path, v, run_ids[0])
                jl = {
                    j.judge_id: f"{j.judge_id}: {j.name} ({j.kind}), {cov[j.judge_id].describe()}"
                    for j in judges
                }
                want_j = _param("judge", "")
                jdefault = int(want_j) if want_j.isdigit() and int(want_j) in jl else None
                options = [None, *jl]
                judge_id = st.selectbox(
                    f"Judge (run {run_ids[0]})",
                    options,
                    index=options.index(jdefault) if jdefault in options else 0,
                    format_func=lambda j: "original verdicts" if j is None else jl[j],
                    key="judge",
                )
        allow_partial = st.checkbox(
            PARTIAL_LABEL,
            value=_param("partial", "") == "1",
            key="partial",
            help="A judge that judged some messages of a run (say, re-judged on the Audit page)"
            " describes those messages only; its numbers then say over how many.",
        )
        mode = st.radio(
            "Metric mode",
            MODES,
            horizontal=True,
            key="mode",
            index=MODES.index(_param("mode", "official"))
            if _param("mode", "official") in MODES
            else 0,
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
        if mode == "definition":
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
        st.divider()
        st.caption(
            "Use your own data: `python -m cimem ingest results.jsonl --db my.duckdb` "
            "(official run output, the benchmark's profiles.json, Hugging Face rows or a "
            "PersistBench file), then open `?db=my.duckdb` or set CIMEM_DB. Run a real "
            "model: `python -m cimem judge --run 1 --model M --base-url URL`."
        )
    st.query_params.update(
        {
            "runs": ",".join(map(str, run_ids)),
            "mode": mode,
            "rule": rule,
            **({"judge": str(judge_id)} if judge_id is not None else {}),
            **({"partial": "1"} if allow_partial else {}),
        }
    )
    if not allow_partial and "partial" in st.query_params:
        del st.query_params["partial"]
    if judge_id is None and "judge" in st.query_params:
        del st.query_params["judge"]
    opts = MetricOptions(mode=mode, label_rule=rule, exclude=exclude, parse_failures=parse_failures)
    return Choices(
        db=path,
        v=v,
        runs=run_ids,
        run=run_ids[0] if run_ids else None,
        judge=judge_id,
        opts=opts,
        allow_partial=allow_partial,
    )


def join_selection(run_id: int, note: str) -> None:
    """Add a run to the sidebar's selection on the next run of the script (the sidebar is drawn
    before the page, so the Data page asks for a rerun), with a note to show then."""
    st.session_state["runs_join"] = run_id
    st.session_state["import_note"] = note
    st.rerun()


def judge_for(choices: Choices, run_id: int) -> int | None:
    """The chosen judge applies to the first run; others use their original verdicts."""
    return choices.judge if run_id == choices.run else None


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
    run_cube = cube(ch.db, ch.v, ch.run, ch.judge)
    check_coverage(ch, [run_cube])
    if not run_cube.has_labels:
        st.warning(no_labels)
        st.stop()
    return ch, run_cube


def labelled_runs(choices: Choices) -> list[int]:
    """The selected runs that have labels (pages comparing runs); a message when there is none
    and a note naming the runs left out."""
    if not choices.runs:
        st.info(
            "Choose one or more runs with messages in the sidebar (or import one on the Data page)."
        )
        return []
    cubes = {r: cube(choices.db, choices.v, r, judge_for(choices, r)) for r in choices.runs}
    check_coverage(choices, list(cubes.values()))
    out = [r for r in choices.runs if cubes[r].has_labels]
    names = run_names(choices.db, choices.v)
    left = [names.get(r, str(r)) for r in choices.runs if r not in out]
    if not out:
        st.warning(
            "No selected run has labels: nothing counts as a leak. Import a labelled results file"
            " (official run output) or labels (Hugging Face rows)."
        )
    elif left:
        st.caption("Left out (no labels): " + ", ".join(escape_md(x) for x in left))
    return out


@st.cache_data(show_spinner=False, max_entries=16)
def run_names(path: str, db_version: float) -> dict[int, str]:
    """Run id -> "id: name", as the sidebar shows it."""
    runs = runs_frame(path, db_version)
    return {int(r.run_id): f"{r.run_id}: {r.name}" for r in runs.itertuples()}


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
    runs = runs_frame(db_path(), version())
    if not runs.empty and runs[runs["run_id"].isin(run_ids)]["simulated"].any():
        st.warning(
            "SIMULATED data: the demo runs come from simulated assistants, not from any"
            " real model. Import real results on the Data page.",
            icon="⚠️",
        )


@st.cache_data(show_spinner=False, max_entries=64)
def message_audit(path: str, db_version: float, message_id: int, label_rule: str):
    """One message under audit (the Audit page), or None when there is no such message."""
    from cimem.analysis.audit import message_audit as build

    return build(_store(path), message_id, label_rule)


@st.cache_data(show_spinner=False, max_entries=64)
def find_message(
    path: str, db_version: float, run_id: int, profile_id: int, ctx_idx: int, trial: int
) -> int | None:
    return _store(path).find_message(run_id, profile_id, ctx_idx, trial)


@st.cache_data(show_spinner=False, max_entries=64)
def counterparts(path: str, db_version: float, message_id: int):
    """The same profile, task and trial in the other runs (the Audit page's side by side)."""
    return _store(path).counterparts(message_id)


@st.cache_data(show_spinner=False, max_entries=64)
def pair_messages(
    path: str,
    db_version: float,
    run_id: int,
    profile_id: int,
    ctx_idx: int,
    attr_id: int,
    judge_id: int | None,
):
    """The messages of one (context, attribute) pair with a judge's verdict (the Leaks page)."""
    return _store(path).pair_messages(run_id, profile_id, ctx_idx, attr_id, judge_id)


@st.cache_data(show_spinner=False, max_entries=16)
def agreement(path: str, db_version: float, judge_a: int, judge_b: int, label_rule: str):
    """Agreement of two judges over a whole run (the Audit page)."""
    from cimem.analysis.agreement import agreement as build

    return build(_store(path), judge_a, judge_b, label_rule, max_disagreements=200)


@st.cache_data(show_spinner=False, max_entries=64)
def run_config(path: str, db_version: float, run_id: int) -> dict:
    return _store(path).run_config(run_id)


def rename_run(run_id: int, name: str) -> None:
    """Rename a run and forget cached results."""
    store().rename_run(run_id, name)
    changed()


def delete_run(run_id: int) -> None:
    """Delete a run with everything in it and forget cached results."""
    store().delete_run(run_id)
    changed()
