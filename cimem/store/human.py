"""People's verdicts: an append-only history (``human_verdicts``). Each reviewer's latest verdict
on a (message, attribute) is current; the pair's settled verdict (:func:`settled`: the latest
adjudication, else what every current reviewer agrees on) is the run's human judge's verdict in
``verdicts``, so metrics and agreement read people like any other judge. A pair reviewers
disagree on, not adjudicated yet, has none there."""

from __future__ import annotations

from cimem.store.connection import now
from cimem.store.enums import JudgeKind
from cimem.store.judges import Judges
from cimem.store.rows import HumanVerdict, HumanVerdictRow

_HUMAN_VERDICTS_SQL = """
    SELECT * EXCLUDE (seq) FROM (
        SELECT h.seq, h.message_id, p.name AS profile, m.ctx_idx, c.recipient, c.task, m.trial,
               h.attr_id, a.key, h.revealed, h.reviewer, h.note, h.created_at,
               h.seq = max(h.seq) OVER (
                   PARTITION BY h.message_id, h.attr_id, coalesce(h.reviewer, ''), {adj}
               ) AS current,
               {adj} AS adjudication
        FROM human_verdicts h
        JOIN messages m ON m.message_id = h.message_id
        JOIN profiles p ON p.run_id = m.run_id AND p.profile_id = m.profile_id
        JOIN contexts c ON c.run_id = m.run_id AND c.profile_id = m.profile_id
             AND c.ctx_idx = m.ctx_idx
        JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = h.attr_id
        WHERE h.judge_id = ?)
    WHERE current OR ? ORDER BY seq"""
# a file made before adjudications, opened read-only, has no such column: none is one
_ADJUDICATION = {True: "coalesce(h.adjudication, FALSE)", False: "FALSE"}
_PAIRS_SQL = """
    SELECT h.message_id, h.attr_id, h.revealed, coalesce(h.reviewer, ''), {adj}, h.note
    FROM human_verdicts h
    JOIN (SELECT unnest(?::BIGINT[]) AS message_id, unnest(?::INTEGER[]) AS attr_id) t
      ON t.message_id = h.message_id AND t.attr_id = h.attr_id
    WHERE h.judge_id = ? ORDER BY h.seq"""
_SETTLED_SQL = (
    "SELECT message_id, attr_id, revealed FROM verdicts WHERE judge_id = ?"
    " ORDER BY message_id, attr_id"
)


def settled(verdicts: list[tuple[bool, str, bool]]) -> bool | None:
    """A pair's settled verdict from its verdicts oldest first, each (revealed, reviewer,
    adjudication): the latest adjudication; else what every reviewer's latest verdict agrees
    on; else None (reviewers disagree).

    >>> settled([(True, "ana", False), (False, "ana", False)])
    False
    >>> settled([(True, "ana", False), (False, "ben", False)]) is None
    True
    >>> settled([(True, "ana", False), (False, "ben", False), (True, "cy", True)])
    True
    """
    latest: dict[str, bool] = {}
    adjudicated = None
    for revealed, reviewer, adjudication in verdicts:
        if adjudication:
            adjudicated = revealed
        else:
            latest[reviewer] = revealed
    if adjudicated is not None:
        return adjudicated
    values = set(latest.values())
    return values.pop() if len(values) == 1 else None


# a judgment 'ok' for every message a person decided on, unless the judge has one already
_JUDGED_SQL = """
    INSERT INTO judgments SELECT DISTINCT ?, m, 'ok', NULL FROM unnest(?::BIGINT[]) t(m)
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
        """Append people's verdicts to the history, in one transaction; each touched pair's
        settled verdict (:func:`settled`) becomes the judge's verdict that metrics and agreement
        read, or none while its reviewers disagree. Returns the number recorded."""
        if not rows:
            return 0
        recorded_at = now()

        def record() -> None:
            seq = self._seq_base("human_seq", len(rows))
            self.con.executemany(
                "INSERT INTO human_verdicts (seq, judge_id, message_id, attr_id, revealed,"
                " reviewer, note, created_at, adjudication) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [seq + i, judge_id, r.message_id, r.attr_id, r.revealed, r.reviewer, r.note]
                    + [r.created_at or recorded_at, r.adjudication]
                    for i, r in enumerate(rows, start=1)
                ],
            )
            self._settle(judge_id, {(r.message_id, r.attr_id) for r in rows})
            self.con.execute(_JUDGED_SQL, [judge_id, [r.message_id for r in rows], judge_id])

        self.write(record, f"{self.shown_path}: recording {len(rows)} people's verdicts")
        return len(rows)

    def _settle(self, judge_id: int, pairs: set[tuple[int, int]]) -> None:
        """Rewrite the judge's verdicts of ``pairs`` from their history."""
        mids, attrs = [m for m, _ in pairs], [a for _, a in pairs]
        found: dict[tuple[int, int], list[tuple[bool, str, bool]]] = {}
        notes: dict[tuple[int, int, bool], str | None] = {}  # the latest note of each value
        sql = _PAIRS_SQL.format(adj=_ADJUDICATION[True])
        for m, a, revealed, reviewer, adjudication, note in self.con.execute(
            sql, [mids, attrs, judge_id]
        ).fetchall():
            found.setdefault((m, a), []).append((revealed, reviewer, adjudication))
            notes[(m, a, revealed)] = note
        self.con.execute(
            "DELETE FROM verdicts WHERE judge_id = ? AND (message_id, attr_id) IN"
            " (SELECT unnest(?::BIGINT[]), unnest(?::INTEGER[]))",
            [judge_id, mids, attrs],
        )
        keep = [(p, settled(v)) for p, v in found.items()]
        rows = [
            [judge_id, m, a, value, notes.get((m, a, value))]
            for (m, a), value in keep
            if value is not None
        ]
        if rows:
            self.con.executemany(
                "INSERT INTO verdicts (judge_id, message_id, attr_id, revealed, evidence)"
                " VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def human_verdicts(self, judge_id: int, history: bool = False) -> list[HumanVerdictRow]:
        """A human judge's current verdicts (each reviewer's latest per pair, and the latest
        adjudication), or with ``history`` every verdict ever recorded, oldest first, each
        marked current or superseded."""
        sql = _HUMAN_VERDICTS_SQL.format(adj=_ADJUDICATION[self._has_adjudications()])
        return self._rows(HumanVerdictRow, sql, [judge_id, history])

    def settled_human_verdicts(self, judge_id: int) -> dict[tuple[int, int], bool]:
        """The settled verdict of every pair people decided and do not disagree on:
        (message_id, attr_id) -> revealed (what the metrics count as people's)."""
        return {
            (m, a): bool(r) for m, a, r in self.con.execute(_SETTLED_SQL, [judge_id]).fetchall()
        }

    def _has_adjudications(self) -> bool:
        """Whether the file can hold adjudications (a file made before them, opened read-only,
        is not migrated)."""
        return bool(
            self._scalar(
                "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'human_verdicts'"
                " AND column_name = 'adjudication'"
            )
        )
