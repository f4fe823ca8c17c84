"""Copying whole runs between databases (a file into a lake, a lake into a file, file to file):
the run with every judge, verdict, judgment, people's verdicts with their history, audit samples
and run progress; the call cache and people's labels it lacks come along too.

Ids are the target's: the run, its judges and its messages get new ones (reserved on a lake, so
other writers may write meanwhile), and every table that names them is rewritten through a map
of old to new ids. A run's messages keep their order. The source is only read.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from cimem.store.connection import Database

# the run's rows of each table, in a stated order (the copy's ids follow it)
_READ_SQL = {
    "runs": "SELECT * FROM runs WHERE run_id = ?",
    "profiles": "SELECT * FROM profiles WHERE run_id = ? ORDER BY profile_id",
    "attributes": "SELECT * FROM attributes WHERE run_id = ? ORDER BY attr_id",
    "contexts": "SELECT * FROM contexts WHERE run_id = ? ORDER BY profile_id, ctx_idx",
    "persona_labels": "SELECT * FROM persona_labels WHERE run_id = ?"
    " ORDER BY profile_id, ctx_idx, attr_id, persona",
    "hard_labels": "SELECT * FROM hard_labels WHERE run_id = ?"
    " ORDER BY profile_id, ctx_idx, attr_id",
    "messages": "SELECT * FROM messages WHERE run_id = ? ORDER BY message_id",
    "judges": "SELECT * FROM judges WHERE run_id = ? ORDER BY judge_id",
    "judgments": "SELECT j.* FROM judgments j JOIN judges USING (judge_id) WHERE run_id = ?"
    " ORDER BY j.judge_id, j.message_id",
    "verdicts": "SELECT v.* FROM verdicts v JOIN judges USING (judge_id) WHERE run_id = ?"
    " ORDER BY v.judge_id, v.message_id, v.attr_id",
    "human_verdicts": "SELECT h.* FROM human_verdicts h JOIN judges USING (judge_id)"
    " WHERE run_id = ? ORDER BY h.seq",
    "audit_samples": "SELECT a.* FROM audit_samples a JOIN judges j"
    " ON j.judge_id = a.human_judge_id WHERE j.run_id = ? ORDER BY a.created_at, a.seed",
    "run_progress": "SELECT * FROM run_progress WHERE run_id = ?",
}
# how each copied table's ids are rewritten: column -> map (registered as _run, _judge, _message)
_MAPPED = {
    "runs": {"run_id": "_run"},
    "profiles": {"run_id": "_run"},
    "attributes": {"run_id": "_run"},
    "contexts": {"run_id": "_run"},
    "persona_labels": {"run_id": "_run"},
    "hard_labels": {"run_id": "_run"},
    "messages": {"run_id": "_run", "message_id": "_message"},
    "judges": {"run_id": "_run", "judge_id": "_judge"},
    "judgments": {"judge_id": "_judge", "message_id": "_message"},
    "verdicts": {"judge_id": "_judge", "message_id": "_message"},
    "human_verdicts": {"judge_id": "_judge", "message_id": "_message"},
    "audit_samples": {"human_judge_id": "_judge", "judge_id": "_judge"},
    "run_progress": {"run_id": "_run"},
}
_CACHE_SQL = "SELECT * FROM llm_cache ORDER BY key, created_at"
_CACHE_INSERT_SQL = (
    "INSERT INTO llm_cache BY NAME SELECT * FROM _source c"
    " WHERE NOT EXISTS (SELECT 1 FROM llm_cache l WHERE l.key = c.key)"
)
_PEOPLE_LABELS_SQL = "SELECT * FROM people_labels ORDER BY seq"
_PEOPLE_LABELS_INSERT_SQL = (  # labels the target lacks (same person, pair, label and time)
    "INSERT INTO people_labels BY NAME SELECT * REPLACE (? + row_number() OVER (ORDER BY seq)"
    " AS seq) FROM _source s WHERE NOT EXISTS (SELECT 1 FROM people_labels p"
    " WHERE p.profile = s.profile AND p.recipient = s.recipient AND p.task = s.task"
    " AND p.attr_key = s.attr_key AND p.label = s.label AND p.reviewer IS NOT DISTINCT FROM"
    " s.reviewer AND p.created_at = s.created_at)"
)
_COUNT_SQL = "SELECT count(*) FROM _source"


class RunCopies(Database):
    """Reading a run's rows out, and adding a run read from another database."""

    def run_rows(self, run_id: int) -> dict[str, pa.Table]:
        """Every row of the run, by table (Arrow, in a stated order)."""
        return {
            t: self.con.execute(sql, [run_id]).fetch_arrow_table() for t, sql in _READ_SQL.items()
        }

    def shared_rows(self) -> dict[str, pa.Table]:
        """The rows no single run owns: the call cache and people's labels."""
        return {
            "llm_cache": self.con.execute(_CACHE_SQL).fetch_arrow_table(),
            "people_labels": self.con.execute(_PEOPLE_LABELS_SQL).fetch_arrow_table(),
        }

    def add_copied_run(self, rows: dict[str, pa.Table], shared: dict[str, pa.Table]) -> int:
        """Add a run read by :meth:`run_rows` (of any database) under new ids, with what
        :meth:`shared_rows` read that this database lacks; one transaction. Returns its id."""
        return self.write(lambda: self._add_copied(rows, shared), "copying a run")

    def _add_copied(self, rows: dict[str, pa.Table], shared: dict[str, pa.Table]) -> int:
        run_id = self._next_id("run")
        judges = rows["judges"].column("judge_id").to_pylist()
        messages = rows["messages"].column("message_id").to_pylist()
        maps = {
            "_run": ([rows["runs"].column("run_id")[0].as_py()], [run_id]),
            "_judge": (judges, [self._next_id("judge") for _ in judges]),
            "_message": (messages, self._message_range(len(messages))),
        }
        for name, (old, new) in maps.items():
            self.con.register(name, pa.table({"old": pa.array(old, pa.int64()), "new": new}))
        try:
            for table, data in rows.items():
                if table == "human_verdicts" and data.num_rows:
                    data = self._renumbered(data, "human_seq")
                self._insert_mapped(table, data)
            self._insert_shared(shared)
        finally:
            for name in maps:
                self.con.unregister(name)
        return run_id

    def _renumbered(self, data: pa.Table, counter: str) -> pa.Table:
        """A history's rows numbered after this database's own (their order kept)."""
        base = self._seq_base(counter, data.num_rows)
        seq = pa.array(range(base + 1, base + 1 + data.num_rows), pa.int64())
        return data.set_column(data.column_names.index("seq"), "seq", seq)

    def _message_range(self, count: int) -> list[int]:
        if not count:
            return []
        first = self.new_message_ids(count)
        return list(range(first, first + count))

    def _insert_mapped(self, table: str, data: pa.Table) -> None:
        """Insert ``data`` into ``table`` with its id columns looked up in the maps."""
        mapped = _MAPPED[table]
        columns = [
            f"(SELECT new FROM {mapped[c]} WHERE old = s.{c}) AS {c}" if c in mapped else f"s.{c}"
            for c in data.column_names
        ]
        sql = (
            f"INSERT INTO {table} ({', '.join(data.column_names)})"
            f" SELECT {', '.join(columns)} FROM _source s"
        )
        self._insert_registered(data, lambda: self.con.execute(sql))

    def _insert_shared(self, shared: dict[str, pa.Table]) -> None:
        """The call cache entries and people's labels the target lacks."""
        self._insert_registered(shared["llm_cache"], lambda: self.con.execute(_CACHE_INSERT_SQL))
        self._insert_registered(shared["people_labels"], self._insert_people_labels)

    def _insert_people_labels(self) -> None:
        """People's labels in ``_source`` after the target's own, in their recorded order."""
        base = self._seq_base("label_seq", int(self._scalar(_COUNT_SQL)))
        self.con.execute(_PEOPLE_LABELS_INSERT_SQL, [base])

    def _insert_registered(self, data: pa.Table, insert: Callable[[], object]) -> None:
        """``insert`` with ``data`` registered as ``_source`` (nothing to do when it is empty)."""
        if not data.num_rows:
            return
        self.con.register("_source", data)
        try:
            insert()
        finally:
            self.con.unregister("_source")
