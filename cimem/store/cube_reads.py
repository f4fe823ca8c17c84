"""The whole-column reads the metrics compute from: the leak cube's pairs and trial masks, a run's
labels, a review queue's cells and two judges' agreement pairs (see :mod:`cimem.store.columns`)."""

from __future__ import annotations

from cimem.store.columns import (
    AgreementPairs,
    LabelColumns,
    LeakPairs,
    PersonaFractions,
    QueueCells,
    TrialMasks,
)
from cimem.store.connection import Database
from cimem.store.enums import LabelCode

# Every labelled pair of a run (two run_id parameters): the combined fractions (hard
# FROM_FRACTIONS: derive the label under a rule) or the source's hard label code.
_RUN_LABELS_SQL = f"""
    SELECT profile_id, ctx_idx, attr_id, necessary, private,
           {int(LabelCode.FROM_FRACTIONS)}::TINYINT AS hard
    FROM persona_labels WHERE run_id = ? AND persona = 'combined'
    UNION ALL
    SELECT profile_id, ctx_idx, attr_id, 0.0, 0.0,
           {LabelCode.sql_case("label", otherwise=LabelCode.AMBIGUOUS)}
    FROM hard_labels WHERE run_id = ?
"""

# The sample slot of each message of a run (two run_id parameters), the bit that stands for it in
# the cube's trial masks. A full-memory trial's slot is its trial number; a partial-memory trial
# (eval.py's composition styles: shared_json set) takes the high bits, 63 down, in the order
# (num_to_share, num_not_to_share, trial, message_id) within its context, as long as they stay
# above the context's full-memory trials (``kept``: the others are counted, not read). The file
# reader (cimem.analysis.cube_file) numbers them the same way.
PARTIAL_TOP_SLOT = 63
# UTINYINT slots: a shift by one stays UBIGINT (by an INTEGER, DuckDB widens the mask to a HUGEINT,
# which numpy reads as a float that keeps only 53 of the 64 bits)
_SLOTS_SQL = {
    True: f"""
    SELECT message_id, profile_id, ctx_idx, status, partial, trial, kept,
           (CASE WHEN kept THEN raw_slot ELSE 0 END)::UTINYINT AS slot
    FROM (
        SELECT *, NOT partial OR raw_slot > coalesce(top_full, -1) AS kept
        FROM (
            SELECT message_id, profile_id, ctx_idx, status, trial,
                   shared_json IS NOT NULL AS partial,
                   CASE WHEN shared_json IS NULL THEN trial
                        ELSE {PARTIAL_TOP_SLOT + 1} - row_number() OVER (
                            PARTITION BY profile_id, ctx_idx, shared_json IS NULL
                            ORDER BY num_to_share, num_not_to_share, trial, message_id)
                   END AS raw_slot,
                   max(trial) FILTER (WHERE shared_json IS NULL)
                       OVER (PARTITION BY profile_id, ctx_idx) AS top_full
            FROM messages WHERE run_id = ?))""",
    # a run without partial-memory trials (most): every slot is its trial, no window to compute
    False: """
    SELECT message_id, profile_id, ctx_idx, status, FALSE AS partial, trial, TRUE AS kept,
           trial::UTINYINT AS slot
    FROM messages WHERE run_id = ? AND shared_json IS NULL""",
}


def _leak_pairs_sql(slots: str) -> str:
    return f"""
WITH s AS ({slots}),
rev AS (
    SELECT s.profile_id, s.ctx_idx, v.attr_id, bit_or(1::UBIGINT << s.slot) AS mask
    FROM verdicts v JOIN s USING (message_id)
    WHERE v.judge_id = ? AND v.revealed AND s.kept
    GROUP BY ALL),
lab AS ({_RUN_LABELS_SQL})
SELECT lab.profile_id, lab.ctx_idx, lab.attr_id, lab.necessary, lab.private, lab.hard,
       coalesce(rev.mask, 0::UBIGINT) AS mask
FROM lab LEFT JOIN rev USING (profile_id, ctx_idx, attr_id)
-- by profile, context and attribute, as one key (a third faster to sort than three on a million
-- pairs): profile and attribute ids below 2^24 and context indexes below 2^16 in a run
ORDER BY (lab.profile_id::UBIGINT << 40) | (lab.ctx_idx::UBIGINT << 24) | lab.attr_id::UBIGINT
"""


def _trial_masks_sql(slots: str) -> str:
    return f"""
WITH s AS ({slots})
SELECT s.profile_id, s.ctx_idx,
    bit_or(CASE WHEN s.kept THEN 1::UBIGINT << s.slot ELSE 0::UBIGINT END) AS trials,
    bit_or(CASE WHEN s.kept AND s.status = 'ok' AND j.status = 'ok' THEN 1::UBIGINT << s.slot
           ELSE 0::UBIGINT END) AS valid,
    bit_or(CASE WHEN s.kept AND s.status = 'ok' AND j.status = 'parse_failure'
           THEN 1::UBIGINT << s.slot ELSE 0::UBIGINT END) AS unparsed,
    bit_or(CASE WHEN s.kept AND s.status = 'ok' AND j.status = 'error'
           THEN 1::UBIGINT << s.slot ELSE 0::UBIGINT END) AS judge_error,
    bit_or(CASE WHEN s.kept AND s.status <> 'ok' THEN 1::UBIGINT << s.slot
           ELSE 0::UBIGINT END) AS failed,
    bit_or(CASE WHEN s.kept AND s.status = 'ok' AND j.status IS NULL THEN 1::UBIGINT << s.slot
           ELSE 0::UBIGINT END) AS unjudged,
    bit_or(CASE WHEN s.kept AND s.partial THEN 1::UBIGINT << s.slot ELSE 0::UBIGINT END)
        AS partial,
    count(*) FILTER (WHERE NOT s.kept) AS beyond
FROM s LEFT JOIN judgments j ON j.message_id = s.message_id AND j.judge_id = ?
GROUP BY ALL
ORDER BY s.profile_id, s.ctx_idx
"""


_LEAK_PAIRS_SQL = {partial: _leak_pairs_sql(sql) for partial, sql in _SLOTS_SQL.items()}
_TRIAL_MASKS_SQL = {partial: _trial_masks_sql(sql) for partial, sql in _SLOTS_SQL.items()}

# The pairs both judges decided first, then where each message sits: a lake has no table
# statistics, and its plan joined every message of the run to every attribute of the run (on
# run_id alone) before the verdicts, 3.6 M rows for a 10-profile run and ~130 M for a 60-profile
# one (a report of a run with three judges took 5 minutes and 21 GB on a lake).
_AGREEMENT_SQL = f"""
WITH pairs AS MATERIALIZED (
    SELECT a.message_id, a.attr_id, a.revealed AS a_revealed, b.revealed AS b_revealed,
           a.evidence AS a_evidence, b.evidence AS b_evidence
    FROM verdicts a
    JOIN verdicts b ON b.judge_id = ? AND b.message_id = a.message_id AND b.attr_id = a.attr_id
    WHERE a.judge_id = ?
      AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.message_id = a.message_id
                      AND j.judge_id IN (?, ?) AND j.status <> 'ok')
), placed AS MATERIALIZED (
    SELECT p.*, m.run_id, m.profile_id, m.ctx_idx, m.trial
    FROM pairs p JOIN messages m ON m.message_id = p.message_id
)
SELECT p.message_id, p.attr_id, p.a_revealed, p.b_revealed, p.a_evidence, p.b_evidence,
       p.profile_id, p.ctx_idx, p.trial, att.key, att.domain, pl.necessary, pl.private,
       {LabelCode.sql_case("hl.label", otherwise=LabelCode.FROM_FRACTIONS)} AS hard
FROM placed p
JOIN attributes att ON att.run_id = p.run_id AND att.attr_id = p.attr_id
LEFT JOIN persona_labels pl ON pl.run_id = p.run_id AND pl.profile_id = p.profile_id
     AND pl.ctx_idx = p.ctx_idx AND pl.attr_id = p.attr_id AND pl.persona = 'combined'
LEFT JOIN hard_labels hl ON hl.run_id = p.run_id AND hl.profile_id = p.profile_id
     AND hl.ctx_idx = p.ctx_idx AND hl.attr_id = p.attr_id
ORDER BY p.message_id, p.attr_id"""


def _queue_cells_sql(evidence: bool) -> str:
    return (
        "SELECT v.message_id, m.profile_id, m.ctx_idx, v.attr_id, v.revealed,"
        " coalesce(o.revealed::TINYINT, -1::TINYINT) AS other"
        + (", v.evidence" if evidence else "")
        + " FROM verdicts v"
        " JOIN messages m ON m.message_id = v.message_id AND m.run_id = ? AND m.status = 'ok'"
        " LEFT JOIN verdicts o ON o.judge_id = ? AND o.message_id = v.message_id"
        "  AND o.attr_id = v.attr_id"
        " WHERE v.judge_id = ? AND (v.revealed OR o.revealed <> v.revealed)"
        " ORDER BY v.message_id, v.attr_id"
    )


class CubeReads(Database):
    """Reads that return numpy columns (one run holds millions of the facts they cover)."""

    def leak_pairs(self, run_id: int, judge_id: int | None) -> LeakPairs:
        """Every labelled (profile, context, attribute) pair of a run with its fractions (or hard
        label) and the bit mask of full-memory trials whose message the judge found revealing."""
        params = [run_id, judge_id, run_id, run_id]
        sql = _LEAK_PAIRS_SQL[self._partial(run_id)]
        return LeakPairs.from_numpy(self.con.execute(sql, params).fetchnumpy())

    def trial_masks(self, run_id: int, judge_id: int | None) -> TrialMasks:
        """Per (profile, context): bit masks of its trials' sample slots by what happened to
        them, the slots of its partial-memory trials, and how many partial-memory trials did not
        fit (see ``_SLOTS_SQL``)."""
        params = [run_id, judge_id]
        sql = _TRIAL_MASKS_SQL[self._partial(run_id)]
        return TrialMasks.from_numpy(self.con.execute(sql, params).fetchnumpy())

    def message_slots_index(self, run_id: int) -> dict[tuple[int, int, int], tuple[int, int]]:
        """{(profile_id, ctx_idx, sample slot): (message_id, trial)} of the messages the cube
        reads."""
        slots = _SLOTS_SQL[self._partial(run_id)]
        sql = f"SELECT profile_id, ctx_idx, slot, message_id, trial FROM ({slots}) WHERE kept"
        rows = self.con.execute(sql + " ORDER BY message_id", [run_id]).fetchall()
        return {(p, c, s): (int(m), int(t)) for p, c, s, m, t in rows}

    def _partial(self, run_id: int) -> bool:
        """Whether the run has partial-memory trials (their slots need numbering)."""
        sql = "SELECT count(*) > 0 FROM messages WHERE run_id = ? AND shared_json IS NOT NULL"
        return bool(self._scalar(sql, [run_id]))

    def label_columns(self, run_id: int) -> LabelColumns:
        """Every labelled pair of a run as columns (see :class:`LabelColumns`)."""
        params = [run_id, run_id]
        sql = f"SELECT * FROM ({_RUN_LABELS_SQL}) ORDER BY profile_id, ctx_idx, attr_id"
        return LabelColumns.from_numpy(self.con.execute(sql, params).fetchnumpy())

    def persona_fractions(self, run_id: int) -> PersonaFractions:
        """Each single persona's fractions of the run's pairs (label sensitivity reads them)."""
        sql = (
            "SELECT profile_id, ctx_idx, attr_id, persona, necessary, private FROM persona_labels"
            " WHERE run_id = ? AND persona <> 'combined' ORDER BY profile_id, ctx_idx, attr_id, persona"
        )
        return PersonaFractions.from_numpy(self.con.execute(sql, [run_id]).fetchnumpy())

    def queue_cells(
        self, run_id: int, judge_id: int, vs: int | None, evidence: bool = False
    ) -> QueueCells:
        """What a review queue looks at: the (message, attribute) verdicts of ``judge_id`` on the
        run's generated messages that say revealed, or that the judge ``vs`` decided otherwise;
        ``other`` is ``vs``'s verdict (1, 0, or -1 where it gave none); evidence when asked."""
        sql = _queue_cells_sql(evidence)
        return QueueCells.from_numpy(self.con.execute(sql, [run_id, vs, judge_id]).fetchnumpy())

    def agreement_pairs(self, judge_a: int, judge_b: int) -> AgreementPairs:
        """Verdicts of two judges on the (message, attribute) pairs both decided, with the pair's
        label fractions (or hard label) and domain; messages a judge failed to parse are left out."""
        params = [judge_b, judge_a, judge_a, judge_b]
        return AgreementPairs.from_numpy(self.con.execute(_AGREEMENT_SQL, params).fetchnumpy())
