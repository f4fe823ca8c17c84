"""A real browser: names from data carrying markdown images and links (a run, a judge, a profile,
a recipient, a domain) and a ?db= value carrying them load no external resource and show as the
text they are, on every page."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from app_server import PAGES, chromium, chromium_or_skip, logging_server, running_app

from cimem.ingest import ingest_file
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store

from fixtures import small_profile, write_jsonl

pytestmark = chromium_or_skip()


def shown(page) -> str:
    """The page's text as a reader sees it (escaping keeps URLs from becoming links with an
    invisible word joiner)."""
    return page.locator("body").inner_text().replace("\u2060", "")


def wait_shown(page, text: str) -> None:
    """Wait until the page shows ``text`` (the page may still be running)."""
    for _ in range(120):
        if text in shown(page):
            return
        page.wait_for_timeout(500)
    assert text in shown(page)


def payload(url: str, what: str) -> str:
    return f"{what}![i]({url}/{what}.png) [link]({url}/{what}) <img src={url}/{what}-html.png>"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("payloads")
    with logging_server() as (url, log):
        obj = small_profile(payload(url, "profile"))
        obj["contexts"][0]["recipient"] = payload(url, "recipient")
        # a domain's name is a pill's text on Leaks
        obj["information_attributes"]["diagnosis"]["information_domain"] = payload(url, "domain")
        db = tmp / "app.duckdb"
        with Store.open(db) as s:
            run = ingest_file(s, write_jsonl(tmp / "p.jsonl", [obj])).run_id
            s.rename_run(run, payload(url, "run"))
            judge = rejudge(s, run, OfflineJudge(name=payload(url, "judge"))).judge_id
            profile_id = s.profiles_of(run)[0].profile_id
            named = next(  # the message that states the name (its evidence quotes it)
                m.message_id
                for m in s.messages_of(run, profile_id)
                if (m.text or "").startswith("I am")
            )
        with running_app({"CIMEM_DB": str(db), "CIMEM_DATA_DIR": str(tmp)}) as base:
            yield base, url, log, f"runs={run}&judge={judge}", named


def test_no_page_fetches_a_payload_and_names_show_literally(served):
    base, url, log, query, named = served
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        seen: list[str] = []
        page.on("request", lambda r: seen.append(r.url))
        for path, heading in PAGES.items():
            page.goto(f"{base}/{path}?{query}")
            page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=60000)
            page.wait_for_timeout(2000)  # let the page finish its run
            assert page.locator('[data-testid="stException"]').count() == 0, path
            assert page.locator(f'img[src^="{url}"]').count() == 0, path
            assert page.locator(f'a[href^="{url}"]').count() == 0, path
            # the run's name is in the sidebar on every page, as the text it is
            wait_shown(page, payload(url, "run"))
        page.goto(f"{base}/leaks?{query}")
        page.get_by_role("heading", name="Leaks", exact=True).first.wait_for(timeout=60000)
        # the Leaks caption names the run and the judge, the message list the profile and
        # the recipient, a Domain pill the domain: literally, brackets and all
        for what in ("run", "judge", "profile", "recipient", "domain"):
            wait_shown(page, payload(url, what))
        # the heatmap's task columns: the recipient's name as text, whole in the tooltip
        heads = page.locator("div.heatgrid th.column")
        heads.first.wait_for(timeout=60000)
        titles = heads.evaluate_all("els => els.map((e) => e.title)")
        assert any(payload(url, "recipient") in t for t in titles)
        assert any(t.startswith("recipient![i]") for t in heads.all_inner_texts())
        # Overview's trade-off: the run's name as the text of its point's label and tooltip
        page.goto(f"{base}/?{query}")
        label = page.locator("div.linechart text.label").first
        label.wait_for(timeout=60000)
        assert label.text_content() == f"1: {payload(url, 'run')}"
        tip = page.locator("div.linechart g.targets circle").first.get_attribute("data-tip")
        assert (tip or "").startswith(f"1: {payload(url, 'run')}\n")
        # Growth's charts: the run's name as text in the legend and in each point's tooltip
        page.goto(f"{base}/growth?{query}")
        legend = page.locator("div.linechart div.legend").first
        legend.wait_for(timeout=60000)
        assert payload(url, "run") in legend.inner_text()
        tips = page.locator("div.linechart g.targets circle").evaluate_all(
            "els => els.map((e) => e.dataset.tip)"
        )
        assert tips and all(t.startswith(f"1: {payload(url, 'run')}\n") for t in tips)
        # the Audit table: the name's memory statement and the judge's evidence quoting it show
        # literally
        page.goto(f"{base}/audit?{query}&message={named}")
        page.get_by_role("heading", name="Audit", exact=True).first.wait_for(timeout=60000)
        wait_shown(page, "My name is " + payload(url, "profile"))
        cells = page.locator("table.cimem-table").first.inner_text()
        assert "My name is " + payload(url, "profile") in cells
        assert page.locator(f'img[src^="{url}"]').count() == 0
        assert page.locator(f'a[href^="{url}"]').count() == 0
        # a ?db= carrying the payload: refused in one line that shows it literally
        typed = payload(url, "db") + ".duckdb"
        for path in PAGES:
            page.goto(f"{base}/{path}?db={quote(typed)}")
            wait_shown(page, typed + ": refused")
            assert page.locator('[data-testid="stException"]').count() == 0, path
            assert page.locator(f'img[src^="{url}"]').count() == 0, path
            assert page.locator(f'a[href^="{url}"]').count() == 0, path
    assert [u for u in seen if u.startswith(url)] == []
    assert log.requests == []
