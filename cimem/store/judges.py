"""Judges and what they said: the ``judges``, ``judgments`` (one call per message) and
``verdicts`` (one per message and attribute) tables.

A re-judge is a new judge: nothing a judge said is overwritten by another. Look-ups say whether
they read (``find_*``: None when there is none) or create (``get_or_create_*``).
"""

from __future__ import annotations

import orjson

from cimem.store.connection import Database, now
from cimem.store.enums import JudgeKind, JudgmentStatus
from cimem.store.rows import JudgeCoverage, JudgeInfo, JudgeVerdict, Judgment, VerdictRow

JUDGMENT_STATUS = {m.value: m for m in JudgmentStatus}
_KIND = {"kind": JudgeKind}
_JUDGE_COLUMNS = "judge_id, run_id, name, kind, model, prompt_hash, created_at"

_COVERAGE_SQL = """
    WITH gen AS (SELECT message_id FROM messages WHERE run_id = ? AND status = 'ok')
    SELECT j.judge_id, count(DISTINCT g.message_id) AS judged, (SELECT count(*) FROM gen) AS total
    FROM judges j LEFT JOIN judgments jm ON jm.judge_id = j.judge_id
    LEFT JOIN gen g ON g.message_id = jm.message_id
    WHERE j.run_id = ? GROUP BY j.judge_id ORDER BY j.judge_id"""

_AUDIT_JUDGE_SQL = """
    SELECT judge_id FROM judges WHERE run_id = ? AND kind = ?
    AND model IS NOT DISTINCT FROM ? AND prompt_hash IS NOT DISTINCT FROM ?
    AND json_extract_string(config, '$.audit') = 'true' ORDER BY judge_id LIMIT 1"""


class Judges(Database):
    """Judges of a run, their judgments and their verdicts."""

    def create_judge(
        self,
        *,
        run_id: int,
        name: str,
        kind: str,
        model: str | None = None,
        prompt_hash: str | None = None,
        config: str | None = None,
    ) -> int:
        columns: dict[str, object] = {
            "judge_id": (new_id := self._next_id("judge")),
            "run_id": run_id,
            "name": name,
            "kind": kind,
            "model": model,
            "prompt_hash": prompt_hash,
            "created_at": now(),
            "config": config,
        }
        sql = f"INSERT INTO judges ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        self.con.execute(sql, list(columns.values()))
        return new_id

    def rename_judge(self, judge_id: int, name: str) -> None:
        with self.transaction():
            self.con.execute("UPDATE judges SET name = ? WHERE judge_id = ?", [name, judge_id])

    def judge_configs(self, run_id: int) -> dict[int, str | None]:
        """Each judge of the run's stored configuration (JSON text), by judge id."""
        rows = self.con.execute(
            "SELECT judge_id, config FROM judges WHERE run_id = ? ORDER BY judge_id", [run_id]
        ).fetchall()
        return {int(j): c for j, c in rows}

    def judges(self, run_id: int) -> list[JudgeInfo]:
        return self._rows(
            JudgeInfo,
            f"SELECT {_JUDGE_COLUMNS} FROM judges WHERE run_id = ? ORDER BY judge_id",
            [run_id],
            convert=_KIND,
        )

    def judge_info(self, judge_id: int) -> JudgeInfo:
        """One judge; LookupError when the database has none of that id."""
        rows = self._rows(
            JudgeInfo,
            f"SELECT {_JUDGE_COLUMNS} FROM judges WHERE judge_id = ?",
            [judge_id],
            convert=_KIND,
        )
        if not rows:
            raise LookupError(f"no judge {judge_id} in {self.path}")
        return rows[0]

    def find_default_judge(self, run_id: int) -> int | None:
        """The run's original verdicts: its first judge (None: the run has no judge)."""
        found = self._scalar("SELECT min(judge_id) FROM judges WHERE run_id = ?", [run_id])
        return None if found is None else int(found)

    def judge_coverage(self, run_id: int) -> list[JudgeCoverage]:
        """Per judge of a run: how many of the run's generated messages it judged (a judgment of
        any status), out of all of them."""
        return self._rows(JudgeCoverage, _COVERAGE_SQL, [run_id, run_id])

    def get_or_create_audit_judge(
        self, *, run_id: int, name: str, kind: str, model: str | None, prompt_hash: str | None
    ) -> int:
        """The run's audit judge for this model and prompt (made on first use): messages
        re-judged one at a time from the Audit page all go there, not to a judge per save."""
        found = self._scalar(_AUDIT_JUDGE_SQL, [run_id, kind, model, prompt_hash])
        if found is not None:
            return int(found)
        return self.create_judge(
            run_id=run_id,
            name=name,
            kind=kind,
            model=model,
            prompt_hash=prompt_hash,
            config=orjson.dumps({"audit": True}).decode(),
        )

    def forget_judgments(self, judge_id: int, message_ids: list[int]) -> None:
        """Drop a judge's judgments and verdicts on these messages (before judging them again)."""
        for table in ("verdicts", "judgments"):
            self.con.execute(
                f"DELETE FROM {table} WHERE judge_id = ? AND list_contains(?, message_id)",
                [judge_id, message_ids],
            )

    def delete_failed_judgments(self, judge_id: int) -> int:
        """Forget a judge's calls that failed (status ``error``) so they are judged again."""
        with self.transaction():
            n = self._scalar(
                "SELECT count(*) FROM judgments WHERE judge_id = ? AND status = 'error'", [judge_id]
            )
            self.con.execute(
                "DELETE FROM judgments WHERE judge_id = ? AND status = 'error'", [judge_id]
            )
        return int(n)

    def judgments_of(self, judge_id: int) -> dict[int, Judgment]:
        """{message_id: judgment} of one judge."""
        rows = self.con.execute(
            "SELECT message_id, status, raw FROM judgments WHERE judge_id = ? ORDER BY message_id",
            [judge_id],
        ).fetchall()
        return {int(m): Judgment(status=JUDGMENT_STATUS[s], raw=r) for m, s, r in rows}

    def message_judgments(self, message_id: int) -> dict[int, Judgment]:
        """{judge_id: judgment} of every judge of this message."""
        rows = self.con.execute(
            "SELECT judge_id, status, raw FROM judgments WHERE message_id = ? ORDER BY judge_id",
            [message_id],
        ).fetchall()
        return {int(j): Judgment(status=JUDGMENT_STATUS[s], raw=r) for j, s, r in rows}

    def verdicts_of(self, judge_id: int, run_id: int, profile_id: int) -> list[VerdictRow]:
        """The verdicts of one judge on one profile's messages."""
        return self._rows(
            VerdictRow,
            "SELECT v.message_id, v.attr_id, v.revealed, v.evidence FROM verdicts v"
            " JOIN messages m USING (message_id)"
            " WHERE v.judge_id = ? AND m.run_id = ? AND m.profile_id = ?"
            " ORDER BY v.message_id, v.attr_id",
            [judge_id, run_id, profile_id],
        )

    def message_verdicts(self, message_id: int) -> list[JudgeVerdict]:
        """Every judge's verdicts on this message."""
        return self._rows(
            JudgeVerdict,
            "SELECT judge_id, attr_id, revealed, evidence FROM verdicts WHERE message_id = ?"
            " ORDER BY judge_id, attr_id",
            [message_id],
        )
