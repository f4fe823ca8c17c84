"""A run's people and tasks: its profiles, their attributes (memories) and contexts."""

from __future__ import annotations

from cimem.store.connection import Database
from cimem.store.rows import AttributeKey, AttributeRow, ContextRow, ProfileRow


class Profiles(Database):
    """The ``profiles``, ``attributes`` and ``contexts`` tables, in source order."""

    def profiles_of(self, run_id: int) -> list[ProfileRow]:
        """The run's profiles in source order."""
        return self._rows(
            ProfileRow,
            "SELECT profile_id, name, sex, address, age, bio_json FROM profiles WHERE run_id = ?"
            " ORDER BY profile_id",
            [run_id],
        )

    def attributes_of(self, run_id: int, profile_id: int | None = None) -> list[AttributeRow]:
        """The run's attributes by profile, in attr_id order; only ``profile_id``'s when given
        (one message's audit reads its profile, not the run's thousands)."""
        return self._rows(
            AttributeRow,
            "SELECT profile_id, attr_id, key, value_json, domain, event, memory_statement"
            " FROM attributes WHERE run_id = ? AND (? IS NULL OR profile_id = ?)"
            " ORDER BY profile_id, attr_id",
            [run_id, profile_id, profile_id],
        )

    def contexts_of(self, run_id: int) -> list[ContextRow]:
        """The run's contexts by profile, in source order."""
        return self._rows(
            ContextRow,
            "SELECT profile_id, ctx_idx, recipient, task, prompt FROM contexts WHERE run_id = ?"
            " ORDER BY profile_id, ctx_idx",
            [run_id],
        )

    def attribute_keys_by_profile(self, run_id: int) -> dict[str, list[AttributeKey]]:
        """{profile name: its attributes' ids and keys}."""
        out: dict[str, list[AttributeKey]] = {}
        for name, attr_id, key in self.con.execute(
            "SELECT p.name, a.attr_id, a.key FROM attributes a JOIN profiles p"
            " USING (run_id, profile_id) WHERE a.run_id = ? ORDER BY a.attr_id",
            [run_id],
        ).fetchall():
            out.setdefault(name, []).append(AttributeKey(attr_id=attr_id, key=key))
        return out

    def values_by_name(self, run_id: int) -> dict[tuple[str, str], str]:
        """{(profile name, attribute key): value JSON} of a run (e.g. an imported profiles file)."""
        rows = self.con.execute(
            "SELECT p.name, a.key, a.value_json FROM attributes a JOIN profiles p"
            " USING (run_id, profile_id) WHERE a.run_id = ? AND a.value_json IS NOT NULL"
            " ORDER BY a.attr_id",
            [run_id],
        ).fetchall()
        return {(name, key): value for name, key, value in rows}
