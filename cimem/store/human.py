"""People's verdicts: an append-only history (``human_verdicts``) whose latest entry per
(message, attribute) is also the run's human judge's verdict in ``verdicts``, so metrics and
agreement read people like any other judge."""

from __future__ import annotations

from cimem.store.connection import now
from cimem.store.enums import JudgeKind
from cimem.store.judges import Judges
from cimem.store.rows import HumanVerdict, HumanVerdictRow

_HUMAN_VERDICTS_SQL = """
    SELECT * EXCLUDE (seq) FROM (
        SELECT h.seq, h.message_id, p.name AS profile, m.ctx_idx, c.recipient, c.task, m.trial,
               h.attr_id, a.key, h.revealed, h.reviewer, h.note, h.created_at,
               h.seq = max(h.seq) OVER (PARTITION BY h.message_id, h.attr_id) AS current
        FROM human_verdicts h
        JOIN messages m ON m.message_id = h.message_id
        JOIN profiles p ON p.run_id = m.run_id AND p.profile_id = m.profile_id
        JOIN contexts c ON c.run_id = m.run_id AND c.profile_id = m.profile_id
             AND c.ctx_idx = m.ctx_idx
        JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = h.attr_id
        WHERE h.judge_id = ?)
    WHERE current OR ? ORDER BY seq"""

# a judgment 'ok' for every message a person decided on, unless the judge has one already
_JUDGED_SQL = """
    INSERT INTO judgments SELECT DISTINCT ?, m, 'ok', NULL FROM unnest(?) t(m)
    WHERE NOT EXISTS (SELECT 1 FROM judgments j WHERE j.judge_id = ? AND j.message_id = t.m)"""


class HumanVerdicts(Judges):
    """The run's human judge and the history of people's verdicts."""

    def find_human_judge(self, run_id: int) -> int | None:
        """The run's human judge, if people have recorded verdicts on it."""
        found = self._scalar(
            "SELECT min(judge_id) FROM judges WHERE run_id = ? AND kind = 'human'", [run_id]
        )
        return None if found is None else int(found)

    def get_or_create_human_judge(self, run_id: int) -> int:
        """The run's human judge (made on first use): people's verdicts live there."""
        with self.transaction():
            found = self.find_human_judge(run_id)
            if found is not None:
                return found
            return self.create_judge(run_id=run_id, name="human verdicts", kind=JudgeKind.HUMAN)

    def set_human_verdict(
        self,
        judge_id: int,
        message_id: int,
        attr_id: int,
        revealed: bool,
        note: str | None,
        reviewer: str | None = None,
    ) -> None:
        """Record one person's decision on one (message, attribute): see
        :meth:`add_human_verdicts`."""
        verdict = HumanVerdict(
            message_id=message_id, attr_id=attr_id, revealed=revealed, reviewer=reviewer, note=note
        )
        self.add_human_verdicts(judge_id, [verdict])

    def add_human_verdicts(self, judge_id: int, rows: list[HumanVerdict]) -> int:
        """Append people's verdicts to the history, in one transaction; the latest of a pair
        supersedes the earlier ones (which stay in the history) and becomes the judge's verdict
        that metrics and agreement read. Returns the number recorded."""
        if not rows:
            return 0
        recorded_at = now()
        with self.transaction():
            seq = int(self._scalar("SELECT coalesce(max(seq), 0) FROM human_verdicts"))
            for i, r in enumerate(rows, start=1):
                self.con.execute(
                    "INSERT INTO human_verdicts (seq, judge_id, message_id, attr_id, revealed,"
                    " reviewer, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        seq + i,
                        judge_id,
                        r.message_id,
                        r.attr_id,
                        r.revealed,
                        r.reviewer,
                        r.note,
                        r.created_at or recorded_at,
                    ],
                )
                self.con.execute(
                    "DELETE FROM verdicts WHERE judge_id = ? AND message_id = ? AND attr_id = ?",
                    [judge_id, r.message_id, r.attr_id],
                )
                self.con.execute(
                    "INSERT INTO verdicts (judge_id, message_id, attr_id, revealed, evidence)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [judge_id, r.message_id, r.attr_id, r.revealed, r.note],
                )
            self.con.execute(_JUDGED_SQL, [judge_id, [r.message_id for r in rows], judge_id])
        return len(rows)

    def human_verdicts(self, judge_id: int, history: bool = False) -> list[HumanVerdictRow]:
        """A human judge's current verdicts (the latest per pair), or with ``history`` every
        verdict ever recorded, oldest first, each marked current or superseded."""
        return self._rows(HumanVerdictRow, _HUMAN_VERDICTS_SQL, [judge_id, history])
