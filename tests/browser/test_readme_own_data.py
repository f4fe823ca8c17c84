"""The README's "Use your own data", typed as written from a folder laid out like the repository,
on a full-size run output (10 profiles x 5 trials): import it, print its metrics, open the app on
it (`CIMEM_DB=my.duckdb bash scripts/app`), and see in chromium the numbers the command printed."""

from __future__ import annotations

import re
import shutil

from app_server import CHROMIUM, answers, chromium, chromium_or_skip, free_port
from typed import Typed, block

from conftest import REPO

pytestmark = chromium_or_skip()

COMMANDS = block("README.md", "## Use your own data")
LAYOUT = ("app.py", "webapp", "cimem", "scripts", ".streamlit", ".venv", "data")
IDLE = (
    "() => document.querySelector('[data-testid=\"stApp\"]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'"
)


def _checkout(folder) -> None:
    """A folder laid out like the repository (its parts linked), where the README's commands
    are typed; the requirements files copied so that scripts/setup-env finds .venv up to date."""
    folder.mkdir()
    for name in LAYOUT:
        (folder / name).symlink_to(REPO / name)
    for name in ("requirements.txt", "pyproject.toml"):
        shutil.copyfile(REPO / name, folder / name)


def test_import_print_and_open_the_app_on_your_own_data(full_run, tmp_path):
    assert CHROMIUM
    shell = Typed(tmp_path / "checkout")
    _checkout(shell.cwd)
    shutil.copyfile(full_run.judged, shell.cwd / "results.jsonl")
    *cli, app = COMMANDS
    assert app.startswith("CIMEM_DB=my.duckdb bash scripts/app")
    said = shell.run_all(cli)
    official = re.search(r"Violation@5\s+\(first 5 trials\)\s+([\d.]+)", said[-1])
    completeness = re.search(r"Completeness\s+([\d.]+)", said[-1])
    assert official and completeness and "mode definition" in said[-1]
    port = free_port()
    server = shell.start(
        f"{app} --server.port {port} --server.headless true --server.address 127.0.0.1"
    )
    base = f"http://127.0.0.1:{port}"
    try:
        assert answers(base, server, seconds=120), "the app did not start"
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(base)
            page.get_by_text("llama-3.3 level 1", exact=False).first.wait_for(timeout=180000)
            for number in (official.group(1), completeness.group(1)):  # the headline, drawn
                page.get_by_text(number, exact=False).first.wait_for(timeout=180000)
            page.wait_for_function(IDLE, timeout=180000)
            text = page.locator('[data-testid="stMain"]').inner_text()
            assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        shell.stop(server)
    assert official.group(1) in text and completeness.group(1) in text, text[:3000]
    assert "SIMULATED" not in text  # the user's own data, not the demo
