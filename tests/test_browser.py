"""A real browser: `streamlit run app.py` on a free local port, driven by Playwright on Debian's
chromium. Every page shows its heading and no exception box; an XSS payload in a message shows as
text and never runs."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cimem.demo.simulate import build_demo_database
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[1]
# a deep link first: the first session of a fresh server must open the page it asks for
PAGES = {
    "growth?mode=definition": "Growth",
    "": "Overview",
    "leaks": "Leaks",
    "audit": "Audit",
    "learn": "Learn the metrics",
    "data": "Data",
}
PAYLOAD = "<script>alert('xss')</script><img src=x onerror=alert(2)> **not bold**"

pytestmark = pytest.mark.browser
if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing in CI: .ci/run must install Debian's chromium")
    pytestmark = [
        pytest.mark.browser,
        pytest.mark.skip(
            reason="Debian's chromium is not installed (apt-get install chromium); .ci/run installs it"
        ),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    port = free_port()
    env = dict(os.environ, CIMEM_DB=str(db))
    streamlit = shutil.which("streamlit", path=str(Path(sys.executable).parent)) or "streamlit"
    proc = subprocess.Popen(
        [
            streamlit,
            "run",
            str(REPO / "app.py"),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{base}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail(
            "streamlit did not start: " + proc.stdout.read().decode(errors="replace")[-2000:]
        )
    yield base, xss_message
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


def test_every_page_renders(server, browser, tmp_path):
    base, _ = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
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
    page = browser.new_page(viewport={"width": 1440, "height": 1200})
    page.goto(f"{base}/growth?runs=1,2,3")
    page.get_by_role("heading", name="(a) Violation as tasks accumulate").wait_for(timeout=120000)
    page.get_by_role("heading", name="(b) Violation as samples accumulate").wait_for(timeout=120000)
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(1).wait_for(timeout=60000)
    text = page.locator('[data-testid="stMain"]').inner_text()
    for name in ("1: demo: over-sharer", "2: demo: cautious", "3: demo: erratic"):
        assert name in text  # each run named in the caption of the curves
    # move the k slider of chart (a): the fragment reruns and redraws, no exception
    box = page.locator('[data-testid="stSlider"]').filter(has_text="Samples per task k").first
    box.locator('input[type="range"]').first.focus()
    page.keyboard.press("ArrowLeft")
    box.get_by_text("4", exact=True).wait_for(timeout=60000)
    page.wait_for_timeout(1500)
    assert charts.count() >= 2
    assert page.locator('[data-testid="stException"]').count() == 0


def test_audit_queue_next_and_a_saved_verdict_reach_overview(server, browser):
    """The auditor's loop in a real browser: the queue filtered to disagreements, Next keeps the
    filter, one verdict set and saved, and Overview shows raw against corrected numbers."""
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
    page.get_by_text("revealed", exact=True).first.click()
    page.get_by_role("button", name="Save my verdicts").click()
    page.get_by_text("Stored 1 verdict(s)", exact=False).first.wait_for(timeout=60000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.goto(f"{base}/?runs=1")
    page.get_by_role("heading", name="Corrected for the judge's errors").first.wait_for(
        timeout=120000
    )
    page.get_by_text("misclassification-adjusted", exact=False).first.wait_for(timeout=120000)
    assert page.locator('[data-testid="stException"]').count() == 0
