"""Seeded fuzzing of every input format through the CLI (the generator is tests/fuzz_inputs.py).

For every variant: no traceback; a variant that must be refused exits 2 with one line naming the
file and leaves the database as it was (row counts and `runs --json`); a variant that is accepted
gives metrics. Valid-but-unusual variants must be accepted.
"""

from __future__ import annotations

import json

from fuzz_inputs import ACCEPT, REJECT, clean, run_cli, try_variant, variants

from cimem.cli.data import run_document
from cimem.store import Store

from fixtures import small_profile, write_jsonl


def snapshot(db) -> tuple[dict, list]:
    """Row counts and what `runs --json` prints, from one read-only connection."""
    with Store.open(db, read_only=True) as store:
        runs = [run_document(r, store.judges(r.run_id)) for r in store.list_runs()]
        return store.table_counts(), json.loads(json.dumps(runs))


def cli_runs(db) -> list:
    code, out, err = run_cli(["runs", "--json", "--db", str(db)])
    assert code == 0, err
    return json.loads(out)


def test_every_malformed_input_gets_a_clear_error_and_nothing_is_accepted_wrong(tmp_path):
    db = tmp_path / "fuzz.duckdb"
    code, _, err = run_cli(
        [
            "ingest",
            str(write_jsonl(tmp_path / "base.jsonl", [small_profile("Base")])),
            "--db",
            str(db),
        ]
    )
    assert code == 0, err
    baseline = snapshot(db)
    assert baseline[1] == cli_runs(db)
    found = variants(seed=14, out=tmp_path / "variants")
    formats = {v.fmt for v in found}
    assert formats == {
        "official",
        "profiles",
        "persistbench",
        "hf-csv",
        "hf-parquet",
        "hf-jsonl",
        "inspect",
        "special",
    }
    assert len(found) >= 300
    problems = []
    for v in found:
        o = try_variant(v, db)
        what = f"{v.fmt} {v.name!r} ({v.path.name})"
        if o.code is None:
            problems.append(f"{what}: traceback {o.stderr}")
        elif o.code == 0:
            if v.verdict == REJECT:
                problems.append(f"{what}: accepted, must be refused")
            elif not o.metrics_ok:
                problems.append(f"{what}: accepted, but metrics fail")
        else:
            if v.verdict == ACCEPT:
                problems.append(f"{what}: refused, must be accepted: {o.stderr.strip()}")
            elif not clean(o):
                problems.append(
                    f"{what}: exit {o.code}, not one line naming the file: {o.stderr!r}"
                )
            if snapshot(db) != baseline:
                problems.append(f"{what}: the database changed")
    assert snapshot(db) == baseline
    assert cli_runs(db) == baseline[1]
    assert problems == []
