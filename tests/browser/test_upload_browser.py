"""A file uploaded on the Data page, in a real browser: the run keeps the name it was uploaded
under (not the server's temporary copy), on the page and in the store."""

from app_server import chromium, chromium_or_skip, serving

from cimem.store import Store

from fixtures import small_profile, write_jsonl

pytestmark = chromium_or_skip()


def test_an_uploaded_file_is_recorded_under_its_own_name(tmp_path):
    db = tmp_path / "up.duckdb"
    Store.open(db).close()
    upload = write_jsonl(tmp_path / "Llama 3.3 results.jsonl", [small_profile("Ada")])
    with serving(db) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{base}/data")
        page.get_by_role("heading", name="Data", exact=True).first.wait_for(timeout=60000)
        page.locator('input[type="file"]').set_input_files(str(upload))
        page.locator('[data-testid="stFileChipName"]').first.wait_for(timeout=30000)
        page.get_by_role("button", name="Import").click()
        page.get_by_text("Run 1 (Llama 3.3 results)").first.wait_for(timeout=60000)
        page.get_by_text("Llama 3.3 results.jsonl (uploaded)").first.wait_for(timeout=30000)
        assert page.locator('[data-testid="stException"]').count() == 0
    with Store.open(db, read_only=True) as store:
        (run,) = store.list_runs()
    assert run.source == "Llama 3.3 results.jsonl (uploaded)"
