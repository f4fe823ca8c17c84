"""The team audit of docs/cli.md through the browser, on a full-size run (10 profiles x 5 trials, a
judge missing a fifth of what messages state and adding 2% false reveals): two reviewers decide
the Review page's sample by keys, each answering from the truth (ana first, then ben, who is asked
for every fifth draw again, then ana for ben's); Overview then shows the corrected numbers, the
same the command line prints, their intervals holding the truth."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

from app_server import chromium, chromium_or_skip, serving
from full_size import truth_table

from cimem.store import Store

pytestmark = chromium_or_skip()

CELLS = 100  # the Review page's sample size: its first draws, as `audit-sample --size 100` lists
IDLE = (
    "() => document.querySelector('[data-testid=\"stApp\"]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'"
)
SIZED = (  # the cell line counts the sample of the size asked (whole draws: a few more)
    "(n) => { const m = document.body.innerText.match(/Cell \\d+ of (\\d+)/);"
    " return m !== null && +m[1] >= n && +m[1] < 2 * n; }"
)
CELL = re.compile(r"^Cell (\d+) of (\d+)")
SHOWN = re.compile(r"Profile (.+), trial (\d+), message (\d+)")
ATTRIBUTE = re.compile(r"^Attribute (\S+) \((private|share)\)", re.M)


def _join(messages: dict, truth: dict) -> dict[tuple[int, str], bool]:
    by_slot: dict[tuple, dict[str, bool]] = {}
    for (p, r, t, trial, key), said in truth.items():
        by_slot.setdefault((p, r, t, trial), {})[key] = said
    return {
        (mid, key): said for mid, slot in messages.items() for key, said in by_slot[slot].items()
    }


def _decide(page, truth: dict, limit: int) -> int:
    """Press Y or N for the cell shown, from the truth, until nothing waits for this reviewer
    or ``limit`` verdicts; returns the verdicts given."""
    given = 0
    while given < limit:
        page.wait_for_function(IDLE, timeout=120000)
        body = page.locator('[data-testid="stMain"]').inner_text()
        if "Every cell of this sample is decided" in body and not _asks_me(body):
            break
        line = page.get_by_text(CELL).first.inner_text()
        shown, attribute = SHOWN.search(body), ATTRIBUTE.search(body)
        assert shown and attribute, body[:2000]
        key = "y" if truth[(int(shown.group(3)), attribute.group(1))] else "n"
        page.get_by_role("heading", name="Review").first.click()
        page.keyboard.press(key)
        changed = "(t) => !document.body.innerText.includes(t)"
        try:
            page.wait_for_function(changed, arg=line, timeout=20000)
        except Exception:  # the press reached a page still drawing: not counted, press again
            continue
        given += 1
    return given


def _asks_me(body: str) -> bool:
    return "another reviewer decided it" in body


def _reviewer(browser, base: str, name: str):
    """A reviewer's page on the run's Review page: the sample's size and their name set."""
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(f"{base}/review?runs=1")
    return _named(page, name)


def _named(page, name: str):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.get_by_text(CELL).first.wait_for(timeout=180000)
    page.wait_for_function(IDLE, timeout=120000)
    size = page.get_by_label("cells", exact=True).and_(page.get_by_test_id("stNumberInputField"))
    for _ in range(3):  # a value typed while a rerun redraws the field can be lost: type it again
        size.fill(str(CELLS))
        size.press("Enter")
        page.wait_for_function(IDLE, timeout=120000)
        try:
            page.wait_for_function(SIZED, arg=CELLS, timeout=20000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError(f"the sample's size never became {CELLS}")
    page.get_by_label("Reviewer (optional)").fill(name)
    page.get_by_label("Reviewer (optional)").press("Enter")
    page.wait_for_function(IDLE, timeout=120000)
    return page


def test_two_reviewers_by_keys_then_overview_corrects(full_run, tmp_path):
    db = full_run.copy_db(tmp_path / "audit.duckdb")
    truth = _join(_messages(db), truth_table(full_run.truth))
    with serving(db) as base, chromium() as browser:
        ana = _reviewer(browser, base, "ana")
        first = _decide(ana, truth, CELLS // 2)
        ben = _reviewer(browser, base, "ben")
        second = _decide(ben, truth, 4 * CELLS)
        ana.reload()  # a new visit: ana names herself again
        third = _decide(_named(ana, "ana"), truth, 4 * CELLS)
        assert first == CELLS // 2 and second > 0 and third >= 0
        overview = browser.new_page(viewport={"width": 1440, "height": 1000})
        overview.goto(f"{base}/?runs=1")
        overview.get_by_text("Corrected for the judge's errors", exact=False).first.wait_for(
            timeout=180000
        )
        overview.wait_for_function(IDLE, timeout=120000)
        # the script is done before the browser has drawn every table: a page's first HTML
        # table waits for its component's code to load
        corrected = overview.locator("table.cimem-table").filter(has_text="corrected 95% CI")
        corrected.first.wait_for(timeout=60000)
        page_text = overview.locator('[data-testid="stMain"]').inner_text()
        assert overview.locator('[data-testid="stException"]').count() == 0
        assert overview.get_by_text("Deploy", exact=True).count() == 0  # a reader's toolbar
        audit = browser.new_page(viewport={"width": 1440, "height": 1000})
        audit.goto(f"{base}/audit?runs=1&message=300")  # two judges now: the table still fits
        audit.get_by_text("grounded", exact=True).first.wait_for(timeout=180000)
        audit.wait_for_function(IDLE, timeout=120000)
        fits = "() => [...document.querySelectorAll('table.cimem-table')].every(t => t.scrollWidth <= t.parentElement.clientWidth + 1)"
        assert audit.evaluate(fits)
    with Store.open(db, read_only=True) as store:
        human = store.find_human_judge(1)
        reviewers = {v.reviewer for v in store.human_verdicts(human)}
        (sample,) = store.audit_samples(human)
    assert reviewers == {"ana", "ben"} and (sample.judge_id, sample.seed) == (1, 0)
    cli = subprocess.run(
        [sys.executable, "-m", "cimem", "metrics", "--db", str(db), "--run", "1"]
        + ["--corrected-by", "people", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    run = json.loads(cli.stdout)["runs"][0]
    true = json.loads(
        subprocess.run(
            [sys.executable, "-m", "cimem", "metrics", "--results", str(full_run.truth), "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )["runs"][0]
    for metric in ("violation", "completeness"):
        fixed = run[metric]["corrected"]
        assert fixed["mean"] is not None, fixed.get("not_estimated")
        assert fixed["ci95"][0] <= true[metric]["mean"] <= fixed["ci95"][1], (metric, fixed)
        shown = f"[{100 * fixed['ci95'][0]:.2f}, {100 * fixed['ci95'][1]:.2f}]"
        assert f"{100 * fixed['mean']:.2f}" in page_text and shown in page_text
    exported = tmp_path / "people.csv"
    subprocess.run(
        [sys.executable, "-m", "cimem", "human", "export", "--db", str(db), "--run", "1"]
        + ["--out", str(exported)],
        check=True,
    )
    with exported.open(newline="") as f:  # verdicts made by keys say their draws too
        drawn = [r for r in csv.DictReader(f) if r["draw"]]
    sample = f"judge 1, seed 0, official, rule unanimous, {CELLS} cells"
    assert drawn and all(r["sample"] == sample for r in drawn)
    cells = run["violation"]["corrected"]["audited_pairs"]
    cells += run["completeness"]["corrected"]["audited_pairs"]
    assert f"following the audit sample of seed 0, on {cells} audited cells" in page_text


def _messages(db) -> dict[int, tuple[str, str, str, int]]:
    """{message id: (profile, recipient, task, trial)} of run 1."""
    with Store.open(db, read_only=True) as store:
        contexts = {(c.profile_id, c.ctx_idx): c for c in store.contexts_of(1)}
        return {
            m.message_id: (
                m.profile,
                contexts[(m.profile_id, m.ctx_idx)].recipient,
                contexts[(m.profile_id, m.ctx_idx)].task,
                m.trial,
            )
            for m in store.messages_to_judge(1)
        }
