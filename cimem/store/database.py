"""The store: one :class:`Store` over a cimem database, made of one part per aggregate.

No module outside :mod:`cimem.store` holds SQL. Every read and write is a small typed method with
`?` parameters; bulk writes take Arrow tables whose columns are named like the target table's
(see :func:`cimem.store.schema.bulk_table`). Each part keeps its own tables' statements:

- :mod:`~cimem.store.connection`: opening and checking the file, cursors, transactions, appends;
- :mod:`~cimem.store.runs`, :mod:`~cimem.store.profiles`, :mod:`~cimem.store.messages`,
  :mod:`~cimem.store.judges`, :mod:`~cimem.store.labels`, :mod:`~cimem.store.human`,
  :mod:`~cimem.store.people_labels`, :mod:`~cimem.store.audits`;
- :mod:`~cimem.store.cube_reads`: the whole-column reads the metrics compute from;
- :mod:`~cimem.store.call_cache`: the LLM call cache and its journal;
- :mod:`~cimem.store.copying`: whole runs copied between databases (a file and a lake);
- :mod:`~cimem.store.lake_upkeep`: a lake's compaction.
"""

from __future__ import annotations

from cimem.store.appender import BulkAppender
from cimem.store.audits import AuditSamples
from cimem.store.call_cache import CallCacheTable
from cimem.store.copying import RunCopies
from cimem.store.cube_reads import CubeReads
from cimem.store.human import HumanVerdicts
from cimem.store.labels import Labels
from cimem.store.lake_upkeep import LakeUpkeep
from cimem.store.memory import MemoryRelease
from cimem.store.messages import Messages
from cimem.store.people_labels import PeopleLabels
from cimem.store.profiles import Profiles
from cimem.store.progress import RunProgressTable
from cimem.store.runs import Runs
from cimem.store.schema import BULK_TABLES, SCHEMA_VERSION
from cimem.store.waiting import DatabaseBusy, DatabaseRefused, DatabaseReleased, default_wait

__all__ = [
    "BULK_TABLES",
    "SCHEMA_VERSION",
    "BulkAppender",
    "DatabaseBusy",
    "DatabaseRefused",
    "DatabaseReleased",
    "default_wait",
    "Store",
]


class Store(
    Runs,
    Profiles,
    Messages,
    HumanVerdicts,
    AuditSamples,
    Labels,
    PeopleLabels,
    CubeReads,
    RunProgressTable,
    CallCacheTable,
    RunCopies,
    LakeUpkeep,
    MemoryRelease,
):
    """A cimem database. Open with :meth:`open`; use as a context manager to close it; take
    :meth:`cursor` for another thread or session."""
