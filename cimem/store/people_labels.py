"""People's labels of (person, task, attribute) pairs: an append-only history
(``people_labels``). Pairs are named by text (profile name, recipient, task, attribute key), so
one label serves every run of the same person and task; a reviewer's latest label on a pair is
current, and nothing is ever overwritten."""

from __future__ import annotations

from collections.abc import Sequence

from cimem.store.connection import Database, now
from cimem.store.enums import PeopleLabel
from cimem.store.rows import PeopleLabelEntry, PeopleLabelRow, PeoplePairLabel
from cimem.store.schema import bulk_table

_CURRENT = (
    "seq = max(seq) OVER (PARTITION BY profile, lower(recipient), task, attr_key,"
    " coalesce(reviewer, ''))"
)
_HISTORY_SQL = f"""
    SELECT seq, profile, recipient, task, attr_key, label, reviewer, note, created_at,
           {_CURRENT} AS current
    FROM people_labels QUALIFY current OR ? ORDER BY seq"""
# each reviewer's current label, on the pairs of one run (parameter: the run)
_OF_RUN_SQL = f"""
    WITH cur AS (SELECT profile, recipient, task, attr_key, label, coalesce(reviewer, '') AS who
                 FROM people_labels QUALIFY {_CURRENT})
    SELECT p.profile_id, c.ctx_idx, a.attr_id, cur.label, cur.who AS reviewer
    FROM cur
    JOIN profiles p ON p.run_id = ? AND p.name = cur.profile
    JOIN contexts c ON c.run_id = p.run_id AND c.profile_id = p.profile_id
         AND lower(c.recipient) = lower(cur.recipient) AND c.task = cur.task
    JOIN attributes a ON a.run_id = p.run_id AND a.profile_id = p.profile_id
         AND a.key = cur.attr_key
    ORDER BY p.profile_id, c.ctx_idx, a.attr_id, cur.who"""
# the positions of entries that name no (person, task, attribute) of any stored run
_UNMATCHED_SQL = """
    SELECT t.i FROM (SELECT unnest(?::INTEGER[]) AS i, unnest(?::VARCHAR[]) AS profile,
                            unnest(?::VARCHAR[]) AS recipient, unnest(?::VARCHAR[]) AS task,
                            unnest(?::VARCHAR[]) AS attr_key) t
    WHERE NOT EXISTS (
        SELECT 1 FROM profiles p
        JOIN contexts c ON c.run_id = p.run_id AND c.profile_id = p.profile_id
        JOIN attributes a ON a.run_id = p.run_id AND a.profile_id = p.profile_id
        WHERE p.name = t.profile AND lower(c.recipient) = lower(t.recipient)
          AND c.task = t.task AND a.key = t.attr_key)
    ORDER BY t.i"""
_LABELS = {m.value: m for m in PeopleLabel}


class PeopleLabels(Database):
    """People's labels and their history."""

    def add_people_labels(self, rows: Sequence[PeopleLabelEntry]) -> int:
        """Append people's labels in one transaction (none replaces another: a reviewer's latest
        on a pair is current), as one bulk insert. Returns the number recorded."""
        if not rows:
            return 0
        recorded_at = now()
        columns: dict[str, list[object]] = {
            f: [getattr(r, f) for r in rows]
            for f in ("profile", "recipient", "task", "attr_key", "reviewer", "note")
        }
        columns["label"] = [str(r.label) for r in rows]
        columns["created_at"] = [r.created_at or recorded_at for r in rows]

        def record() -> None:
            seq = self._seq_base("label_seq", len(rows))
            columns["seq"] = list(range(seq + 1, seq + 1 + len(rows)))
            self.append("people_labels", bulk_table("people_labels", columns))

        self.write(record, f"{self.shown_path}: recording {len(rows)} people's labels")
        return len(rows)

    def people_labels(self, history: bool = False) -> list[PeopleLabelRow]:
        """Each reviewer's current label per pair, or with ``history`` every label ever
        recorded, oldest first, each marked current or superseded."""
        if not self._has_people_labels():
            return []
        return self._rows(
            PeopleLabelRow, _HISTORY_SQL, [history], convert={"label": _LABELS.__getitem__}
        )

    def people_labels_of(self, run_id: int) -> list[PeoplePairLabel]:
        """Each reviewer's current label of the run's pairs, by the run's ids (reviewer '' for
        labels recorded without a name)."""
        if not self._has_people_labels():
            return []
        return self._rows(
            PeoplePairLabel, _OF_RUN_SQL, [run_id], convert={"label": _LABELS.__getitem__}
        )

    def unmatched_people_labels(self, rows: Sequence[PeopleLabelEntry]) -> list[int]:
        """The positions in ``rows`` of entries that name no person, task and attribute of any
        stored run (a typo, or a person not imported yet)."""
        if not rows:
            return []
        columns = [list(range(len(rows)))] + [
            [getattr(r, f) for r in rows] for f in ("profile", "recipient", "task", "attr_key")
        ]
        return [int(i) for (i,) in self.con.execute(_UNMATCHED_SQL, columns).fetchall()]

    def _has_people_labels(self) -> bool:
        """Whether the file has the table (one made before it, opened read-only, is not
        migrated: it has no people's labels)."""
        return bool(
            self._scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'people_labels'")
        )
