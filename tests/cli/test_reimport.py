"""Importing a file again: a gzipped copy is the same run (its content, not its bytes, is
hashed), and what the second import was told is named as not applied, with where to change it."""

from __future__ import annotations

import gzip
import subprocess
import sys

from cimem.store import Store

from fixtures import small_profile, write_jsonl


def cimem(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args], capture_output=True, text=True, check=False
    )


def test_a_gzipped_copy_and_told_values_on_a_second_import(tmp_path):
    plain = write_jsonl(tmp_path / "run.jsonl", [small_profile("Ann"), small_profile("Bo")])
    packed = tmp_path / "copy.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    db = str(tmp_path / "r.duckdb")
    first = cimem("ingest", str(plain), "--db", db)
    assert first.returncode == 0 and "run 1 (run)" in first.stdout, first.stderr
    again = cimem("ingest", str(packed), "--db", db, "--model", "lab/other", "--level", "2")
    assert again.returncode == 0, again.stderr
    assert "was already imported" in again.stdout and "nothing added" in again.stdout
    assert "--model, --level not applied" in again.stdout
    assert '"What made run 1"' in again.stdout and "Data page" in again.stdout
    quiet = cimem("ingest", str(packed), "--db", db)
    assert "not applied" not in quiet.stdout
    with Store.open(db, read_only=True) as store:
        [run] = store.list_runs()
        assert run.model != "lab/other"
