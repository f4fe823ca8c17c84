"""docs/scaling.md's "A lab's lake, end to end", typed as documented on a full-size run: the
project's script starts PostgreSQL, a file's runs are copied in, three writers (an import, a
re-judging, people's verdicts) write at once, and the numbers equal the same work done one after
another into a file; compaction leaves fewer files and the same numbers; the backup copy holds
them too."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from app_server import free_port
from full_size import fill_sheet, truth_table
from lakes import cimem, numbers, postgres_or_skip
from typed import Typed, block

from conftest import REPO, shared_file

pytestmark = pytest.mark.slow

COMMANDS = block("docs/scaling.md", "### A lab's lake, end to end")


@pytest.fixture
def lake_dir():
    """The cluster's folder: outside pytest's own (PostgreSQL runs as its own user, which must
    reach it), removed after."""
    postgres_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="cimem-guide-lake-"))
    os.chmod(folder, 0o755)
    yield folder
    os.system(f"bash {REPO}/scripts/lake stop {folder} >/dev/null 2>&1")
    shutil.rmtree(folder, ignore_errors=True)


def test_the_lake_guide_as_typed(full_run, tmp_path, lake_dir):
    shared_file("results_sample.jsonl")
    shell = Typed(tmp_path / "work", env={"CIMEM_LAKE_DIR": str(lake_dir)})
    shell.env["CIMEM_LAKE_PORT"] = str(free_port())
    shell.cwd.mkdir()
    (shell.cwd / "scripts").symlink_to(REPO / "scripts")
    full_run.copy_db(shell.cwd / "my.duckdb")
    sheet = shell.cwd / "sample.csv"
    cimem(str(shell.cwd / "my.duckdb"), f"audit-sample --run 1 --judge 1 --size 40 --out {sheet}")
    fill_sheet(sheet, truth_table(full_run.truth), {"ana": shell.cwd / "ana.csv"})
    file_db = str(full_run.copy_db(tmp_path / "one_after_another.duckdb"))  # the same work
    cimem(file_db, f"ingest {shared_file('results_sample.jsonl')}")
    cimem(file_db, "judge --run 1 --offline --name offline")
    cimem(file_db, f"human import {shell.cwd / 'ana.csv'} --run 1")

    said = shell.run_all(COMMANDS[:-3])
    lake = shell.env["CIMEM_DB"]
    assert (
        lake.startswith("ducklake:postgres:dbname=cimem host=127.0.0.1") and str(lake_dir) in lake
    )
    assert "run 1 (full-size judged run) -> run 1" in said[2]
    before = numbers(lake)
    assert before == numbers(file_db)
    compacted = shell.run(COMMANDS[-3])
    files = [int(n) for n in compacted.split(": ", 1)[1].split(" data files")[0].split(" -> ")]
    assert files[1] < files[0], compacted
    shell.run_all(COMMANDS[-2:])
    assert numbers(str(shell.cwd / "backup.duckdb")) == before
    assert (shell.cwd / "numbers.json").stat().st_size > 1000
