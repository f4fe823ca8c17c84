"""The Review page in a real browser: one key per verdict, the page moving on by itself, blind
mode, and the keys named on the page. Its speed is bench/review.py's."""

import re

import pytest
from app_server import chromium, chromium_or_skip, running_app

from cimem.demo.simulate import build_demo_database
from cimem.store import Store

pytestmark = chromium_or_skip()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = tmp_path_factory.mktemp("review") / "review.duckdb"
    build_demo_database(db)
    args = ("--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")
    with running_app({"CIMEM_DB": str(db)}, *args) as base:
        yield base, db


def cell_shown(page) -> int:
    return int(page.get_by_text(re.compile(r"^Cell \d+ of")).first.inner_text().split()[1])


IDLE = (
    "() => document.querySelector('[data-testid=\"stApp\"]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'"
)


def test_one_key_per_verdict(served):
    base, db = served
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{base}/review?runs=1")
        page.get_by_text("Cell 1 of", exact=False).first.wait_for(timeout=120000)
        assert page.get_by_text("Keys:", exact=False).first.is_visible()
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_role("heading", name="Review").first.click()  # the page has the focus
        shown = [1]
        for key in "nnnyn":
            page.keyboard.press(key)
            page.wait_for_function(
                "(n) => !document.body.innerText.includes(`Cell ${n} of`)", arg=shown[-1]
            )
            page.wait_for_function(IDLE, timeout=60000)
            shown.append(cell_shown(page))
        assert shown == sorted(shown) and len(set(shown)) == 6  # each key moved on
        with Store.open(db, read_only=True) as store:
            said = store.human_verdicts(store.find_human_judge(1))
        assert sorted(v.revealed for v in said) == [False, False, False, False, True]
        page.keyboard.press("ArrowLeft")  # back to a decided cell: what people said is shown
        page.get_by_text(f"Cell {shown[-1] - 1} of", exact=False).first.wait_for(timeout=60000)
        page.wait_for_function(IDLE, timeout=60000)
        assert page.get_by_text("people: ", exact=False).count() >= 1
        page.get_by_text("Blind: hide", exact=False).first.click()
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_role("heading", name="Review").first.click()  # the toggle had the focus
        page.keyboard.press("ArrowRight")
        page.get_by_text("the judge: hidden", exact=False).first.wait_for(timeout=60000)
        assert page.locator("mark").count() == 0  # no evidence highlighted while blind
        assert page.locator('[data-testid="stException"]').count() == 0
