"""What a person waits for, in a real browser: three runs of the 60-profile fabricated file in one
database (about 6.5 million verdicts), the app started as `bash scripts/app` does (webapp/startup/serve.py)
on a local port, Debian's chromium driven by Playwright. For every page: the first load on a fresh
server once it is ready (its console said "cimem: ready": its own first visit filled the page
caches; the time it took is printed too), in a new browser with nothing cached, then as a new
visitor whose browser has Streamlit's files cached, a revisit (from another page, through the
sidebar) and its widget changes, each from the click (or key) as the page receives it until the
page has settled (the script finished, no stale element left, no DOM change for 0.5 s), median of
3 with the range; each step also says when the server's script finished (the rest is the browser
drawing). Baselines, measured in the same run: a bare Streamlit page (a title, a radio and a
line), its two first loads and a change of its radio; the same with one chart; the same with a
list of 60 names, and an option picked in it (what Streamlit's own widgets cost with nothing else
on the page); the chart in a folded section, and its opening (the cost of a page's first chart
drawn after a click); first loads are also given as multiples of the bare page's. An expander's
half-second easing open is not waited for (what it holds is drawn at its start). Then each widget
change's CPU from the click until the page settled (the server's process and every chromium
process, from /proc on Linux): waiting times on a shared machine moved by a fifth between runs of
the same code, CPU time far less.
Targets: first load <= 2 s, revisit <= 1 s, widget change <= 300 ms.

    python bench/browser.py                  # builds /tmp/cimem-bench/browser_3x60.duckdb once
    python bench/browser.py --db my.duckdb --reps 3 --pages growth,leaks
    python bench/browser.py --runs 40 --profiles 10   # a lab's database (bench/common.py)
    python bench/browser.py --runs 40 --profiles 10 --lake   # the same runs served from a lake
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from common import CACHE, REPO, fabricated, lab_database

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARGS.append("--no-first-run")

# Records, in page time, the last DOM change outside the header and every script-state change.
OBSERVER = """
() => {
  if (window.__bench) return;
  window.__bench = {last: performance.now(), states: [], frames: [], inputs: []};
  // when the person's click or key reaches the page: a step is timed from there (Playwright's
  // click first waits for its target to hold still, two frames or more, which no person waits)
  for (const kind of ['pointerdown', 'keydown']) {
    addEventListener(kind, () => window.__bench.inputs.push(performance.now()), true);
  }
  // every message from the server, in page time: a script run so short that the page never
  // shows it as running is still seen by its messages
  const Socket = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener('message', () => window.__bench.frames.push(performance.now()));
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  const observer = new MutationObserver((muts) => {
    const now = performance.now();
    for (const m of muts) {
      if (m.type === 'attributes' && m.attributeName === 'data-test-script-state') {
        // a run shorter than one observer callback shows only in the record's old value
        if (m.oldValue === 'running') window.__bench.states.push([now, 'running']);
        window.__bench.states.push([now, m.target.getAttribute('data-test-script-state')]);
      } else {
        const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        if (el && el.closest && el.closest('[data-testid="stHeader"]')) continue;
        // an expander's height eases open over half a second (its style changes) while what it
        // holds is already drawn: a person reads from the start, so it is not waited for
        if (m.type === 'attributes' && m.attributeName === 'style' && el.tagName === 'DETAILS') {
          continue;
        }
        window.__bench.last = now;
      }
    }
  });
  const options = {attributes: true, attributeOldValue: true, childList: true, subtree: true,
                   characterData: true};
  // a custom element (the Leaks heatmap) draws inside a shadow root, which a document's
  // observer does not see: each new shadow root is observed too
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) {
    const root = attach.apply(this, args);
    observer.observe(root, options);
    return root;
  };
  const watch = () => observer.observe(document.documentElement, options);
  if (document.documentElement) watch(); else document.addEventListener('DOMContentLoaded', watch);
}
"""
# Settled: the script ran after t0 and stopped, nothing is stale, and the DOM has been quiet.
SETTLED = """
([t0, quiet]) => {
  const b = window.__bench;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!b || !app) return false;
  const ran = t0 === 0 || b.states.some(([t, s]) => t >= t0 && s === 'running')
    || b.frames.some((t) => t >= t0);
  if (!ran || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  return performance.now() - b.last >= quiet;
}
"""
QUIET_MS = 500


@dataclass
class Page:
    path: str  # URL path
    nav: str  # its name in the sidebar
    heading: str
    changes: dict[str, Callable] = field(default_factory=dict)  # name -> (page, rep) -> None
    scratch: bool = False  # served from a copy of the database, which its changes write to


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The baseline: a bare Streamlit page (a title, a radio and a line) served by the same Streamlit,
# measured in the same run, so a figure can be read as a multiple of what any Streamlit page costs
# here.
BARE_PAGE = """import streamlit as st
st.title("Bare page")
choice = st.radio("Bare choice", ["first", "second"], horizontal=True)
st.write(f"one line of text: {choice}")
"""
# The same with a list of 60 names to choose from (a multiselect, as the Leaks filters): what
# picking an option costs with nothing else on the page, and what the list adds to a first load.
BARE_LIST_PAGE = (
    BARE_PAGE
    + """names = st.multiselect("Bare list", [f"profile {i:02d}" for i in range(60)])
st.write(f"{len(names)} chosen")
"""
)
# The same with one three-point line chart (Vega-Lite, the library every chart of the app uses):
# the browser's cost of the first chart on a page, which no page with a chart can avoid.
ONE_CHART = """st.vega_lite_chart(
    {"x": [1, 2, 3], "y": [1, 3, 2]},
    {"mark": "line", "encoding": {"x": {"field": "x", "type": "quantitative"},
                                  "y": {"field": "y", "type": "quantitative"}}},
)
"""
BARE_CHART_PAGE = BARE_PAGE + ONE_CHART
# The same chart in a folded section drawn when opened (as the app's sections are): what opening
# it costs when it is the page's first chart (the Learn page's simulator).
BARE_FOLDED_CHART_PAGE = (
    BARE_PAGE
    + """section = st.expander("Folded chart", on_change="rerun", key="folded")
if section.open:
    with section:
"""
    + "".join(f"        {line}\n" for line in ONE_CHART.splitlines())
)


def start_server(db: Path | str, script: Path | None = None) -> tuple[subprocess.Popen, str]:
    """The app as `bash scripts/app` starts it, or ``script`` with plain `streamlit run`; the app
    is ready when its console says so (its own first visit has filled the page caches)."""
    port = free_port()
    launch = ["webapp.startup.serve"] if script is None else ["streamlit", "run", str(script)]
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", *launch, "--server.headless", "true"]
        + ["--server.port", str(port), "--server.address", "127.0.0.1"]
        + ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=REPO,
        env=dict(os.environ, CIMEM_DB=str(db)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()

    def read_console() -> None:  # until the server ends, so its pipe never fills
        for line in proc.stderr or ():
            if line.startswith("cimem: ready"):
                ready_lines.append(line.strip())
                ready.set()

    threading.Thread(target=read_console, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(f"{base}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.25)
    else:
        proc.kill()
        sys.exit("streamlit did not start")
    answered = time.monotonic() - started
    if script is None:
        if not ready.wait(timeout=300):
            proc.kill()
            sys.exit("the app never said it was ready")
        startup.append((answered, time.monotonic() - started))
    return proc, base


ready_lines: list[str] = []
server_rss: list[float] = []  # per app server: its peak resident memory, MiB


def peak_rss_mib(pid: int) -> float:
    """A process's peak resident memory so far (VmHWM, Linux), MiB; nan elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


startup: list[tuple[float, float]] = []  # per app server: seconds to answer, to be ready


# Milliseconds from t0 to the end of the last script run, per step (where the time went: the
# server's script, or the browser drawing after it).
SCRIPT_END = """
(t0) => {
  const ends = window.__bench.states.filter(([t, s]) => t >= t0 && s === 'notRunning');
  return ends.length ? ends[ends.length - 1][0] - t0 : null;
}
"""
last_script_ms: list[float | None] = [None]


def settle(page, t0: float, timeout: float = 300_000) -> float:
    """Milliseconds from t0 (page time) to the last DOM change of the settled page."""
    page.wait_for_function(SETTLED, arg=[t0, QUIET_MS], timeout=timeout, polling=50)
    if page.locator('[data-testid="stException"]').count():
        raise RuntimeError(f"an exception is shown on {page.url}")
    last_script_ms[0] = page.evaluate(SCRIPT_END, t0)
    return page.evaluate("() => window.__bench.last") - t0


def now(page) -> float:
    return page.evaluate("() => performance.now()")


STARTED = """
(t0) => window.__bench.states.some(([t, s]) => t >= t0 && s === 'running')
  || window.__bench.frames.some((t) => t >= t0)
"""


# The app server whose CPU :func:`timed` reads, and what the last timed step used (server,
# browser): the step alone, not what a change does before it (opening a list or a section).
cpu_server: list[int | None] = [None]
last_cpu: list[tuple[float, float] | None] = [None]


FIRST_INPUT = """
(t0) => {
  const after = window.__bench.inputs.filter((t) => t >= t0);
  return after.length ? after[0] : null;
}
"""
# Milliseconds from each timed action's call to its click or key reaching the page.
input_delays: list[float] = []


def timed(page, action: Callable[[], None]) -> float:
    """Milliseconds from the click or key press ``action`` makes, as the page receives it, to
    the settled page (from the call, when the page saw no input). A click that started no script
    run within 3 s (it landed before the page listened) is made once more, timed from then."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = cpu_ms(cpu_server[0])
    t0 = now(page)
    action()
    try:
        page.wait_for_function(STARTED, arg=t0, timeout=3000, polling=20)
    except PlaywrightTimeout:
        print("  (the click started nothing: clicked again)", file=sys.stderr)
        t0 = now(page)
        action()
        page.wait_for_function(STARTED, arg=t0, timeout=10_000, polling=20)
    ms = settle(page, t0)
    first_input = page.evaluate(FIRST_INPUT, t0)
    if first_input is not None:
        input_delays.append(first_input - t0)
        ms -= first_input - t0
    after = cpu_ms(cpu_server[0])
    last_cpu[0] = None
    if before is not None and after is not None:
        last_cpu[0] = (after[0] - before[0], after[1] - before[1])
    return ms


def nav_click(page, name: str) -> Callable[[], None]:
    nav = page.locator('[data-testid="stSidebarNav"]')
    return lambda: nav.get_by_text(name, exact=True).click()


def main_area(page):
    return page.locator('[data-testid="stMain"]')


def sidebar(page):
    return page.locator('[data-testid="stSidebar"]')


def click_text(scope, text: str) -> Callable[[], None]:
    return lambda: scope.get_by_text(text, exact=True).first.click()


def radio(scope_of, value: str):
    """Pick ``value`` (every repetition starts on a fresh server, at the default)."""

    def change(page, rep: int) -> float:
        return timed(page, click_text(scope_of(page), value))

    return change


def toggle(label: str):
    def change(page, rep: int) -> float:
        return timed(page, lambda: main_area(page).get_by_text(label).first.click())

    return change


def slider(label: str, inside: str | None = None):
    """Move a slider one step left (its thumb focused, ArrowLeft); ``inside``: the label of the
    folded section that holds it, opened first (not timed)."""

    def change(page, rep: int) -> float:
        if inside is not None:
            timed(page, click_text(main_area(page), inside))
        box = main_area(page).locator('[data-testid="stSlider"]').filter(has_text=label).first
        thumb = box.locator('input[type="range"]').first
        thumb.focus()
        return timed(page, lambda: page.keyboard.press("ArrowLeft"))  # from the default maximum

    return change


def choose(widget: str, label: str, option: Callable[[int], int], inside: str | None = None):
    """Open a selectbox or multiselect by its label and click an option (rep picks which; a
    multiselect's "Select all" is not one); ``inside``: the label of the expander that holds it,
    opened first (not timed)."""

    def change(page, rep: int) -> float:
        if inside is not None:
            main_area(page).get_by_text(inside, exact=True).first.click()
        box = main_area(page).locator(f'[data-testid="{widget}"]').filter(has_text=label).first
        options = page.get_by_role("option").filter(has_not_text=SELECT_ALL)
        shown = 0
        for _ in range(5):  # a click right after a rerun can land before the widget listens
            box.locator("input").first.click()
            try:
                options.first.wait_for(timeout=3000)
                shown = options.count()  # once: a redraw can close the list in between
            except Exception:
                shown = 0
            if shown:
                break
            page.keyboard.press("Escape")
        if not shown:
            raise RuntimeError(f"no option of {label!r} appeared")
        pick = options.nth(option(rep) % shown)
        ms = timed(page, lambda: pick.click())
        page.keyboard.press("Escape")
        return ms

    return change


SELECT_ALL = "Select all"  # a multiselect's first option in its dropdown


def pill(label: str, option: Callable[[int], int]):
    """Click a pill of the row of pills labelled ``label`` (rep picks which)."""

    def change(page, rep: int) -> float:
        row = main_area(page).locator('[data-testid="stButtonGroup"]').filter(has_text=label)
        pills = row.first.get_by_role("button").filter(has_text=re.compile(r"\w"))  # not help
        if not pills.count():
            raise RuntimeError(f"no pill of {label!r} appeared")
        return timed(page, pills.nth(option(rep) % pills.count()).click)

    return change


def heat_cell(page, rep: int) -> float:
    """Click a cell of the Leaks heatmap (rep picks which): its messages are listed under it."""
    cells = main_area(page).locator("div.heatgrid td[data-i]")
    cells.first.wait_for(timeout=60_000)
    return timed(page, cells.nth(1 + rep).click)


def key(name: str):
    """Press a key with the page's title focused (as the Review page tells people to)."""

    def change(page, rep: int) -> float:
        main_area(page).locator("h1").first.click()
        return timed(page, lambda: page.keyboard.press(name))

    return change


PAGES = [
    Page("", "Overview", "Overview", {"metric mode": radio(sidebar, "definition")}),
    Page(
        "leaks",
        "Leaks",
        "Leaks",
        {
            "domain filter": pill("Domain", lambda r: 0),
            "profile filter": choose("stMultiSelect", "Profile", lambda r: 0),
            "recipient filter": choose("stMultiSelect", "Recipient", lambda r: r),
            "toggle": toggle("Private cells only"),
            "heatmap cell": heat_cell,
        },
    ),
    Page(
        "growth",
        "Growth",
        "Growth",
        {
            "method -> ratio": radio(main_area, "ratio of expected counts"),  # random order only
            "order -> worst": radio(main_area, "worst"),
            "k slider": slider("Samples per task"),
        },
    ),
    Page(
        "audit",
        "Audit",
        "Audit",
        {
            "queue next": lambda page, rep: timed(
                page, lambda: main_area(page).get_by_role("button", name="Next ▶").click()
            ),
            "queue filter": choose("stSelectbox", "Review queue", lambda r: r + 1),
            "context": choose(
                "stSelectbox",
                "Context",
                lambda r: r + 1,
                inside="Open any message by profile, task and trial",
            ),
        },
    ),
    Page(
        "learn",
        "Learn",
        "Learn the metrics",
        {
            "open the simulator": toggle("Open the simulator"),
            "slider": slider("Samples per task"),
        },
    ),
    # a verdict's key writes to the database: the page is measured on a copy (Page.scratch)
    Page(
        "review",
        "Review",
        "Review",
        {"next key": key("ArrowRight"), "verdict key": key("y")},
        scratch=True,
    ),
    Page("labels", "Labels", "Labels", {"metric mode": radio(sidebar, "definition")}),
    # options 1, 2, 1, ...: never the first, the selected run (choosing it again runs nothing)
    Page("data", "Data", "Data", {"run select": choose("stSelectbox", "Run", lambda r: 1 + r % 2)}),
]


def build_database(path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from cimem.ingest import ingest_file
    from cimem.store import Store

    tmp = path.with_suffix(".building")
    tmp.unlink(missing_ok=True)
    with Store.open(tmp) as store:
        for seed in (0, 1, 2):
            ingest_file(store, fabricated(60, seed=seed), name=f"fabricated seed {seed}")
        print(f"database: 3 runs of 60 profiles, {store.table_counts()['verdicts']:,} verdicts")
    tmp.rename(path)


def fmt(values: list[float]) -> str:
    if not values:
        return "-"
    if all(v == float("inf") for v in values):
        return "timeout"
    med = statistics.median(values)
    unit = (lambda v: f"{v / 1000:.2f} s") if med >= 1000 else (lambda v: f"{v:.0f} ms")
    return f"{unit(med)} ({unit(min(values))}-{unit(max(values))})"


def cpu_ms(server: int | None) -> tuple[float, float] | None:
    """CPU milliseconds used so far by the app server (process ``server``) and by every chromium
    process, from /proc (None where there is none)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    if server is None or not Path("/proc/self/stat").exists():
        return None

    def used(pid: str) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) * 1000 / tick  # utime + stime
        except (OSError, IndexError, ValueError):
            return 0.0  # ended since it was listed

    browser = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                program = (entry / "cmdline").read_bytes().split(b"\0", 1)[0]
            except OSError:
                continue
            if program.endswith(b"chromium") or b"/chromium/" in program:
                browser += used(entry.name)
    return used(str(server)), browser


def record(
    into: list,
    what: str,
    step: Callable[[], float],
    cpu_into: list | None = None,
    server: int | None = None,
) -> None:
    """Time one step; a step that does not settle is counted as a timeout, and the rest go on.
    With ``cpu_into``: also the CPU the server (process ``server``) and the browser used from
    the click until the page settled (server, browser)."""
    from playwright.sync_api import Error

    cpu_server[0] = server if cpu_into is not None else None
    last_cpu[0] = None
    try:
        ms = step()
    except (Error, RuntimeError) as exc:
        print(f"  {what}: did not settle ({str(exc).splitlines()[0]})", file=sys.stderr)
        into.append(float("inf"))
        return
    finally:
        cpu_server[0] = None
    cpu = ""
    used = last_cpu[0]
    if used is not None and cpu_into is not None:
        cpu_into.append(used)
        cpu = f"; CPU {sum(used):.0f} ms, server {used[0]:.0f} ms"
    script = last_script_ms[0]
    until = f" (script done at {script:.0f} ms{cpu})" if script is not None else ""
    print(f"  {what}: {ms:.0f} ms{until}", file=sys.stderr, flush=True)
    into.append(ms)


def first_loads(ctx, page, out: dict, what: str, load: Callable) -> object:
    """Time ``load(page)`` (nothing cached), then, as a new visitor whose browser has
    Streamlit's files cached, ``load`` on a new page; returns that page."""
    record(out["first"], f"{what} first load", functools.partial(load, page))
    page.close()
    page = ctx.new_page()
    page.add_init_script(f"({OBSERVER})()")
    record(out["cached"], f"{what} first load, browser cache warm", functools.partial(load, page))
    return page


def bare_first_loads(reps: int, source: str) -> dict[str, list[float]]:
    """A bare Streamlit page (``source``) on a fresh server, ``reps`` times: its first load with
    nothing cached, again with the browser's cache warm, and a change of its one radio."""
    import tempfile

    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {"first": [], "cached": [], "change": [], "pick": [], "open": []}
    what = "bare Streamlit page" + (" with a chart" if "chart" in source else "")
    what += " with a list" if "multiselect" in source else ""
    what += " (folded)" if "expander" in source else ""
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        script = Path(tmp) / "bare.py"
        script.write_text(source)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(reps):
            proc, base = start_server(Path(tmp) / "unused.duckdb", script)
            try:
                ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
                page = ctx.new_page()
                page.add_init_script(f"({OBSERVER})()")

                def first_load(page, base=base) -> float:
                    page.goto(base)
                    page.get_by_role("heading", name="Bare page").first.wait_for(timeout=60_000)
                    return settle(page, 0)

                page = first_loads(ctx, page, out, what, first_load)
                if source == BARE_PAGE:  # the widget-change baselines
                    record(
                        out["change"],
                        f"{what} radio",
                        lambda page=page: radio(main_area, "second")(page, 0),
                    )
                if source == BARE_LIST_PAGE:
                    record(
                        out["pick"],
                        f"{what} list pick",
                        lambda page=page: choose("stMultiSelect", "Bare list", lambda r: 0)(
                            page, 0
                        ),
                    )
                if source == BARE_FOLDED_CHART_PAGE:
                    record(
                        out["open"],
                        f"{what} opened",
                        lambda page=page: timed(page, click_text(main_area(page), "Folded chart")),
                    )
                ctx.close()
            finally:
                proc.terminate()
                proc.wait(timeout=30)
        browser.close()
    return out


def scratch_copy(db: Path | str) -> Path | str:
    """A copy of a database file, made afresh for each server (a lake is served as it is)."""
    if not isinstance(db, Path):
        return db
    copy = CACHE / f"scratch_{db.name}"
    shutil.copyfile(db, copy)
    return copy


def measure(db: Path | str, pages: list[Page], reps: int) -> dict:
    from playwright.sync_api import sync_playwright

    results: dict = {
        p.nav: {"first": [], "cached": [], "revisit": [], "changes": {}, "cpu": {}} for p in pages
    }
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for rep in range(reps):
            for p in pages:
                proc, base = start_server(scratch_copy(db) if p.scratch else db)
                try:
                    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
                    page = ctx.new_page()
                    page.add_init_script(f"({OBSERVER})()")
                    out = results[p.nav]

                    def first_load(page, p=p, base=base) -> float:
                        page.goto(f"{base}/{p.path}")
                        page.get_by_role("heading", name=p.heading, exact=True).first.wait_for(
                            timeout=300_000
                        )
                        return settle(page, 0)

                    def revisit(page, p=p) -> float:
                        timed(page, nav_click(page, "Learn" if p.nav != "Learn" else "Data"))
                        return timed(page, nav_click(page, p.nav))

                    page = first_loads(ctx, page, out, p.nav, first_load)
                    record(out["revisit"], f"{p.nav} revisit", functools.partial(revisit, page))
                    for name, change in p.changes.items():
                        record(
                            out["changes"].setdefault(name, []),
                            f"{p.nav} {name}",
                            lambda page=page, rep=rep, change=change: change(page, rep),
                            out["cpu"].setdefault(name, []),
                            proc.pid,
                        )
                    ctx.close()
                finally:
                    server_rss.append(peak_rss_mib(proc.pid))
                    proc.terminate()
                    proc.wait(timeout=30)
        browser.close()
    return results


@contextlib.contextmanager
def served_from(db: Path, lake: bool) -> Iterator[Path | str]:
    """The database the app serves: the file, or (``lake``) a lake holding its runs, copied
    there by `cimem copy` (PostgreSQL started by scripts/lake, removed after)."""
    if not lake:
        yield db
        return
    from lake import free_port, new_lake, start_postgres

    folder = Path(tempfile.mkdtemp(prefix="cimem-bench-lake-"))
    os.chmod(folder, 0o755)
    port = free_port()
    start_postgres(folder, port)
    try:
        location = new_lake(folder, port, "browser")
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cimem", "copy", "--from", str(db), "--db", location],
            cwd=REPO,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"copied {db.name} into a lake in {time.perf_counter() - t:.0f} s", flush=True)
        yield location
    finally:
        subprocess.run(["bash", "scripts/lake", "stop", str(folder)], cwd=REPO)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=CACHE / "browser_3x60.duckdb")
    ap.add_argument("--runs", type=int, help="a lab's database of this many fabricated runs")
    ap.add_argument("--profiles", type=int, default=60, help="profiles per run (with --runs)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pages", default="", help="comma-separated page names (default: all)")
    ap.add_argument(
        "--lake",
        action="store_true",
        help="serve the same runs from a lake: copied into one over PostgreSQL (scripts/lake)",
    )
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing (apt-get install chromium)")
    if args.runs:
        args.db = lab_database(args.runs, args.profiles)
    elif not args.db.exists():
        build_database(args.db)
    wanted = {x.strip().lower() for x in args.pages.split(",") if x.strip()}
    pages = [p for p in PAGES if not wanted or p.nav.lower() in wanted]
    load = os.getloadavg()[0]
    bare_runs = bare_first_loads(args.reps, BARE_PAGE)
    chart_runs = bare_first_loads(args.reps, BARE_CHART_PAGE)
    list_runs = bare_first_loads(args.reps, BARE_LIST_PAGE)
    folded_runs = bare_first_loads(args.reps, BARE_FOLDED_CHART_PAGE)
    bare = bare_runs["first"]
    with served_from(args.db, args.lake) as db:
        results = measure(db, pages, args.reps)
    print(
        f"\ndatabase {args.db}; median of {args.reps} (range); click (or key) to page settled;"
        f" load average {load:.1f} before, {os.getloadavg()[0]:.1f} after on {os.cpu_count()} CPUs\n"
    )
    base = statistics.median(bare) if bare else float("nan")
    for name, runs in (
        ("a bare Streamlit page", bare_runs),
        ("with one chart", chart_runs),
        ("with a list of 60 names", list_runs),
        ("with its one chart in a folded section", folded_runs),
    ):
        change = f"; a change of its radio {fmt(runs['change'])}" if runs["change"] else ""
        change += f"; an option picked in its list {fmt(runs['pick'])}" if runs["pick"] else ""
        change += f"; the section opened {fmt(runs['open'])}" if runs["open"] else ""
        print(
            f"baseline, {name}: first load {fmt(runs['first'])}, browser cache warm"
            f" {fmt(runs['cached'])}{change}"
        )
    print("x = first load / the bare page's first load")
    if input_delays:
        print(
            "widget changes and revisits are timed from the click or key press as the page"
            " received it: Playwright's click reached the page"
            f" {statistics.median(input_delays):.0f} ms (median) after it was called"
        )
    answered = [a for a, _ in startup]
    ready = [r for _, r in startup]
    print(
        f"app servers: answering after {statistics.median(answered):.1f} s, ready (their own"
        f" first visit done) after {statistics.median(ready):.1f} s, median of {len(startup)};"
        f" peak memory {statistics.median(server_rss):,.0f} MiB (median; largest"
        f" {max(server_rss):,.0f});"
        f" the last said: {ready_lines[-1] if ready_lines else '-'}\n"
    )
    print(
        "| page | first load (fresh server) | x baseline | first load, browser cache warm"
        " | revisit | widget change |"
    )
    print("|---|---|---|---|---|---|")
    for p in pages:
        r = results[p.nav]
        changes = "; ".join(f"{name}: {fmt(v)}" for name, v in r["changes"].items()) or "-"
        ratio = statistics.median(r["first"]) / base if r["first"] and bare else float("nan")
        print(
            f"| {p.nav} | {fmt(r['first'])} | {ratio:.1f} | {fmt(r['cached'])}"
            f" | {fmt(r['revisit'])} | {changes} |"
        )
    cpu_table(pages, results)


def cpu_table(pages: list[Page], results: dict) -> None:
    """Each widget change's CPU, median: steadier than the time a person waits on a machine
    shared with other work (both are needed: waiting also includes what runs in parallel)."""
    rows = [
        (p.nav, name, used) for p in pages for name, used in results[p.nav]["cpu"].items() if used
    ]
    if not rows:
        return
    print(
        "\nCPU per widget change, median (server process + every chromium process; the"
        " server's part):\n"
    )
    print("| page | widget change | CPU | server |")
    print("|---|---|---|---|")
    for nav, name, used in rows:
        total = statistics.median(a + b for a, b in used)
        server = statistics.median(a for a, _ in used)
        print(f"| {nav} | {name} | {total:.0f} ms | {server:.0f} ms |")


if __name__ == "__main__":
    main()
