"""A run written as an Inspect log (`cimem export --format inspect`) opened in `inspect view` in
chromium, as a team that keeps Inspect's viewer would: a duration (no "NaN"), each sample's
conversation (the task prompt and the model's message) and its score's explanation (the judge's
evidence per attribute found revealed)."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from app_server import chromium, chromium_or_skip, free_port
from playwright.sync_api import expect

from cimem.demo.simulate import build_demo_database
from cimem.inspect_eval.export_log import export_inspect
from cimem.store import Store

pytestmark = chromium_or_skip()
INSPECT = str(Path(sys.executable).parent / "inspect")


def test_an_exported_run_shows_its_messages_evidence_and_duration_in_inspect_view(tmp_path):
    db, logs = tmp_path / "demo.duckdb", tmp_path / "logs"
    logs.mkdir()
    build_demo_database(db)
    with Store.open(db, read_only=True) as store:
        export_inspect(store, 1, logs / "run1.eval")
        first = store.con.execute(
            "SELECT m.text FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = 1 ORDER BY p.profile_id, m.ctx_idx, m.trial LIMIT 1"
        ).fetchone()[0]
    port = free_port()
    view = subprocess.Popen(
        [INSPECT, "view", "--log-dir", str(logs), "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}/"
        for _ in range(120):
            try:
                urllib.request.urlopen(base, timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(60_000)  # the viewer loads its log lazily; a busy machine
            page.goto(base, wait_until="networkidle", timeout=120_000)
            expect(page.get_by_text("DURATION").first).to_be_visible(timeout=60_000)
            assert "NaN" not in page.inner_text("body")
            page.locator("text=/^0:/").first.click()
            page.get_by_text("Messages", exact=True).first.click()
            expect(page.get_by_text(first.splitlines()[0][:60], exact=False).first).to_be_visible(
                timeout=60_000
            )
            assert "No messages" not in page.inner_text("body")
            page.get_by_text("Scoring", exact=True).first.click()
            expect(page.get_by_text("EXPLANATION").first).to_be_visible(timeout=60_000)
            body = page.inner_text("body")
            assert "EXPLANATION" in body and "(No Explanation)" not in body
            assert ": " in body.split("EXPLANATION", 1)[1]  # "key: evidence" or "nothing revealed"
    finally:
        view.terminate()
        view.wait(timeout=20)
