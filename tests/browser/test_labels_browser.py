"""The Labels page in a real browser: a reviewer labels two pairs of a context in the table and
saves; the page is drawn again at once with the new counts and the people's schemes, the saved
labels fill the table, and Save has nothing left to store (nothing is written twice)."""

import re

import pytest
from app_server import chromium, chromium_or_skip, serving

from cimem.store import Store

pytestmark = chromium_or_skip()
IDLE = (
    "() => document.querySelector('[data-testid=\"stApp\"]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'"
)
ROW = 35  # the table's row height in pixels (its header row too)


@pytest.fixture(scope="module")
def served(demo_db):
    """The demo database (this module's own copy) served to a browser."""
    with serving(demo_db) as base:
        yield base, demo_db


def labelled_count(page) -> int:
    text = page.get_by_text(re.compile(r"pairs labelled, \d+ new")).first.inner_text()
    return int(text.split()[0])


def set_label(page, row: int, value: str) -> None:
    """Open the label cell of ``row`` and choose ``value``; a click lost while the page redraws
    is made again until the caption counts one more labelled pair."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = labelled_count(page)
    grid = page.locator('[data-testid="stDataFrame"]').last
    for _ in range(4):
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        box = grid.bounding_box()
        x, y = box["x"] + box["width"] - 60, box["y"] + ROW + row * ROW + ROW // 2
        page.mouse.dblclick(x, y)  # opens the cell's editor, and at times its dropdown
        option = page.locator('#portal [role="option"]', has_text=value).first
        try:
            option.wait_for(timeout=1500)
        except PlaywrightTimeout:
            page.mouse.click(x, y)  # the editor is open, its dropdown not yet
            try:
                option.wait_for(timeout=3000)
            except PlaywrightTimeout:
                continue
        option.click()
        try:  # the edit reruns the page: its caption then counts one more
            page.wait_for_function(
                "(n) => document.body.innerText.includes(`${n} of `)", arg=before + 1, timeout=15000
            )
        except PlaywrightTimeout:
            continue
        page.wait_for_function(IDLE, timeout=60000)
        return
    page.screenshot(path="/tmp/labels_grid_failed.png")
    raise AssertionError(f"could not set row {row} to {value}")


def test_a_reviewer_labels_a_context_and_the_page_follows(served):
    base, db = served
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{base}/labels?runs=1")
        page.get_by_text("0 current labels by 0 reviewers").first.wait_for(timeout=120000)
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_text("selected run under each scheme").first.click()
        page.get_by_text("majority@equal", exact=True).first.wait_for(timeout=120000)
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_text("Label a context here").first.click()
        reviewer = page.get_by_label("Reviewer", exact=True)
        reviewer.wait_for(timeout=60000)
        reviewer.fill("ana")
        reviewer.press("Enter")
        page.get_by_text(re.compile(r"pairs labelled, \d+ new")).first.wait_for(timeout=60000)
        page.wait_for_function(IDLE, timeout=60000)
        set_label(page, 0, "share")
        set_label(page, 1, "withhold")
        page.get_by_role("button", name="Save my labels").click()
        page.get_by_text("Recorded 2 labels by ana.").first.wait_for(timeout=60000)
        page.get_by_text("2 current labels by 1 reviewer").first.wait_for(timeout=60000)
        page.wait_for_function(IDLE, timeout=60000)
        assert page.get_by_text("unanimous@reviewed", exact=True).count() >= 1
        assert page.get_by_text("2 of", exact=False).count() >= 1  # the saved labels filled in
        assert page.get_by_role("button", name="Save my labels").is_disabled()
        assert page.locator('[data-testid="stException"]').count() == 0
    with Store.open(db, read_only=True) as store:
        history = store.people_labels(history=True)
    assert [(str(r.label), r.reviewer) for r in history] == [("share", "ana"), ("withhold", "ana")]


def test_the_sheet_to_fill_downloads_whole_contexts(served):
    """The sheet is made when its button is clicked: three whole contexts, blind to the
    personas."""
    import csv
    import io

    base, _ = served
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
        page.goto(f"{base}/labels?runs=1")
        page.get_by_text("current label").first.wait_for(timeout=120000)
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_text("Label in a spreadsheet").first.click()
        button = page.get_by_role("button", name="Download a sheet to fill")
        button.wait_for(timeout=60000)
        with page.expect_download() as made:
            button.click()
        text = open(made.value.path(), encoding="utf-8").read()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len({(r["profile"], r["recipient"], r["task"]) for r in rows}) == 3
    assert "necessary" not in text and rows[0]["label"] == ""
