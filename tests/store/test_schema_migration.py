"""Schema migrations: version 3 -> 4 (a database made before messages kept their finish reason
and token counts opens read-only as it is, for writing migrated, keeps its messages with NULL:
not known, and takes new messages and calls with them) 4 -> 5 (people's adjudications) and 5 -> 6 (people's labels)."""

import duckdb

from cimem.ingest import ingest_file
from cimem.store import MessageStatus, NewMessage, Store
from cimem.store.call_cache import CallCache
from cimem.store.schema import SCHEMA_VERSION

from fixtures import small_profile, write_jsonl

NEW_COLUMNS = {
    ("messages", "finish_reason"),
    ("messages", "prompt_tokens"),
    ("messages", "completion_tokens"),
    ("llm_cache", "finish_reason"),
}


def version_3_database(tmp_path):
    """A database with a run, as schema version 3 left it (without the new columns)."""
    db = tmp_path / "v3.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()]))
    con = duckdb.connect(str(db))
    for table, column in sorted(NEW_COLUMNS):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("UPDATE schema_info SET version = 3")
    con.close()
    return db


def columns(store: Store) -> set[tuple[str, str]]:
    rows = store.con.execute(
        "SELECT table_name, column_name FROM duckdb_columns()"
        " WHERE table_name IN ('messages', 'llm_cache')"
    ).fetchall()
    return {(t, c) for t, c in rows}


def test_a_version_3_database_is_read_as_it_is_then_migrated(tmp_path):
    db = version_3_database(tmp_path)
    with Store.open(db, read_only=True) as store:  # read-only: nothing is migrated ...
        assert store.schema_version() == 3 and not NEW_COLUMNS & columns(store)
        rows = store.health_messages(1)  # ... and the health scan reads it all the same
        assert len(rows) == 4 and {r.finish_reason for r in rows} == {None}
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION == 7
        assert NEW_COLUMNS <= columns(store)
        kept = store.con.execute(
            "SELECT count(*), count(finish_reason), count(prompt_tokens) FROM messages"
        ).fetchall()
        assert kept == [(4, 0, 0)]  # the old messages: not known
        assert len(store.health_messages(1)) == 4


def test_a_migrated_database_takes_messages_and_calls_with_their_endings(tmp_path):
    db = version_3_database(tmp_path)
    with Store.open(db) as store:
        ids = store.add_messages(
            1,
            [
                NewMessage(
                    0,
                    0,
                    2,
                    None,
                    None,
                    None,
                    "p",
                    "Dear Ana, I was cut",
                    MessageStatus.OK,
                    None,
                    "length",
                    812,
                    1024,
                ),
                NewMessage(0, 1, 2, None, None, None, "p", None, MessageStatus.FAILED, "HTTP 500"),
            ],
        )
        stored = store.con.execute(
            "SELECT message_id, finish_reason, prompt_tokens, completion_tokens FROM messages"
            " WHERE message_id >= ? ORDER BY message_id",
            [ids[0]],
        ).fetchall()
        assert stored == [(ids[0], "length", 812, 1024), (ids[1], None, None, None)]
        by_id = {r.message_id: r for r in store.health_messages(1)}
        assert by_id[ids[0]].finish_reason == "length"
        with CallCache(store) as cache:
            cache.put("k" * 64, "m", "generate", "text", None, 812, 1024, "length")
        assert store.cache_get(["k" * 64])["k" * 64].finish_reason == "length"
    with Store.open(db) as store:  # opening again migrates nothing twice
        assert store.schema_version() == SCHEMA_VERSION


def test_a_version_4_database_reads_its_people_then_takes_adjudications(tmp_path):
    """Version 4 -> 5: people's verdicts of a file made before adjudications read as plain
    verdicts read-only, and the file takes adjudications once opened for writing."""
    from cimem.store import HumanVerdict

    db = tmp_path / "v4.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()])).run_id
        message = store.con.execute("SELECT min(message_id) FROM messages").fetchone()[0]
        attr = store.con.execute("SELECT min(attr_id) FROM attributes").fetchone()[0]
        human = store.get_or_create_human_judge(run)
        store.add_human_verdicts(human, [HumanVerdict(message, attr, True, "ana", None)])
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE human_verdicts DROP COLUMN adjudication")
    con.execute("UPDATE schema_info SET version = 4")
    con.close()
    with Store.open(db, read_only=True) as store:
        (row,) = store.human_verdicts(human)
        assert store.schema_version() == 4 and not row.adjudication and row.revealed
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        store.add_human_verdicts(human, [HumanVerdict(message, attr, False, "ben", None)])
        assert store.settled_human_verdicts(human) == {}  # they disagree
        store.add_human_verdicts(
            human, [HumanVerdict(message, attr, False, "cy", None, adjudication=True)]
        )
        assert store.settled_human_verdicts(human) == {(message, attr): False}


def test_a_version_5_database_has_no_people_labels_then_takes_them(tmp_path):
    """Version 5 -> 6: read-only, a file made before people's labels has none (and no error);
    opened for writing it takes them."""
    from cimem.store import PeopleLabel, PeopleLabelEntry

    db = tmp_path / "v5.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()])).run_id
        context = store.contexts_of(run)[0]
        key = store.attributes_of(run)[0].key
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE people_labels")
    con.execute("UPDATE schema_info SET version = 5")
    con.close()
    with Store.open(db, read_only=True) as store:
        assert store.schema_version() == 5
        assert store.people_labels() == [] and store.people_labels_of(run) == []
    entry = PeopleLabelEntry(
        "Ada Example", context.recipient, context.task, key, PeopleLabel.SHARE, "ana"
    )
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.add_people_labels([entry]) == 1
        assert [r.label for r in store.people_labels_of(run)] == [PeopleLabel.SHARE]


def test_a_version_6_database_has_no_audit_samples_then_takes_them(tmp_path):
    """Version 6 -> 7: read-only, a file made before audit samples were noted has none (and no
    error); opened for writing it notes them."""
    from cimem.store import AuditSample

    db = tmp_path / "v6.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()])).run_id
        human = store.get_or_create_human_judge(run)
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE audit_samples")
    con.execute("UPDATE schema_info SET version = 6")
    con.close()
    with Store.open(db, read_only=True) as store:
        assert store.schema_version() == 6 and store.audit_samples(human) == []
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION == 7
        sample = AuditSample(human, 1, 3, "official, rule unanimous", 200)
        store.record_audit_samples(human, [sample, sample._replace(cells=400)])
        store.record_audit_samples(human, [sample._replace(cells=100)])
        (kept,) = store.audit_samples(human)
        assert (kept.judge_id, kept.seed, kept.options, kept.cells) == (1, 3, sample.options, 400)
