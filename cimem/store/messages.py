"""Messages: the slots a run generates (profile, context, trial), their text and status."""

from __future__ import annotations

from typing import NamedTuple

from cimem.store.connection import Database
from cimem.store.enums import MessageStatus
from cimem.store.rows import (
    CompositionMessage,
    Counterpart,
    HealthMessage,
    MessageDetail,
    MessageRow,
    MessageSlot,
    MessageToJudge,
    NewMessage,
    PairMessage,
)
from cimem.store.schema import bulk_table

# text from the database -> enum member, by dict lookup (cheaper than calling the enum per row)
MESSAGE_STATUS = {m.value: m for m in MessageStatus}
_STATUS = {"status": MESSAGE_STATUS.__getitem__}

_TO_JUDGE_COLUMNS = "m.message_id, m.profile_id, p.name AS profile, m.ctx_idx, m.trial, m.text"

# A message's counterparts in two steps, its own key first: one query joining the message to
# every other run's messages let a lake (whose tables carry no statistics) order its joins
# through 1.4 billion rows (7.5 s on 40 runs, 60 ms in two steps; a file: 50 ms, 6 ms).
_COUNTERPART_KEY_SQL = """
    SELECT m.run_id, p.name, c.recipient, c.task, m.trial
    FROM messages m JOIN profiles p USING (run_id, profile_id)
    JOIN contexts c USING (run_id, profile_id, ctx_idx)
    WHERE m.message_id = ?"""
_COUNTERPARTS_SQL = """
    SELECT m2.run_id, m2.message_id, m2.trial
    FROM profiles p2
    JOIN contexts c2 ON c2.run_id = p2.run_id AND c2.profile_id = p2.profile_id
    JOIN messages m2 ON m2.run_id = c2.run_id AND m2.profile_id = c2.profile_id
     AND m2.ctx_idx = c2.ctx_idx AND m2.shared_json IS NULL
    WHERE p2.name = ? AND p2.run_id <> ? AND c2.recipient = ? AND c2.task = ?
    QUALIFY row_number() OVER (PARTITION BY m2.run_id
     ORDER BY m2.trial <> ?, m2.trial, m2.message_id) = 1
    ORDER BY m2.run_id"""

_COMPOSITION_SQL = """
    SELECT m.profile_id, m.ctx_idx, m.num_not_to_share, m.shared_json,
           coalesce(list(a.key ORDER BY a.attr_id) FILTER (WHERE v.revealed), []) AS revealed_keys
    FROM messages m
    JOIN judgments j ON j.message_id = m.message_id AND j.judge_id = ? AND j.status = 'ok'
    LEFT JOIN verdicts v ON v.message_id = m.message_id AND v.judge_id = j.judge_id
    LEFT JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = v.attr_id
    WHERE m.run_id = ? AND m.shared_json IS NOT NULL AND m.status = 'ok'
    GROUP BY m.message_id, m.profile_id, m.ctx_idx, m.num_not_to_share, m.shared_json
    ORDER BY m.message_id"""

# What a reviewer reads to decide a cell from a sheet: the message, the attribute's memory
# statement and the audited judge's evidence, for a list of (message, attribute) cells.
_SHEET_CELLS_SQL = """
    SELECT w.message_id, w.attr_id, m.text, a.memory_statement, v.evidence
    FROM (SELECT unnest(?::BIGINT[]) AS message_id, unnest(?::INTEGER[]) AS attr_id) w
    JOIN messages m ON m.message_id = w.message_id
    LEFT JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = w.attr_id
    LEFT JOIN verdicts v ON v.judge_id = ? AND v.message_id = w.message_id
     AND v.attr_id = w.attr_id
    ORDER BY w.message_id, w.attr_id"""


class SheetCell(NamedTuple):
    """A cell as an audit sheet shows it (the text is whole: the sheet bounds it)."""

    message_id: int
    attr_id: int
    text: str | None
    memory_statement: str | None
    evidence: str | None


class Messages(Database):
    """The ``messages`` table: reads for the runner, the judges, export and the audit."""

    def sheet_cells(self, judge_id: int, cells: list[tuple[int, int]]) -> list[SheetCell]:
        """Each (message_id, attr_id) cell's message, memory statement and ``judge_id``'s
        evidence, ordered by message and attribute."""
        if not cells:
            return []
        messages, attrs = zip(*cells, strict=True)
        return self._rows(SheetCell, _SHEET_CELLS_SQL, [list(messages), list(attrs), judge_id])

    def next_message_id(self) -> int:
        return int(self._scalar("SELECT coalesce(max(message_id), 0) + 1 FROM messages"))

    def max_trial(self, run_id: int) -> int | None:
        top = self._scalar("SELECT max(trial) FROM messages WHERE run_id = ?", [run_id])
        return None if top is None else int(top)

    def messages_of(self, run_id: int, profile_id: int) -> list[MessageRow]:
        """The message slots of one profile, failed generations included."""
        return self._rows(
            MessageRow,
            "SELECT message_id, ctx_idx, trial, num_to_share, num_not_to_share, shared_json,"
            " prompt, text, status, error FROM messages WHERE run_id = ? AND profile_id = ?"
            " ORDER BY ctx_idx, num_to_share, num_not_to_share, trial",
            [run_id, profile_id],
            convert=_STATUS,
        )

    def messages_to_judge(
        self,
        run_id: int,
        profile: str | None = None,
        context: int | None = None,
        trial: int | None = None,
        message_ids: list[int] | None = None,
        limit: int | None = None,
    ) -> list[MessageToJudge]:
        """The generated messages of a run matching the selection, in message_id order."""
        return self._rows(
            MessageToJudge,
            f"SELECT {_TO_JUDGE_COLUMNS}"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = ? AND m.status = 'ok'"
            " AND (? IS NULL OR p.name = ?) AND (? IS NULL OR m.ctx_idx = ?)"
            " AND (? IS NULL OR m.trial = ?)"
            " AND (? IS NULL OR list_contains(?, m.message_id))"
            " ORDER BY m.message_id LIMIT ?",
            [
                run_id,
                profile,
                profile,
                context,
                context,
                trial,
                trial,
                message_ids,
                message_ids,
                limit if limit is not None else 2**62,
            ],
        )

    def unjudged_messages(self, run_id: int, judge_id: int | None) -> list[MessageToJudge]:
        """Generated messages without a judgment of ``judge_id`` (all generated messages when
        there is no judge yet)."""
        return self._rows(
            MessageToJudge,
            f"SELECT {_TO_JUDGE_COLUMNS} FROM messages m"
            " JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = ? AND m.status = 'ok' AND NOT EXISTS (SELECT 1 FROM judgments j"
            " WHERE j.judge_id = ? AND j.message_id = m.message_id) ORDER BY m.message_id",
            [run_id, judge_id],
        )

    def message_index(self, run_id: int) -> dict[tuple[str, int, int], int]:
        """{(profile name, ctx_idx, trial): message_id} of full-memory messages."""
        rows = self.con.execute(
            "SELECT p.name, m.ctx_idx, m.trial, m.message_id FROM messages m JOIN profiles p"
            " USING (run_id, profile_id) WHERE m.run_id = ? AND m.shared_json IS NULL"
            " ORDER BY m.message_id",
            [run_id],
        ).fetchall()
        return {(name, ctx, trial): int(mid) for name, ctx, trial, mid in rows}

    def health_messages(self, run_id: int) -> list[HealthMessage]:
        """The run's full-memory messages (what its metrics read), failed ones too, with their
        text and finish reason, by profile, context and trial: the health scan's input. A file
        of schema version 3 opened read-only (not migrated yet) has no finish reasons: NULL."""
        reason = "m.finish_reason" if self._has_finish_reason() else "NULL"
        return self._rows(
            HealthMessage,
            "SELECT m.message_id, m.profile_id, p.name AS profile, m.ctx_idx, m.trial, m.status,"
            f" m.text, {reason} AS finish_reason"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = ? AND m.shared_json IS NULL"
            " ORDER BY m.profile_id, m.ctx_idx, m.trial, m.message_id",
            [run_id],
            convert=_STATUS,
        )

    def _has_finish_reason(self) -> bool:
        return bool(
            self._scalar(
                "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'messages'"
                " AND column_name = 'finish_reason' AND database_name = current_database()"
            )
        )

    def message_detail(self, message_id: int) -> MessageDetail | None:
        """A message with its run, profile, context, prompt and status."""
        rows = self._rows(
            MessageDetail,
            "SELECT m.message_id, m.run_id, m.profile_id, p.name AS profile, m.ctx_idx,"
            " c.recipient, c.task, m.trial, m.prompt, m.text, m.status, m.error"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " JOIN contexts c USING (run_id, profile_id, ctx_idx) WHERE m.message_id = ?",
            [message_id],
            convert=_STATUS,
        )
        return rows[0] if rows else None

    def find_message(self, run_id: int, profile_id: int, ctx_idx: int, trial: int) -> int | None:
        """The full-memory message of one slot, if the run has it."""
        found = self._scalar(
            "SELECT message_id FROM messages WHERE run_id = ? AND profile_id = ? AND ctx_idx = ?"
            " AND trial = ? AND shared_json IS NULL ORDER BY message_id LIMIT 1",
            [run_id, profile_id, ctx_idx, trial],
        )
        return None if found is None else int(found)

    def counterparts(self, message_id: int) -> list[Counterpart]:
        """The same profile (matched by name), recipient, task and trial in every other run, one
        message per run (that run's lowest trial when it lacks this one), by run id."""
        key = self.con.execute(_COUNTERPART_KEY_SQL, [message_id]).fetchone()
        if key is None:
            return []
        run_id, name, recipient, task, trial = key
        return self._rows(Counterpart, _COUNTERPARTS_SQL, [name, run_id, recipient, task, trial])

    def pair_messages(
        self, run_id: int, profile_id: int, ctx_idx: int, attr_id: int, judge_id: int | None
    ) -> list[PairMessage]:
        """The messages of one (context, attribute) pair with one judge's verdict on it."""
        return self._rows(
            PairMessage,
            "SELECT m.message_id, m.trial, m.text, v.revealed, v.evidence FROM messages m"
            " LEFT JOIN verdicts v ON v.message_id = m.message_id AND v.judge_id = ?"
            " AND v.attr_id = ? WHERE m.run_id = ? AND m.profile_id = ? AND m.ctx_idx = ?"
            " ORDER BY m.trial",
            [judge_id, attr_id, run_id, profile_id, ctx_idx],
        )

    def message_slots(self, run_id: int) -> dict[tuple[int, int, int, int | None], MessageSlot]:
        """{(profile_id, ctx_idx, trial, num_not_to_share or None): what the slot holds}."""
        rows = self.con.execute(
            "SELECT profile_id, ctx_idx, trial,"
            " CASE WHEN shared_json IS NULL THEN NULL ELSE num_not_to_share END, message_id, status"
            " FROM messages WHERE run_id = ? ORDER BY message_id",
            [run_id],
        ).fetchall()
        return {
            (p, c, t, b): MessageSlot(message_id=m, status=MESSAGE_STATUS[st])
            for p, c, t, b, m, st in rows
        }

    def delete_failed_messages(self, run_id: int) -> int:
        with self.transaction():
            n = self._scalar(
                "SELECT count(*) FROM messages WHERE run_id = ? AND status = 'failed'", [run_id]
            )
            self.con.execute(
                "DELETE FROM messages WHERE run_id = ? AND status = 'failed'", [run_id]
            )
        return int(n)

    def composition_messages(self, run_id: int, judge_id: int) -> list[CompositionMessage]:
        """Composition-experiment messages with a parsed judgment of ``judge_id``, in message order
        (a fixed order keeps sums over them the same to the last bit)."""
        return self._rows(CompositionMessage, _COMPOSITION_SQL, [judge_id, run_id])

    def has_composition(self, run_id: int) -> bool:
        return bool(
            self._scalar(
                "SELECT count(*) FROM messages WHERE run_id = ? AND shared_json IS NOT NULL",
                [run_id],
            )
        )

    def add_messages(self, run_id: int, rows: list[NewMessage]) -> range:
        """Append messages in one transaction; they get consecutive message ids (returned)."""
        if not rows:
            return range(0)
        columns: dict[str, object] = {
            name: [getattr(r, name) for r in rows] for name in NewMessage._fields
        }
        with self.transaction():
            first = self.new_message_ids(len(rows))
            columns["message_id"] = range(first, first + len(rows))
            columns["run_id"] = [run_id] * len(rows)
            self.append("messages", bulk_table("messages", columns))
        return range(first, first + len(rows))
