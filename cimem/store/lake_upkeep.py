"""A lake's upkeep: every commit writes small Parquet files (a `cimem run` commits each part it
stores), and DuckLake keeps every snapshot for time travel. Compaction merges the small files,
writes the rows DuckLake kept inline in the catalog out to Parquet, forgets snapshots older than
a few days and deletes the files nothing refers to any more: those of forgotten snapshots, and
those a writer killed mid-write left (at least a day old: a younger one may be a write under
way). A file needs none of it (DuckDB checkpoints its own file)."""

from __future__ import annotations

from dataclasses import dataclass

from cimem.errors import CimemError
from cimem.store.connection import Database
from cimem.store.lake import ALIAS

_LIVE_FILES_SQL = (
    f"SELECT count(*) FROM __ducklake_metadata_{ALIAS}.ducklake_data_file"
    " WHERE end_snapshot IS NULL"
)
_SNAPSHOTS_SQL = f"SELECT count(*) FROM __ducklake_metadata_{ALIAS}.ducklake_snapshot"
_STEPS_SQL = (
    f"SELECT count(*) FROM ducklake_flush_inlined_data('{ALIAS}')",
    f"SELECT count(*) FROM ducklake_merge_adjacent_files('{ALIAS}')",
    f"SELECT count(*) FROM ducklake_expire_snapshots('{ALIAS}',"
    " older_than => now() - to_days(CAST(? AS INTEGER)))",
    f"SELECT count(*) FROM ducklake_cleanup_old_files('{ALIAS}', cleanup_all => true)",
    f"SELECT count(*) FROM ducklake_delete_orphaned_files('{ALIAS}',"
    " older_than => now() - to_days(CAST(? AS INTEGER)))",
)
ORPHAN_DAYS = 1  # a file no snapshot names is deleted once this old (younger: maybe being written)


@dataclass(frozen=True)
class Compaction:
    """What a compaction changed: live data files and snapshots before and after, and the old
    files it deleted."""

    files_before: int
    files_after: int
    snapshots_before: int
    snapshots_after: int
    deleted: int
    orphans: int = 0  # files a killed writer left, deleted


class LakeUpkeep(Database):
    """Compaction of a lake's files."""

    def compact(self, keep_days: int = 7) -> Compaction:
        """Merge the lake's small files and forget snapshots older than ``keep_days`` (time
        travel reaches back that far), deleting the files only they used."""
        if not self.lake:
            raise CimemError(
                f"{self.path}: a database file needs no compaction (DuckDB checkpoints it);"
                " compaction is for a lake (ducklake:postgres:...)"
            )
        before = self._counts()
        removed: dict[str, int] = {}
        with self._lock:
            for sql in _STEPS_SQL:
                days = ORPHAN_DAYS if "orphaned" in sql else keep_days
                found = self.con.execute(sql, [days] if "?" in sql else []).fetchall()
                removed[sql] = int(found[0][0])
        after = self._counts()
        deleted, orphans = removed[_STEPS_SQL[3]], removed[_STEPS_SQL[4]]
        return Compaction(before[0], after[0], before[1], after[1], deleted, orphans)

    def _counts(self) -> tuple[int, int]:
        return int(self._scalar(_LIVE_FILES_SQL)), int(self._scalar(_SNAPSHOTS_SQL))
