"""Two sessions of one app server (streamlit.testing AppTest, each in its own thread, sharing the
server's caches and database connection as two browsers do): one imports the 60-profile
fabricated file through the Data page while the other opens every page and renames a run. No
exception in either, the rename survives, and the reader sees the run list from before or after
the import, never half of it."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import REPO, SHARED, shared_file
from fixtures import shown_tables, small_profile, write_jsonl

APP = str(REPO / "app.py")
PAGES = [
    "webapp/pages/overview.py",
    "webapp/pages/leaks.py",
    "webapp/pages/growth.py",
    "webapp/pages/audit.py",
    "webapp/pages/learn.py",
    "webapp/pages/data.py",
]
PROFILES = 60


@pytest.fixture(scope="session")
def fabricated(tmp_path_factory) -> Path:
    """The 60-profile fabricated run output (one trial per context), made once per session."""
    profiles = shared_file("profiles_extended.json")
    out = tmp_path_factory.mktemp("fabricated") / "f60.jsonl"
    subprocess.run(
        [sys.executable, str(SHARED.parent / "tools" / "fabricate_results.py"), str(profiles)]
        + [str(out), "--profiles", str(PROFILES), "--trials", "1"],
        check=True,
        capture_output=True,
    )
    return out


def runs_seen(at: AppTest) -> dict[int, tuple[str, int, int]]:
    """The Data page's run table: {run_id: (name, profiles, messages)}."""
    table = shown_tables(at)[0]
    return {
        int(r.run): (
            str(r.name),
            int(r.profiles.replace(",", "")),
            int(r.messages.replace(",", "")),
        )
        for r in table.itertuples()
    }


def one_runtime_for_both(monkeypatch) -> None:
    """Give both sessions one runtime, as a served app has (one runtime for all its sessions).

    AppTest swaps a process-wide ``Runtime._instance`` at the start of each run, each with its
    own registry of custom elements, caches and media files, and clears it when the run ends.
    Two AppTests running at once in two threads (the importer and the reader) would mount a
    custom element (the heatmap, a line chart) from one registry and look it up in the other's
    ("Component ... is not registered"), or find no runtime at all mid-run. Here every lookup
    returns one runtime built as AppTest builds its own, so the race left is the app's.
    """
    from unittest.mock import MagicMock

    from streamlit.components.v2.component_manager import BidiComponentManager
    from streamlit.runtime import Runtime
    from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
    from streamlit.runtime.dataframe_source_manager import DataframeSourceManager
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    shared = MagicMock(spec=Runtime)
    shared.media_file_mgr = MediaFileManager(MemoryMediaFileStorage("/mock/media"))
    shared.dataframe_source_mgr = DataframeSourceManager()
    shared.cache_storage_manager = MemoryCacheStorageManager()
    shared.bidi_component_registry = BidiComponentManager()
    shared.bidi_component_registry.discover_and_register_components(start_file_watching=False)
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: shared))
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))


@pytest.mark.slow
def test_a_reader_keeps_browsing_while_another_session_imports(fabricated, tmp_path, monkeypatch):
    one_runtime_for_both(monkeypatch)
    data = fabricated.parent  # the data folder: the fabricated file and this test's database
    db = data / "two_sessions.duckdb"
    with Store.open(db) as s:
        first = ingest_file(s, write_jsonl(tmp_path / "a.jsonl", [small_profile()]), name="a")
    monkeypatch.setenv("CIMEM_DB", str(db))
    monkeypatch.setenv("CIMEM_DATA_DIR", str(data))

    importer = AppTest.from_file(APP, default_timeout=900)
    importer.run()
    importer.switch_page("webapp/pages/data.py").run()
    importer.text_input(key="server_path").set_value(fabricated.name).run()
    reader = AppTest.from_file(APP, default_timeout=900)
    reader.run()
    reader.switch_page("webapp/pages/data.py").run()
    before = runs_seen(reader)

    importing = threading.Event()
    done = threading.Event()
    failures: list[BaseException] = []

    def import_it() -> None:
        try:
            importing.set()
            importer.button(key="import").click().run()
        except BaseException as exc:  # surfaced in the test's thread
            failures.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=import_it)
    thread.start()
    importing.wait()
    views: list[dict] = []
    during = 0  # reader pages that finished while the import was still running
    rounds = 0
    while not done.is_set() or rounds == 0:
        rounds += 1
        for page in PAGES:
            reader.switch_page(page).run()
            assert not reader.exception, (page, [e.value for e in reader.exception])
            if page.endswith("data.py"):
                views.append(runs_seen(reader))
            during += not done.is_set()
    # the reader renames a run (its Data page's run list changed under AppTest's widget
    # bookkeeping, so the rename starts from a fresh view of the page)
    reader = AppTest.from_file(APP, default_timeout=900)
    reader.run()
    reader.switch_page("webapp/pages/data.py").run()
    reader.text_input(key=f"new_name_{first.run_id}").set_value("renamed while importing").run()
    reader.button(key="rename").click().run()
    assert not reader.exception, [e.value for e in reader.exception]
    thread.join()
    assert not failures, failures
    assert not importer.exception, [e.value for e in importer.exception]
    assert any(f"{PROFILES} profiles" in s.value for s in importer.success)
    assert during > 0  # the reader did browse while the import ran

    reader.switch_page("webapp/pages/data.py").run()
    after = runs_seen(reader)
    new = set(after) - set(before)
    assert len(new) == 1
    (new_run,) = new
    assert after[new_run][1] == PROFILES
    assert after[first.run_id][0] == "renamed while importing"
    for seen in views:  # before the import or after it: never part of it
        assert set(seen) in (set(before), set(after)), seen
        if new_run in seen:
            assert seen[new_run][1:] == after[new_run][1:], seen[new_run]
