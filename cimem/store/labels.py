"""Labels of (attribute, context) pairs: persona fractions (``persona_labels``) and the hard labels
of sources that ship no fractions (``hard_labels``). Rules that turn fractions into labels are
the analysis's; the store keeps what the source gave."""

from __future__ import annotations

from cimem.store.connection import Database
from cimem.store.enums import Label
from cimem.store.rows import HardLabelRow, PairLabel, PersonaLabelRow, RunLabel

# text from the database -> enum member, by dict lookup (cheaper than calling the enum per row)
LABELS = {m.value: m for m in Label}


def _label_or_none(text: str | None) -> Label | None:
    return None if text is None else LABELS[text]


# the pairs of the labels of one run (``l``) whose profile name, recipient, task and attribute key
# match in another run (``tp``, ``tc``, ``ta``); parameters: the target run, the source run
_COPY_MATCH_SQL = """
    FROM {src} l
    JOIN profiles sp ON sp.run_id = l.run_id AND sp.profile_id = l.profile_id
    JOIN contexts sc ON sc.run_id = l.run_id AND sc.profile_id = l.profile_id
         AND sc.ctx_idx = l.ctx_idx
    JOIN attributes sa ON sa.run_id = l.run_id AND sa.attr_id = l.attr_id
    JOIN profiles tp ON tp.run_id = ? AND tp.name = sp.name
    JOIN contexts tc ON tc.run_id = tp.run_id AND tc.profile_id = tp.profile_id
         AND lower(tc.recipient) = lower(sc.recipient) AND tc.task = sc.task
    JOIN attributes ta ON ta.run_id = tp.run_id AND ta.profile_id = tp.profile_id
         AND ta.key = sa.key
    WHERE l.run_id = ?"""
_COPY_SQL = {
    "persona_labels": "INSERT INTO persona_labels SELECT ?, tp.profile_id, tc.ctx_idx, ta.attr_id,"
    " l.persona, l.necessary, l.private, l.unlabeled"
    + _COPY_MATCH_SQL.format(src="persona_labels"),
    "hard_labels": "INSERT INTO hard_labels SELECT ?, tp.profile_id, tc.ctx_idx, ta.attr_id, l.label"
    + _COPY_MATCH_SQL.format(src="hard_labels"),
}


class Labels(Database):
    """Reads and copies of a run's labels."""

    def persona_labels_of(self, run_id: int, profile_id: int) -> list[PersonaLabelRow]:
        """Every persona's label fractions of one profile."""
        return self._rows(
            PersonaLabelRow,
            "SELECT ctx_idx, persona, attr_id, necessary, private, unlabeled FROM persona_labels"
            " WHERE run_id = ? AND profile_id = ? ORDER BY ctx_idx, persona, attr_id",
            [run_id, profile_id],
        )

    def hard_labels_of(self, run_id: int, profile_id: int) -> list[HardLabelRow]:
        """The hard labels of one profile (sources that ship no fractions)."""
        return self._rows(
            HardLabelRow,
            "SELECT ctx_idx, attr_id, label FROM hard_labels WHERE run_id = ? AND profile_id = ?"
            " ORDER BY ctx_idx, attr_id",
            [run_id, profile_id],
            convert={"label": LABELS.__getitem__},
        )

    def pair_labels(self, run_id: int, profile_id: int, ctx_idx: int) -> list[PairLabel]:
        """Every persona's fractions and every hard label of one context's attributes."""
        where = " WHERE run_id = ? AND profile_id = ? AND ctx_idx = ?"
        params = [run_id, profile_id, ctx_idx]
        fractions = self._rows(
            PairLabel,
            "SELECT attr_id, persona, necessary, private, unlabeled, NULL AS hard_label"
            " FROM persona_labels" + where + " ORDER BY attr_id, persona",
            params,
        )
        hard = self._rows(
            PairLabel,
            "SELECT attr_id, NULL AS persona, NULL AS necessary, NULL AS private,"
            " NULL AS unlabeled, label AS hard_label FROM hard_labels"
            + where
            + " ORDER BY attr_id",
            params,
            convert={"hard_label": LABELS.__getitem__},
        )
        return fractions + hard

    def labels_of_run(self, run_id: int) -> list[RunLabel]:
        """Every labelled pair of a run: combined fractions, or the source's hard label."""
        return self._rows(
            RunLabel,
            "SELECT profile_id, ctx_idx, attr_id, necessary, private, NULL::VARCHAR AS hard_label"
            " FROM persona_labels WHERE run_id = ? AND persona = 'combined' UNION ALL"
            " SELECT profile_id, ctx_idx, attr_id, NULL, NULL, label FROM hard_labels"
            " WHERE run_id = ? ORDER BY profile_id, ctx_idx, attr_id",
            [run_id, run_id],
            convert={"hard_label": _label_or_none},
        )

    def copy_labels(self, from_run: int, to_run: int) -> int:
        """Copy labels between runs, matched by profile name, recipient, task and attribute key."""
        params = [to_run, to_run, from_run]  # the SELECT's run, the target's profiles, the source
        for sql in _COPY_SQL.values():
            self.con.execute(sql, params)
        return int(
            self._scalar(
                "SELECT (SELECT count(*) FROM persona_labels WHERE run_id = ?)"
                " + (SELECT count(*) FROM hard_labels WHERE run_id = ?)",
                [to_run, to_run],
            )
        )

    def delete_persona_labels(self, run_id: int) -> None:
        """A labelling pass rewrites its run's labels (call it inside a transaction)."""
        self.con.execute("DELETE FROM persona_labels WHERE run_id = ?", [run_id])
