"""A real browser against the app started as the README says, with a canary key in
OPENAI_API_KEY: a visitor who types an endpoint and leaves the key empty sends nothing and never
the canary; with a key of their own only that key arrives; a listed endpoint receives its key."""

from __future__ import annotations

import pytest
from app_server import chromium, chromium_or_skip, logging_server, running_app

from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl

pytestmark = chromium_or_skip()
CANARY = "sk-canary-0f4e2a91"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("endpoints")
    db = tmp / "app.duckdb"
    with Store.open(db) as s:
        run = ingest_file(s, write_jsonl(tmp / "a.jsonl", [small_profile()])).run_id
        message = s.find_message(run, 0, 0, 0)
    with logging_server() as (visitor_url, visitor_log), logging_server() as (lab_url, lab_log):
        (tmp / "endpoints.toml").write_text(
            f'[[endpoints]]\nname = "lab"\nbase_url = "{lab_url}/v1"\nmodel = "m"\n'
            'key_env = "LAB_KEY"\n'
        )
        env = {
            "CIMEM_DB": str(db),
            "CIMEM_ENDPOINTS": str(tmp / "endpoints.toml"),
            "OPENAI_API_KEY": CANARY,
            "LAB_KEY": "lab-key-77",
        }
        with running_app(env) as base:
            yield base, message, (visitor_url, visitor_log), (lab_url, lab_log)


def open_audit(browser, base: str, message: int):
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto(f"{base}/audit?message={message}")
    page.get_by_role("heading", name="Audit", exact=True).first.wait_for(timeout=60000)
    return page


def fill(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=False).first
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(1500)


def test_a_typed_endpoint_never_receives_the_server_key(served):
    base, message, (url, log), _ = served
    with chromium() as browser:
        page = open_audit(browser, base, message)
        page.get_by_text("another endpoint", exact=True).click()
        fill(page, "Base URL", f"{url}/v1")
        fill(page, "Model", "m")
        page.get_by_text("needs your own API key", exact=False).first.wait_for(timeout=30000)
        assert page.get_by_role("button", name="Run it on this message").count() == 0
        assert log.requests == []
        fill(page, "Your API key", "visitor-key-5")
        page.get_by_role("button", name="Run it on this message").click()
        page.get_by_text("status", exact=False).first.wait_for(timeout=60000)
        page.wait_for_timeout(1000)
    assert len(log.requests) == 1
    assert log.requests[0][2].get("authorization") == "Bearer visitor-key-5"
    assert CANARY not in log.text()


def test_a_listed_endpoint_receives_its_own_key(served):
    base, message, (_, visitor_log), (lab_url, lab_log) = served
    with chromium() as browser:
        page = open_audit(browser, base, message)
        page.get_by_text("listed endpoint", exact=True).click()
        page.get_by_text("the key stays on the server", exact=False).first.wait_for(timeout=30000)
        page.get_by_role("button", name="Run it on this message").click()
        page.get_by_text("status", exact=False).first.wait_for(timeout=60000)
        page.wait_for_timeout(1000)
    assert [r[2].get("authorization") for r in lab_log.requests] == ["Bearer lab-key-77"]
    assert CANARY not in lab_log.text() + visitor_log.text()
