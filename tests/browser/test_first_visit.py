"""The first visit of a fresh server on a fresh data folder, in chromium: the demo database is
built once (under a lock) while two tabs opened together wait for it, and a reload during the
build waits too. No tab ever shows an exception box or the one-line unexpected error.

The build takes under two seconds, too short to act inside: the test holds the build's lock
file (as another server on the machine building it would) from before the server starts (its
own first visit starts the build) until the tabs show they are waiting."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest
from app_server import chromium, chromium_or_skip, running_app
from playwright.sync_api import Page, expect

pytestmark = chromium_or_skip()
SETTLED_MS = 180_000


class BuildLock:
    """The demo's lock file, held by this process until :meth:`release`."""

    def __init__(self, demo: Path):
        self.handle = demo.with_suffix(".lock").open("a")
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def release(self) -> None:
        if not self.handle.closed:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()


def fresh_server(demo: Path):
    """The app with no database named, its demo to be built at ``demo`` (absent)."""
    assert not demo.exists()
    return running_app({"CIMEM_DB": "", "CIMEM_DEMO_DB": str(demo)})


def waiting(page: Page) -> None:
    expect(page.get_by_text("First run: building the demo database", exact=False)).to_be_visible(
        timeout=SETTLED_MS
    )


def settled_on_overview(page: Page) -> None:
    expect(page.get_by_role("heading", name="Overview")).to_be_visible(timeout=SETTLED_MS)
    expect(page.get_by_text("SIMULATED data", exact=False).first).to_be_visible(timeout=SETTLED_MS)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("unexpected error", exact=False).count() == 0


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_two_tabs_opened_together_on_a_fresh_server(browser, tmp_path):
    demo = tmp_path / "demo.duckdb"
    tabs = [browser.new_context(viewport={"width": 1440, "height": 900}) for _ in range(2)]
    pages = [t.new_page() for t in tabs]
    lock = BuildLock(demo)
    try:
        with fresh_server(demo) as base:
            for page in pages:
                page.goto(base + "/", wait_until="commit")
            for page in pages:
                waiting(page)
            lock.release()
            for page in pages:
                settled_on_overview(page)
    finally:
        lock.release()
        for tab in tabs:
            tab.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.duckdb", "demo.lock"]


def test_a_reload_during_the_build(browser, tmp_path):
    demo = tmp_path / "demo.duckdb"
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    lock = BuildLock(demo)
    try:
        with fresh_server(demo) as base:
            page.goto(base + "/", wait_until="commit")
            waiting(page)
            page.reload(wait_until="commit")
            waiting(page)
            lock.release()
            settled_on_overview(page)
    finally:
        lock.release()
        context.close()
