"""The store: the DuckDB schema, every SQL statement of cimem, and the call cache with its journal.

Owns: the database file and its tables, and the typed rows (:mod:`cimem.store.rows`) and
vocabularies (:mod:`cimem.store.enums`) its methods return. Imports nothing of cimem above it (only
`cimem.errors` and `cimem.paths`); every other subpackage reads and writes through :class:`Store`.
"""

from cimem.store import rows
from cimem.store.audits import AuditSample
from cimem.store.database import (
    DatabaseBusy,
    DatabaseRefused,
    DatabaseReleased,
    Store,
    default_wait,
)
from cimem.store.enums import (
    JudgeKind,
    JudgmentStatus,
    Label,
    LabelCode,
    MessageStatus,
    PeopleLabel,
    RunKind,
)
from cimem.store.rows import *  # noqa: F403  (the row types, listed once in rows.__all__)

__all__ = [
    "AuditSample",
    "DatabaseBusy",
    "DatabaseRefused",
    "DatabaseReleased",
    "JudgeKind",
    "JudgmentStatus",
    "Label",
    "LabelCode",
    "MessageStatus",
    "PeopleLabel",
    "RunKind",
    "Store",
    "default_wait",
]
__all__ += rows.__all__
