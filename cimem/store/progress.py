"""Run progress: how far `cimem run` has come with a run, written with each stored part of it, so
the app (another process) can show a run that is being made and how long it has left."""

from __future__ import annotations

from cimem.store.connection import Database, now
from cimem.store.rows import RunProgress

_COLUMNS = ", ".join(RunProgress._fields)


class RunProgressTable(Database):
    """The ``run_progress`` table."""

    def begin_progress(self, run_id: int, *, pid: int, host: str, total: int, done: int) -> None:
        """Record that process ``pid`` on ``host`` makes the run from now on (``done`` of its
        ``total`` messages are stored already); replaces an earlier process's row."""
        at = now()

        def begin() -> None:
            self.con.execute("DELETE FROM run_progress WHERE run_id = ?", [run_id])
            self.con.execute(
                f"INSERT INTO run_progress ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, 0,"
                " 0.0)",
                [run_id, pid, host, at, at, total, done, done],
            )

        self.write(begin, f"run {run_id}: recording who makes it")

    def record_progress(self, run_id: int, *, done: int, failed: int, cost: float) -> None:
        """The run's stored messages, failed calls and cost so far (inside the transaction that
        stored the messages, so the app never sees one without the other)."""
        self.con.execute(
            "UPDATE run_progress SET done = ?, failed = ?, cost = ?, updated_at = ?"
            " WHERE run_id = ?",
            [done, failed, cost, now(), run_id],
        )

    def finish_progress(self, run_id: int) -> None:
        """The run has every message it makes (as far as this process could: failures stay)."""
        at = now()
        self.write(
            lambda: self.con.execute(
                "UPDATE run_progress SET finished_at = ?, updated_at = ? WHERE run_id = ?",
                [at, at, run_id],
            ),
            f"run {run_id}: recording that it is done",
        )

    def run_progress(self, run_id: int | None = None) -> list[RunProgress]:
        """The progress rows of every run (or of one), by run."""
        where, params = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
        return self._rows(
            RunProgress, f"SELECT {_COLUMNS} FROM run_progress {where} ORDER BY run_id", params
        )
