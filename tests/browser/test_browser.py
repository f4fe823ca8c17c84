"""A real browser: `streamlit run app.py` on a free local port, driven by Playwright on Debian's
chromium. Every page shows its heading and no exception box; an XSS payload in a message shows as
text and never runs; the auditor's loop (queue, a saved verdict, the corrected numbers, side by
side) works on the demo database and on the shared PersistBench file."""

import csv
import re

import pytest
from app_server import chromium, chromium_or_skip, click_until, running_app, serving
from playwright.sync_api import expect

from cimem.demo.reference import TABLE1
from cimem.demo.simulate import build_demo_database
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl

# a deep link first: the first session of a fresh server must open the page it asks for
PAGES = {
    "growth?mode=definition": "Growth",
    "": "Overview",
    "leaks": "Leaks",
    "audit": "Audit",
    "review": "Review",
    "labels": "Labels",
    "explore": "Explore",
    "learn": "Learn the metrics",
    "data": "Data",
}
PAYLOAD = "<script>alert('xss')</script><img src=x onerror=alert(2)> **not bold**"

pytestmark = chromium_or_skip()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    db = tmp / "app.duckdb"
    build_demo_database(db)
    obj = small_profile("Mallory")
    trial = obj["contexts"][0]["combination_num_to_share=3_num_not_to_share=0_trial=0"]
    trial["model_solution"]["response_solution"] = PAYLOAD
    with Store.open(db) as s:
        run = ingest_file(s, write_jsonl(tmp / "xss.jsonl", [obj]), name="xss").run_id
        xss_message = s.con.execute(
            "SELECT min(message_id) FROM messages WHERE run_id = ?", [run]
        ).fetchone()[0]
    with serving(db) as base:
        yield base, xss_message


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_every_page_renders(server, browser, tmp_path):
    """Every page shows its heading and no exception, and the browser asks no host but the
    app's own (no font, icon or script from elsewhere)."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    for path, heading in PAGES.items():
        page.goto(f"{base}/{path}")
        page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=60000)
        page.wait_for_timeout(1500)  # let the page finish its run
        page.screenshot(
            path=str(tmp_path / f"{path.split('?')[0] or 'overview'}.png"), full_page=True
        )
        assert page.get_by_role("heading", name=heading, exact=True).first.is_visible()
        assert page.locator('[data-testid="stException"]').count() == 0, path
    assert len(list(tmp_path.glob("*.png"))) == len(PAGES)
    elsewhere = [u for u in asked if not u.startswith(("http://127.0.0.1", "data:", "blob:"))]
    assert elsewhere == []


def test_xss_payload_is_shown_as_text(server, browser):
    base, message = server
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{base}/audit?message={message}")
    page.get_by_role("heading", name="Audit", exact=True).first.wait_for(timeout=60000)
    page.get_by_text("<script>alert('xss')</script>", exact=False).first.wait_for(timeout=30000)
    page.wait_for_timeout(1500)
    assert page.get_by_text("**not bold**", exact=False).first.is_visible()
    assert page.locator("script:has-text(\"alert('xss')\")").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert dialogs == []
    assert page.locator('[data-testid="stException"]').count() == 0


def test_growth_draws_several_runs(server, browser):
    base, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1200}, accept_downloads=True)
    page.goto(f"{base}/growth?runs=1,2,3")
    page.get_by_role("heading", name="(a) Violation as tasks accumulate").wait_for(timeout=120000)
    page.get_by_role("heading", name="(b) Violation as samples accumulate").wait_for(timeout=120000)
    charts = page.locator("div.linechart")
    charts.nth(1).locator("svg path").first.wait_for(timeout=60000)
    text = page.locator('[data-testid="stMain"]').inner_text()
    runs = ("1: demo: over-sharer", "2: demo: cautious", "3: demo: erratic")
    for name in runs:
        assert name in text  # each run named in the caption of the curves
    # chart (a): a line per run and curve, each run named in its legend, the axes titled
    first = charts.first
    legend = first.locator("div.legend").inner_text()
    assert all(name in legend for name in runs) and "observed" in legend
    assert first.locator("svg[role=img] g.lines path").count() >= 6
    assert "Violation (%)" in first.locator("svg[role=img]").text_content()
    # a point's tooltip names its run, curve, place and value
    tip = first.locator("div.tip")
    assert not tip.is_visible()
    spot = first.locator("svg[role=img] g.targets circle").nth(3).bounding_box()
    assert spot is not None
    page.mouse.move(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2)
    tip.wait_for(state="visible", timeout=5000)
    said = tip.inner_text()
    assert any(name in said for name in runs) and "Violation %: " in said and "tasks T: " in said
    # its SVG, saved in the browser from the chart as drawn, names every run
    with page.expect_download(timeout=60000) as download:
        page.get_by_role("button", name="SVG").first.click()
    svg_name = download.value.suggested_filename
    assert svg_name.startswith("growth_tasks_k")
    svg = open(download.value.path(), encoding="utf-8").read()
    assert "<svg" in svg and all(name in svg for name in runs)
    # its CSV download holds the numbers drawn, each row saying how they were computed
    with page.expect_download(timeout=60000) as download:
        page.get_by_role("button", name="CSV").first.click()
    assert download.value.suggested_filename == svg_name.replace(".svg", ".csv")
    table = list(csv.DictReader(open(download.value.path(), encoding="utf-8")))
    assert len({r["run"] for r in table}) == 3 and {r["line"] for r in table} >= {"observed"}
    assert all(any(r["run"].startswith(name) for name in runs) for r in table)
    assert all(r["task order"] == "random" and r["judge"] and r["mode"] for r in table)
    assert {int(r["samples k"]) for r in table} == {5}  # chart (a) is drawn at k = n
    assert all(0 <= float(r["violation %"]) <= 100 for r in table)
    # move the k slider of chart (a): the fragment reruns and redraws, no exception
    box = page.locator('[data-testid="stSlider"]').filter(has_text="Samples per task k").first
    box.locator('input[type="range"]').first.focus()
    page.keyboard.press("ArrowLeft")
    box.get_by_text("4", exact=True).wait_for(timeout=60000)
    page.get_by_text("tasks T (k = 4 samples per task)").wait_for(timeout=60000)  # redrawn
    assert charts.count() == 2
    assert page.locator('[data-testid="stException"]').count() == 0
    # a narrower window redraws the charts to its width
    plot = first.locator("svg[role=img]")
    wide = float(plot.get_attribute("width") or 0)
    page.set_viewport_size({"width": 700, "height": 1000})
    # (the chart's box stays; its SVG is replaced by each redraw)
    fits = (
        "box => { const svg = box.querySelector('svg[role=img]');"
        " return !!svg && +svg.getAttribute('width') <= box.clientWidth; }"
    )
    page.wait_for_function(fits, arg=first.element_handle(), timeout=10000)
    assert float(plot.get_attribute("width") or 0) < wide
    page.close()


def test_overview_tradeoff_labels_do_not_cover_each_other(server, browser):
    """Every point of the trade-off is named, and no name covers another or leaves the chart:
    with the published Table 1 on, several models sit close together."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(f"{base}/?runs=1,2,3")
    labels = page.locator("div.linechart svg[role=img] text.label")  # (in the chart's shadow root)
    expect(labels).to_have_count(3, timeout=60000)  # the three runs, drawn
    toggle = (
        page.locator('[data-testid="stCheckbox"]')
        .filter(has_text="Show the published Table 1")
        .locator("input")
    )
    for _ in range(3):  # a click right after the page is drawn can be lost on a busy machine
        page.get_by_text("Show the published Table 1 as a reference layer").click()
        if toggle.is_checked():
            break
        page.wait_for_timeout(500)
    expected = 3 + len(TABLE1)
    expect(labels).to_have_count(expected, timeout=60000)
    names = labels.all_text_contents()
    assert {n for n, _, _ in TABLE1} <= set(names)
    boxes = [b for b in (labels.nth(i).bounding_box() for i in range(expected)) if b]
    chart = page.locator("div.linechart svg[role=img]").bounding_box()
    assert chart is not None and len(boxes) == expected
    for i, a in enumerate(boxes):
        assert chart["x"] <= a["x"] and a["x"] + a["width"] <= chart["x"] + chart["width"]
        assert chart["y"] <= a["y"] and a["y"] + a["height"] <= chart["y"] + chart["height"]
        for j, b in enumerate(boxes[:i]):
            w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
            h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
            assert w <= 0.5 or h <= 0.5, (names[i], names[j])
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_leaks_heatmap_labels_every_row_and_a_click_lists_the_cells_messages(server, browser):
    base, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    page.goto(f"{base}/leaks?runs=1")
    grid = page.locator("div.heatgrid")
    grid.locator("td[data-i]").first.wait_for(timeout=120000)
    rows = grid.locator("th.row")
    assert rows.count() > 5 and all(t.strip() for t in rows.all_inner_texts())
    assert grid.locator("th.column").count() > 5
    cell = grid.locator("td[data-i]").first
    tip = cell.get_attribute("title") or ""
    assert tip.startswith("attribute: ") and " samples (" in tip
    raw_text = page.get_by_text("Each message's raw text is on Audit.")
    assert raw_text.count() == 0  # no message until a cell or a pair is chosen
    cell.click()
    raw_text.first.wait_for(timeout=60000)  # the messages behind the cell, under the heatmap
    attribute = tip.split("\n")[0].removeprefix("attribute: ")
    assert attribute in page.locator('[data-testid="stMain"]').inner_text()
    grid.locator("td.picked").wait_for(timeout=30000)
    grid.locator("td.picked").click()  # the chosen cell again: the choice is cleared
    grid.locator("td.picked").wait_for(state="detached", timeout=60000)
    page.get_by_text("leaked pairs here. Choose one").first.wait_for(timeout=60000)
    assert page.locator('[data-testid="stException"]').count() == 0
    # the CSV download holds one row per cell drawn, with the counts of its tooltip
    with page.expect_download(timeout=60000) as download:
        page.get_by_role("button", name="CSV").first.click()
    assert download.value.suggested_filename == "leak_heatmap.csv"
    table = list(csv.DictReader(open(download.value.path(), encoding="utf-8")))
    assert len(table) == grid.locator("td[data-i]").count()
    row = next(r for r in table if r["attribute"] == attribute)
    assert {r["filters"] for r in table} == {"none"} and row["judge"] and row["run"]
    counts = tip.split("\n")[3].removeprefix("leaks: ")  # "L of S samples (P%)"
    assert counts.startswith(f"{row['leaks']} of {row['samples']} samples")
    # a narrow window scrolls the table rather than squeeze its columns, names kept in sight
    page.set_viewport_size({"width": 480, "height": 1000})
    page.wait_for_timeout(500)
    width = grid.locator("td[data-i]").first.evaluate("e => e.getBoundingClientRect().width")
    columns = grid.locator("th.column").count()
    assert width >= 12 and grid.evaluate("e => e.scrollWidth") >= 250 + 12 * columns
    grid.evaluate("e => { e.scrollLeft = 200; }")
    name = grid.locator("th.row").first
    assert name.evaluate("e => e.getBoundingClientRect().left") >= grid.evaluate(
        "e => e.getBoundingClientRect().left"
    )
    page.close()


def test_leaks_heatmap_by_keyboard(server, browser):
    """One cell is in the tab order; the arrows move between cells; Enter chooses one, and the
    focus stays on it when the page has redrawn."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(f"{base}/leaks?runs=1")
    grid = page.locator("div.heatgrid")
    grid.locator("td[data-i]").first.wait_for(timeout=120000)
    assert grid.locator('td[tabindex="0"]').count() == 1
    focused = lambda: grid.locator("td[data-i]:focus")  # noqa: E731
    grid.locator('td[tabindex="0"]').focus()
    start = focused().get_attribute("title")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    moved = focused().get_attribute("title") or ""
    assert focused().count() == 1 and moved != start and moved.startswith("attribute: ")
    assert grid.locator('td[tabindex="0"]').get_attribute("title") == moved
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")  # back on the first cell, the most leaked row's
    chosen = focused().get_attribute("title") or ""
    assert chosen == start
    page.keyboard.press("Enter")
    page.get_by_text("Each message's raw text is on Audit.").first.wait_for(timeout=60000)
    grid.locator("td.picked").wait_for(timeout=30000)
    assert grid.locator("td.picked").get_attribute("title") == chosen
    assert focused().get_attribute("title") == chosen  # rebuilt, still on the chosen cell
    attribute = chosen.split("\n")[0].removeprefix("attribute: ")
    assert attribute in page.locator('[data-testid="stMain"]').inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_audit_queue_next_and_a_saved_verdict_reach_overview(server, browser):
    """The auditor's loop in a real browser: the queue filtered to disagreements, Next keeps the
    filter, one verdict set and saved, and Overview's section on the judge's errors shows it
    (one verdict corrects nothing yet, and the section says so)."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/audit?runs=1&qf=disagree&qvs=2")
    page.get_by_text("left to review", exact=False).first.wait_for(timeout=60000)
    header = page.get_by_text(re.compile(r"of run 1 — profile")).first
    header.wait_for(timeout=30000)
    first = re.search(r"Message (\d+)", header.inner_text()).group(1)
    page.get_by_role("button", name="Next ▶").click()
    page.wait_for_function(
        "n => !document.body.innerText.includes('Message ' + n + ' of run 1')", arg=first
    )
    assert "qf=disagree" in page.url and "message=" in page.url
    page.get_by_text("Record your verdicts on this message", exact=True).click()
    save = page.get_by_role("button", name="Save my verdicts")
    save.wait_for(timeout=60000)  # the section drawn: its rows are there to click, none else
    form = page.locator('[data-testid="stForm"]')
    chosen = form.locator("label:has(input:checked)").filter(has_text=re.compile(r"^revealed$"))
    click_until(form.get_by_text("revealed", exact=True).first, chosen)
    click_until(save, page.get_by_text("Stored 1 verdict as judge", exact=False), tries=3)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.goto(f"{base}/?runs=1")
    # one verdict corrects nothing yet: the section says so, and claims no correction
    page.get_by_role("heading", name="Not corrected for the judge's errors yet").first.wait_for(
        timeout=120000
    )
    page.get_by_text("Not corrected yet from people's verdicts (judge", exact=False).first.wait_for(
        timeout=120000
    )
    assert page.get_by_text("Corrected from people's", exact=False).count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0


def no_exception(page, step: str) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, step


def test_the_auditor_loop_on_the_shared_persistbench_file(browser, tmp_path):
    """The auditor's loop on real data (one profile, one trial, an imported LLM judge with parse
    failures) and a second judge: the queue of disagreements, Next keeping the filter, a leak the
    judge missed recorded by searching its attribute, the judge's errors against people, the
    corrected numbers on Overview, and the side by side of two judges and of another run."""
    from cimem.analysis.audit import message_audit
    from cimem.analysis.audit.queue import review_queue
    from cimem.judges.base import OfflineJudge, rejudge

    from conftest import shared_file

    path = shared_file("persistbench_llama33_jeffery_day.json")
    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, path).run_id
        offline = rejudge(store, run, OfflineJudge()).judge_id
        queue = review_queue(store, run, None, vs=offline, filter="disagree")
        assert len(queue.items) >= 2
        first, second = queue.items[0].message_id, queue.items[1].message_id
        table = message_audit(store, second, "unanimous").table(None, only_revealed=False)
    said = table[[c for c in table.columns if c.startswith("judge ")]]
    keys = [k.lower() for k in table["key"]]
    # a withheld attribute no judge found revealed on the message, found alone by its key
    missed = next(
        r
        for r in table[~said.eq("yes").any(axis=1)].itertuples()
        if r.label == "private" and sum(r.key.lower() in k for k in keys) == 1
    )
    with running_app({"CIMEM_DB": str(db)}) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(f"{base}/audit?runs={run}&qf=disagree&qvs={offline}")
        page.get_by_text("left to review", exact=False).first.wait_for(timeout=60000)
        header = page.get_by_text(re.compile(rf"of run {run} — profile")).first
        header.wait_for(timeout=30000)
        assert re.search(r"Message (\d+)", header.inner_text()).group(1) == str(first)
        no_exception(page, "the queue")
        page.get_by_role("button", name="Next ▶").click()
        page.wait_for_function(
            "t => document.body.innerText.includes(t)", arg=f"Message {second} of run {run}"
        )
        assert "qf=disagree" in page.url and f"message={second}" in page.url
        no_exception(page, "Next")

        page.get_by_text("Record your verdicts on this message", exact=True).click()
        search = page.locator(f".st-key-h_search_{second} input")
        search.wait_for(timeout=60000)
        search.fill(missed.key)
        search.press("Enter")
        row = page.locator(f".st-key-hv_{second}_{missed.attr_id}")
        row.wait_for(timeout=60000)
        row.get_by_text("revealed", exact=True).click()
        page.get_by_role("button", name="Save my verdicts").click()
        page.get_by_text("Stored 1 verdict as judge", exact=False).first.wait_for(timeout=60000)
        page.get_by_text("against people's verdicts", exact=False).first.wait_for(timeout=60000)
        no_exception(page, "a saved verdict")

        page.goto(f"{base}/?runs={run}")
        # one person's verdict: the section is there and says nothing is corrected yet
        page.get_by_role("heading", name="Not corrected for the judge's errors yet").first.wait_for(
            timeout=120000
        )
        page.get_by_text("People's verdicts (judge", exact=False).first.wait_for(timeout=120000)
        no_exception(page, "Overview")

        page.goto(f"{base}/audit?runs={run}&message={second}")
        page.get_by_role("heading", name="Side by side").first.wait_for(timeout=60000)
        page.locator(".st-key-sbs_ja").get_by_text("Left judge").wait_for(timeout=60000)
        page.locator(".st-key-sbs_jb").get_by_text("Right judge").wait_for(timeout=60000)
        no_exception(page, "two judges side by side")
        page.get_by_text("this task in another run", exact=True).click()
        page.get_by_text("No other run has this profile", exact=False).first.wait_for(timeout=60000)
        no_exception(page, "another run side by side")
    with Store.open(db, read_only=True) as store:
        rows = store.human_verdicts(store.find_human_judge(run))
    assert [(r.message_id, r.attr_id, r.revealed) for r in rows] == [(second, missed.attr_id, True)]


def test_overview_downloads_the_report_of_the_runs_shown(server, browser, tmp_path):
    """The Overview's report button saves the chosen runs as one HTML file that makes no
    network request when opened, with the numbers the page shows; so does its CSV."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(f"{base}/")
    page.get_by_role("heading", name="Overview", exact=True).first.wait_for(timeout=60000)
    button = page.get_by_role("button", name="Report of these runs (HTML, opens offline)")
    button.wait_for(timeout=60000)
    with page.expect_download(timeout=120000) as got:
        button.click()
    saved = tmp_path / "report.html"
    got.value.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    shown = page.locator(".cimem-table").nth(1).inner_text()  # below the leaderboard
    violations = re.findall(r"\b\d+\.\d\d\b", shown)
    assert violations and all(v in html for v in violations)
    with page.expect_download(timeout=120000) as got_csv:
        page.get_by_role("button", name="Table as CSV").click()
    table = tmp_path / "table.csv"
    got_csv.value.save_as(table)
    text = table.read_text(encoding="utf-8")
    figures = {f"{float(x):.2f}" for x in re.findall(r"\b\d+\.\d+\b", text)}
    assert set(violations) <= figures  # the CSV's numbers, intervals too, are the page's
    opened = browser.new_page()
    requests: list[str] = []
    opened.on("request", lambda r: requests.append(r.url))
    opened.goto(saved.as_uri())
    opened.get_by_role("heading", name="Provenance").wait_for(timeout=30000)
    assert [r for r in requests if not r.startswith("file://")] == []
