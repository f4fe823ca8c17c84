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


def test_an_inspect_log_uploaded_becomes_a_run(tmp_path):
    """A team's Inspect log of the cimemories task, uploaded: one run with the log's model."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from cimem.inspect_eval.task import cimemories

    from fixtures import runner_profiles

    profiles = write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(2, 2))
    outputs = [ModelOutput.from_content(model="mockllm/model", content="I have asthma.")] * 4
    for o in outputs:
        o.usage = ModelUsage(input_tokens=5, output_tokens=2, total_tokens=7)
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    [log] = inspect_eval(
        cimemories(profiles=str(profiles), n=1), model=model, log_dir=str(tmp_path), display="none"
    )
    upload = tmp_path / "team run.eval"
    upload.write_bytes(open(log.location, "rb").read())
    db = tmp_path / "up.duckdb"
    Store.open(db).close()
    with serving(db) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{base}/data")
        page.get_by_role("heading", name="Data", exact=True).first.wait_for(timeout=60000)
        page.locator('input[type="file"]').set_input_files(str(upload))
        page.locator('[data-testid="stFileChipName"]').first.wait_for(timeout=30000)
        page.get_by_role("button", name="Import").click()
        page.get_by_text("team run.eval (uploaded)").first.wait_for(timeout=60000)
        assert page.locator('[data-testid="stException"]').count() == 0
    with Store.open(db, read_only=True) as store:
        (run,) = store.list_runs()
        assert (run.source_format, run.model, run.messages) == ("inspect", "mockllm/model", 4)
