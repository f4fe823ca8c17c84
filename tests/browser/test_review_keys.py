"""The Review page in a real browser: one key per verdict, the page moving on by itself, blind
mode, and the keys named on the page. Its speed is bench/review.py's."""

import re

import pytest
from app_server import chromium, chromium_or_skip, click_until, serving

from cimem.store import Store

pytestmark = chromium_or_skip()


@pytest.fixture(scope="module")
def served(demo_db):
    """The demo database (this module's own copy) served to a browser."""
    with serving(demo_db) as base:
        yield base, demo_db


def cell_shown(page) -> int:
    return int(page.get_by_text(re.compile(r"^Cell \d+ of")).first.inner_text().split()[1])


def press_and_move_on(page, key: str, cell: int) -> None:
    """Press ``key`` and wait for the next cell; a press that reached a page still redrawing is
    not counted (it says so), and is pressed again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    moved = "(n) => !document.body.innerText.includes(`Cell ${n} of`)"
    page.keyboard.press(key)
    try:
        page.wait_for_function(moved, arg=cell, timeout=20000)
    except PlaywrightTimeout:
        page.get_by_role("heading", name="Review").first.click()
        page.keyboard.press(key)
        page.wait_for_function(moved, arg=cell, timeout=60000)
    page.wait_for_function(IDLE, timeout=60000)


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
        page.get_by_text("Keys:", exact=False).first.wait_for(timeout=60000)  # named on the page
        page.wait_for_function(IDLE, timeout=60000)
        page.get_by_role("heading", name="Review").first.click()  # the page has the focus
        shown = [1]
        for key in "nnnyn":
            press_and_move_on(page, key, shown[-1])
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


def test_two_reviewers_blind_overlap_agreement_adjudication(served):
    """ana decides with the keys through the fifth draw; ben, blind, is asked for the fifth
    draw first (without ana's verdict), reads it the other way; the Audit page then lists the
    disagreement with the two reviewers' agreement, and an adjudication settles it."""
    base, db = served
    with chromium() as browser:
        ana = browser.new_page(viewport={"width": 1440, "height": 1000})
        ana.goto(f"{base}/review?runs=1")
        ana.get_by_text(re.compile(r"^Cell \d+ of")).first.wait_for(timeout=120000)
        ana.get_by_label("Reviewer (optional)").fill("ana")
        ana.get_by_label("Reviewer (optional)").press("Enter")
        ana.wait_for_function(IDLE, timeout=60000)
        ana.get_by_role("heading", name="Review").first.click()
        for _ in range(60):
            text = ana.get_by_text(re.compile(r"^Cell \d+ of")).first.inner_text()
            if int(re.search(r"draw (\d+) of", text).group(1)) > 5:
                break
            ana.keyboard.press("n")
            ana.wait_for_function("(t) => !document.body.innerText.includes(t)", arg=text)
            ana.wait_for_function(IDLE, timeout=60000)
        ben = browser.new_page(viewport={"width": 1440, "height": 1000})
        ben.goto(f"{base}/review?runs=1")
        ben.get_by_text(re.compile(r"^Cell \d+ of")).first.wait_for(timeout=120000)
        ben.get_by_text("Blind: hide", exact=False).first.click()
        ben.wait_for_function(IDLE, timeout=60000)
        ben.get_by_label("Reviewer (optional)").fill("ben")
        ben.get_by_label("Reviewer (optional)").press("Enter")
        ben.get_by_text("another reviewer decided it", exact=False).first.wait_for(timeout=60000)
        ben.wait_for_function(IDLE, timeout=60000)
        ben.get_by_text("the judge: hidden", exact=False).first.wait_for(timeout=60000)
        assert ben.get_by_text("people: not revealed", exact=False).count() == 0
        ben.get_by_role("heading", name="Review").first.click()
        ben.keyboard.press("y")
        ben.wait_for_function(
            "() => !document.body.innerText.includes('another reviewer decided it')"
        )
        with Store.open(db, read_only=True) as store:
            human = store.find_human_judge(1)
            reviewers = {v.reviewer for v in store.human_verdicts(human)}
        assert {"ana", "ben"} <= reviewers
        audit = browser.new_page(viewport={"width": 1440, "height": 1000})
        audit.goto(f"{base}/audit?runs=1&qf=people_disagree")
        audit.get_by_text("Reviewers against each other", exact=False).first.wait_for(
            timeout=120000
        )
        audit.get_by_text("Krippendorff", exact=False).first.wait_for(timeout=60000)
        # the disputed cell, adjudicated in the verdict form
        with Store.open(db, read_only=True) as store:
            human = store.find_human_judge(1)
            rows = store.human_verdicts(human)
        by_pair: dict[tuple[int, int], set[bool]] = {}
        for v in rows:
            by_pair.setdefault((v.message_id, v.attr_id), set()).add(v.revealed)
        message, attr = next(p for p, said in by_pair.items() if len(said) == 2)
        key = next(v.key for v in rows if (v.message_id, v.attr_id) == (message, attr))
        audit.goto(f"{base}/audit?runs=1&qf=people_disagree&message={message}")
        opener = audit.get_by_text("Record your verdicts on this message").first
        opener.wait_for(timeout=120000)
        audit.wait_for_function(IDLE, timeout=60000)
        opener.click()
        label = audit.locator('[data-testid="stWidgetLabel"]').filter(
            has_text=re.compile(rf"^{re.escape(key)} ·")
        )
        group = audit.locator('[data-testid="stRadio"]').filter(has=label).first
        group.wait_for(timeout=60000)
        chosen = group.locator("label:has(input:checked)").filter(
            has_text=re.compile(r"^revealed$")
        )
        click_until(group.get_by_text("revealed", exact=True), chosen)
        settle = audit.locator("label:has(input:checked)").filter(
            has_text="Record as adjudications"
        )
        click_until(audit.get_by_text("Record as adjudications").first, settle)
        save = audit.get_by_role("button", name="Save my verdicts")
        click_until(save, audit.get_by_text("Stored 1 verdict", exact=False), tries=3)
        with Store.open(db, read_only=True) as store:
            assert store.settled_human_verdicts(human)[(message, attr)] is True
        assert audit.locator('[data-testid="stException"]').count() == 0
