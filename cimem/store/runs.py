"""Runs: what was imported or generated, under which name, from which file."""

from __future__ import annotations

from typing import Any

import orjson

from cimem.store.connection import Database, now
from cimem.store.rows import LeaderboardFacts, RunRef, RunSummary

_DELETE_RUN_SQL = [
    "DELETE FROM audit_samples"
    " WHERE human_judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    "DELETE FROM human_verdicts WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    "DELETE FROM verdicts WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    "DELETE FROM judgments WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    *(
        f"DELETE FROM {t} WHERE run_id = ?"
        for t in (
            "run_progress",
            "judges",
            "messages",
            "hard_labels",
            "persona_labels",
            "contexts",
            "attributes",
            "profiles",
            "runs",
        )
    ),
]

# grouped scans, one pass over each table (verdicts counted per judge, then per run): a count per
# run was a scan of every verdict per run, and the list is read again after every write
_LIST_RUNS_SQL = """
    WITH p AS (SELECT run_id, count(*) AS n FROM profiles GROUP BY run_id),
         c AS (SELECT run_id, count(*) AS n FROM contexts GROUP BY run_id),
         m AS (SELECT run_id, count(*) AS n FROM messages GROUP BY run_id),
         per_judge AS (SELECT judge_id, count(*) AS n FROM verdicts GROUP BY judge_id),
         j AS (SELECT j.run_id, count(*) AS n, coalesce(sum(pj.n), 0) AS verdicts
               FROM judges j LEFT JOIN per_judge pj USING (judge_id) GROUP BY j.run_id)
    SELECT r.run_id, r.name, r.kind, r.source_format, r.model, r.source, r.level,
           r.n_trials, r.simulated, r.created_at,
           coalesce(p.n, 0) AS profiles, coalesce(c.n, 0) AS contexts,
           coalesce(m.n, 0) AS messages, coalesce(j.verdicts, 0)::BIGINT AS verdicts,
           coalesce(j.n, 0) AS judges, r.memory_format
    FROM runs r LEFT JOIN p USING (run_id) LEFT JOIN c USING (run_id)
         LEFT JOIN m USING (run_id) LEFT JOIN j USING (run_id)
    ORDER BY r.run_id"""
_LEADERBOARD_SQL = """
    WITH j AS (SELECT run_id, list(name || coalesce(' (' || model || ')', '') ORDER BY judge_id)
                          AS judges FROM judges GROUP BY run_id),
         p AS (SELECT run_id, list(name ORDER BY name) AS names FROM profiles GROUP BY run_id),
         m AS (SELECT run_id, count(*) AS messages FROM messages GROUP BY run_id)
    SELECT r.run_id, r.name, r.source_format, r.source, r.model, r.prompt_set, r.level,
           r.memory_format, r.n_trials, r.simulated, r.created_at, r.config,
           coalesce(j.judges, []) AS judges, coalesce(p.names, []) AS profile_names,
           coalesce(m.messages, 0) AS messages
    FROM runs r LEFT JOIN j USING (run_id) LEFT JOIN p USING (run_id) LEFT JOIN m USING (run_id)
    ORDER BY r.run_id"""


class Runs(Database):
    """The ``runs`` table: one row per imported file or generated run."""

    def create_run(
        self,
        *,
        name: str,
        kind: str,
        source_format: str,
        source: str | None,
        content_hash: str | None,
        model: str | None = None,
        prompt_set: str | None = None,
        level: int | None = None,
        memory_format: str | None = None,
        n_trials: int | None = None,
        simulated: bool = False,
        config: str | None = None,
    ) -> int:
        columns: dict[str, object] = {
            "run_id": (new_id := self._next_id("run")),
            "name": name,
            "kind": kind,
            "source_format": source_format,
            "source": source,
            "content_hash": content_hash,
            "model": model,
            "prompt_set": prompt_set,
            "level": level,
            "memory_format": memory_format,
            "n_trials": n_trials,
            "simulated": simulated,
            "created_at": now(),
            "config": config,
        }
        sql = f"INSERT INTO runs ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        self.con.execute(sql, list(columns.values()))
        return new_id

    def finish_run(
        self, run_id: int, *, content_hash: str | None, n_trials: int | None, kind: str
    ) -> None:
        """Record what only the end of an import knows: the file's hash, trials, what it held."""
        self.con.execute(
            "UPDATE runs SET content_hash = ?, n_trials = ?, kind = ? WHERE run_id = ?",
            [content_hash, n_trials, kind, run_id],
        )

    def rename_run(self, run_id: int, name: str) -> None:
        with self.transaction():
            self.con.execute("UPDATE runs SET name = ? WHERE run_id = ?", [name, run_id])

    def set_provenance(
        self,
        run_id: int,
        *,
        model: str | None,
        level: int | None,
        memory_format: str | None,
        judge: tuple[int, str | None, str | None] | None = None,
    ) -> None:
        """Record what made a run (its model, prompt level and memory format) and, with
        ``judge`` = (judge_id, model, prompt hash), what made one of its judges, in one
        transaction (a source that did not say them, told afterwards)."""
        with self.transaction():
            self.con.execute(
                "UPDATE runs SET model = ?, level = ?, memory_format = ? WHERE run_id = ?",
                [model, level, memory_format, run_id],
            )
            if judge is not None:
                judge_id, judge_model, prompt_hash = judge
                self.con.execute(
                    "UPDATE judges SET model = ?, prompt_hash = ? WHERE judge_id = ? AND run_id = ?",
                    [judge_model, prompt_hash, judge_id, run_id],
                )

    def delete_run(self, run_id: int) -> None:
        """Remove a run and everything that belongs to it, in one transaction."""
        with self.transaction():
            for sql in _DELETE_RUN_SQL:
                self.con.execute(sql, [run_id])

    def set_run_config(self, run_id: int, config: dict[str, Any]) -> None:
        self.con.execute(
            "UPDATE runs SET config = ? WHERE run_id = ?", [orjson.dumps(config).decode(), run_id]
        )

    def find_run_by_hash(self, content_hash: str) -> RunRef | None:
        """The first run imported from a file with this content hash, if any."""
        rows = self._rows(
            RunRef,
            "SELECT run_id, name FROM runs WHERE content_hash = ? ORDER BY run_id LIMIT 1",
            [content_hash],
        )
        return rows[0] if rows else None

    def run_ids(self) -> list[int]:
        rows = self.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()
        return [int(run_id) for (run_id,) in rows]

    def resolve_run(self, ref: str | int) -> int:
        """A run id from its number or its name; raises LookupError naming the choices."""
        text = str(ref).strip()
        if text.isdigit():
            found = self._scalar("SELECT run_id FROM runs WHERE run_id = ?", [int(text)])
            if found is not None:
                return int(found)
        rows = self.con.execute(
            "SELECT run_id FROM runs WHERE name = ? ORDER BY run_id", [text]
        ).fetchall()
        if len(rows) == 1:
            return int(rows[0][0])
        known = ", ".join(f"{s.run_id} ({s.name})" for s in self.list_runs()) or "none"
        if len(rows) > 1:
            raise LookupError(f"run name {text!r} is ambiguous; use its id. Runs: {known}")
        raise LookupError(f"no run {text!r} in {self.path}. Runs: {known}")

    def run_config(self, run_id: int) -> dict[str, Any]:
        """Every column of the run's row, by name."""
        cur = self.con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id])
        rows = cur.fetchall()
        if not rows:
            raise LookupError(f"no run {run_id} in {self.path}")
        return dict(zip([d[0] for d in cur.description], rows[0]))

    def list_runs(self) -> list[RunSummary]:
        return self._rows(RunSummary, _LIST_RUNS_SQL)

    def leaderboard_facts(self) -> list[LeaderboardFacts]:
        """Every run's record of how it was made, its judges, profiles and messages."""
        return self._rows(LeaderboardFacts, _LEADERBOARD_SQL)
