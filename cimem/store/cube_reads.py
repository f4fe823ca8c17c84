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

_LEAK_PAIRS_SQL = f"""
WITH rev AS (
    SELECT m.profile_id, m.ctx_idx, v.attr_id, bit_or(1::UBIGINT << m.trial) AS mask
    FROM verdicts v JOIN messages m USING (message_id)
    WHERE v.judge_id = ? AND m.run_id = ? AND v.revealed AND m.shared_json IS NULL
    GROUP BY ALL),
lab AS ({_RUN_LABELS_SQL})
SELECT lab.profile_id, lab.ctx_idx, lab.attr_id, lab.necessary, lab.private, lab.hard,
       coalesce(rev.mask, 0::UBIGINT) AS mask
FROM lab LEFT JOIN rev USING (profile_id, ctx_idx, attr_id)
ORDER BY lab.profile_id, lab.ctx_idx, lab.attr_id
"""

_TRIAL_MASKS_SQL = """
SELECT m.profile_id, m.ctx_idx,
    bit_or(1::UBIGINT << m.trial) AS trials,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'ok' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS valid,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'parse_failure' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS unparsed,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'error' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS judge_error,
    bit_or(CASE WHEN m.status <> 'ok' THEN 1::UBIGINT << m.trial ELSE 0::UBIGINT END) AS failed,
    bit_or(CASE WHEN m.status = 'ok' AND j.status IS NULL THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS unjudged
FROM messages m LEFT JOIN judgments j ON j.message_id = m.message_id AND j.judge_id = ?
WHERE m.run_id = ? AND m.shared_json IS NULL
GROUP BY ALL
ORDER BY m.profile_id, m.ctx_idx
"""

_AGREEMENT_SQL = f"""
SELECT a.message_id, a.attr_id, a.revealed AS a_revealed, b.revealed AS b_revealed,
       a.evidence AS a_evidence, b.evidence AS b_evidence, m.profile_id, m.ctx_idx,
       m.trial, att.key, att.domain, pl.necessary, pl.private,
       {LabelCode.sql_case("hl.label", otherwise=LabelCode.FROM_FRACTIONS)} AS hard
FROM verdicts a
JOIN verdicts b ON b.judge_id = ? AND b.message_id = a.message_id
     AND b.attr_id = a.attr_id
JOIN messages m ON m.message_id = a.message_id
JOIN attributes att ON att.run_id = m.run_id AND att.attr_id = a.attr_id
LEFT JOIN persona_labels pl ON pl.run_id = m.run_id AND pl.profile_id = m.profile_id
     AND pl.ctx_idx = m.ctx_idx AND pl.attr_id = a.attr_id AND pl.persona = 'combined'
LEFT JOIN hard_labels hl ON hl.run_id = m.run_id AND hl.profile_id = m.profile_id
     AND hl.ctx_idx = m.ctx_idx AND hl.attr_id = a.attr_id
WHERE a.judge_id = ?
  AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.message_id = a.message_id
                  AND j.judge_id IN (?, ?) AND j.status <> 'ok')
ORDER BY a.message_id, a.attr_id"""


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
        params = [judge_id, run_id, run_id, run_id]
        return LeakPairs.from_numpy(self.con.execute(_LEAK_PAIRS_SQL, params).fetchnumpy())

    def trial_masks(self, run_id: int, judge_id: int | None) -> TrialMasks:
        """Per (profile, context): bit masks of full-memory trials by what happened to them."""
        params = [judge_id, run_id]
        return TrialMasks.from_numpy(self.con.execute(_TRIAL_MASKS_SQL, params).fetchnumpy())

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
