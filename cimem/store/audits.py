"""The audit samples people decided (``audit_samples``): which judge's decisions, drawn with which
seed under which options. The corrected metrics recompute a sample's draws from these, so that
they count the draws people were given, and name a mismatch instead of following other draws."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from cimem.store.connection import Database, now


class AuditSample(NamedTuple):
    """An audit sample people decided cells of: the judge whose decisions it audits, the seed
    of its draws, and the metric options it was drawn under (``options``: their canonical text,
    which the analysis writes and reads); ``cells``: the largest size asked for."""

    human_judge_id: int
    judge_id: int
    seed: int
    options: str
    cells: int | None = None
    created_at: datetime | None = None


_UPSERT_SQL = """
    INSERT INTO audit_samples (human_judge_id, judge_id, seed, options, cells, created_at)
    SELECT ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (
        SELECT 1 FROM audit_samples WHERE human_judge_id = ? AND judge_id = ? AND seed = ?
        AND options = ?)"""
_GROW_SQL = """
    UPDATE audit_samples SET cells = greatest(cells, ?)
    WHERE human_judge_id = ? AND judge_id = ? AND seed = ? AND options = ?"""
_OF_JUDGE_SQL = """
    SELECT human_judge_id, judge_id, seed, options, cells, created_at FROM audit_samples
    WHERE human_judge_id = ? ORDER BY created_at, judge_id, seed, options"""


class AuditSamples(Database):
    """The ``audit_samples`` table: one row per (human judge, audited judge, seed, options)."""

    def record_audit_samples(self, human_judge_id: int, samples: list[AuditSample]) -> None:
        """Note the samples people decided cells of (a sample already noted keeps its first
        date, and the largest size asked for)."""
        recorded_at = now()
        with self.transaction():
            for s in samples:
                key = [human_judge_id, s.judge_id, s.seed, s.options]
                self.con.execute(_UPSERT_SQL, [*key, s.cells, recorded_at, *key])
                self.con.execute(_GROW_SQL, [s.cells, *key])

    def audit_samples(self, human_judge_id: int) -> list[AuditSample]:
        """The samples people decided cells of with this human judge, oldest first (none in a
        file made before they were noted, opened read-only)."""
        if not self._scalar(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'audit_samples'"
        ):
            return []
        return self._rows(AuditSample, _OF_JUDGE_SQL, [human_judge_id])
