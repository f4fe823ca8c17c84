"""A real browser on a database of twelve runs: every page opens without an exception, with the
default few runs and with every run selected; Overview's leaderboard lists all twelve, and no
Growth chart draws more than eight runs."""

from __future__ import annotations

import pytest
from app_server import PAGES, chromium, chromium_or_skip, serving
from playwright.sync_api import expect

from cimem.publish import palette

from fixtures import twelve_runs

pytestmark = chromium_or_skip()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = twelve_runs(tmp_path_factory.mktemp("many"))
    with serving(db) as base, chromium() as browser:
        yield base, browser


@pytest.mark.parametrize("runs", ["", "?runs=" + ",".join(str(i) for i in range(1, 13))])
def test_every_page_with_twelve_runs(served, runs, tmp_path):
    base, browser = served
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    for path, heading in PAGES.items():
        page.goto(f"{base}/{path}{runs}")
        page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=60000)
        page.wait_for_timeout(1500)  # let the page finish its run
        assert page.locator('[data-testid="stException"]').count() == 0, path
        page.screenshot(path=str(tmp_path / f"{path or 'overview'}.png"), full_page=True)
        if path == "growth":
            legends = page.locator("div.linechart div.legend")
            legends.first.wait_for(timeout=60000)
            for text in legends.all_inner_texts():
                named = [line for line in text.splitlines() if ":" in line]
                assert len(named) <= palette.MAX_RUNS_PER_CHART, text
    page.close()


def test_the_leaderboard_lists_all_twelve(served):
    base, browser = served
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(base)
    page.get_by_text("Leaderboard: all 12 runs", exact=False).first.wait_for(timeout=60000)
    page.get_by_text("12 of 12 runs under the filters", exact=False).first.wait_for(timeout=60000)
    rows = page.locator('[data-testid="stHtml"] table').first.locator("tbody tr")
    expect(rows).to_have_count(12, timeout=60000)  # the leaderboard, above the selected runs
    page.close()
