"""Orders that do not move: every read of the store whose rows come in an order gives the same
rows in the same order in two processes, and twice in one, on a full-size database (10 profiles x
5 trials, about 360,000 verdicts) with DuckDB's threads above one, where DuckDB reads in parallel
and returns unordered rows in a different order each time. The audit's draws, the review order,
exports and page tables are built from these reads."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from full_size import fill_sheet, truth_table
from orders_probe import reads

from cimem.store import Store
from cimem.store.rows import PeopleLabelEntry

PROBE = Path(__file__).with_name("orders_probe.py")
# public methods of Store that return no rows in an order: writes, single values, look-ups
NOT_ORDERED_READS = {
    "add_copied_run",
    "add_human_verdicts",
    "add_messages",
    "add_people_labels",
    "append",
    "begin_progress",
    "bulk_appender",
    "cache_get",  # a dict keyed by the caller's keys
    "cache_put_many",
    "close",
    "compact",  # a lake's upkeep: counts
    "copy_labels",
    "create_judge",
    "create_run",
    "cursor",
    "delete_failed_judgments",
    "delete_failed_messages",
    "delete_persona_labels",
    "delete_run",
    "find_default_judge",
    "find_human_judge",
    "find_message",
    "find_run_by_hash",
    "finish_progress",
    "finish_run",
    "forget_judgments",
    "get_or_create_audit_judge",
    "get_or_create_human_judge",
    "has_composition",
    "judge_configs",  # a dict keyed by judge id
    "judge_info",
    "lake_snapshot",  # one number
    "max_trial",
    "message_detail",
    "new_message_ids",
    "next_message_id",
    "open",
    "record_audit_samples",
    "record_progress",
    "release_cache",  # no rows: gives back memory
    "released",
    "reserve_ids",
    "rename_judge",
    "rename_run",
    "resolve_run",
    "rolled_back",
    "run_config",
    "schema_version",
    "set_human_verdict",
    "set_provenance",
    "set_run_config",
    "table_counts",
    "transaction",
    "write",
}


def _cli(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cimem", *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def busy_db(full_run, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    """The full-size run with a second judge, people's verdicts on an audit sample and a few of
    people's labels: something in every table the reads cover."""
    folder = tmp_path_factory.mktemp("orders")
    db = full_run.copy_db(folder / "busy.duckdb")
    _cli("judge", "--db", str(db), "--run", "1", "--offline", cwd=folder)
    _cli(
        "audit-sample", "--db", str(db), "--run", "1", "--size", "120", "--out", "s.csv", cwd=folder
    )
    fill_sheet(folder / "s.csv", truth_table(full_run.truth), {"ana": folder / "ana.csv"})
    _cli("human", "import", "ana.csv", "--db", str(db), "--run", "1", cwd=folder)
    with Store.open(db) as store:
        ctx = store.contexts_of(1)[0]
        name = store.profiles_of(1)[0].name
        attrs = store.attributes_of(1, ctx.profile_id)
        store.add_people_labels(
            [
                PeopleLabelEntry(name, ctx.recipient, ctx.task, a.key, label, "ana", None)
                for a, label in zip(attrs[:6], ["share", "withhold", "unsure"] * 2)
            ]
        )
        judges = [j.judge_id for j in store.judges(1)]
        message = store.messages_to_judge(1, limit=1)[0].message_id
    ids = {
        "run": 1,
        "judge": judges[0],
        "other": judges[1],
        "human": judges[-1],
        "profile": ctx.profile_id,
        "message": message,
        "attr": attrs[0].attr_id,
    }
    return db, ids


def _probe(db: Path, ids: dict[str, int]) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(db), json.dumps(ids)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_read_gives_its_rows_in_one_order_in_two_processes(busy_db):
    db, ids = busy_db
    first, second = _probe(db, ids), _probe(db, ids)
    moved_within = sorted(name for name, (a, b) in first.items() if a != b)
    moved_across = sorted(name for name in first if first[name][0] != second[name][0])
    assert not moved_within, f"reads whose order moved between two calls: {moved_within}"
    assert not moved_across, f"reads whose order moved between two processes: {moved_across}"


def test_every_public_read_of_the_store_is_probed():
    """A new read must join the probe (or say here why its rows have no order)."""
    public = {n for n, _ in inspect.getmembers(Store, callable) if not n.startswith("_")}
    probed = set(reads(None, dict.fromkeys(_IDS, 0)))  # type: ignore[arg-type]
    assert public - probed - NOT_ORDERED_READS == set(), "unclassified reads of the store"
    assert probed <= public and NOT_ORDERED_READS <= public, "names that are not Store methods"


_IDS = ("run", "judge", "other", "human", "profile", "message", "attr")
