"""Options every command that calls a model shares: a bad --concurrency is refused by every one
of them, before anything is opened or called."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--model", "m"],
        ["label", "--model", "m"],
        ["judge", "--run", "1", "--judge-model", "m"],
    ],
)
@pytest.mark.parametrize(("value", "said"), [("0", "0: at least 1"), ("x", "'x' is not a whole")])
def test_concurrency_must_be_a_positive_whole_number(tmp_path, command, value, said):
    db = tmp_path / "none.duckdb"
    out = subprocess.run(
        [sys.executable, "-m", "cimem", *command, "--concurrency", value, "--db", str(db)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert f"argument --concurrency: {said}" in out.stderr
    assert not db.exists()  # refused before the database was opened
