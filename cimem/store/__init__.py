"""The store: the DuckDB schema, every SQL statement of cimem, and the call cache with its journal.

Owns: the database file and its tables. Imports nothing of cimem above it (only `cimem.errors`
and `cimem.paths`); every other subpackage reads and writes through :class:`Store`.
"""

from cimem.store.database import DatabaseBusy, JudgeInfo, RunSummary, Store

__all__ = ["DatabaseBusy", "JudgeInfo", "RunSummary", "Store"]
