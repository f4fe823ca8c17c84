"""The store: the DuckDB schema, every SQL statement of cimem, and the call cache with its journal.

Owns: the database file and its tables, and the typed rows (:mod:`cimem.store.rows`) and
vocabularies (:mod:`cimem.store.enums`) its methods return. Imports nothing of cimem above it (only
`cimem.errors` and `cimem.paths`); every other subpackage reads and writes through :class:`Store`.
"""

from cimem.store.database import DatabaseBusy, DatabaseRefused, Store
from cimem.store.enums import JudgeKind, JudgmentStatus, Label, MessageStatus
from cimem.store.rows import (
    AttributeKey,
    AttributeRow,
    CachedCall,
    CachedCompletion,
    CompositionMessage,
    ContextRow,
    HardLabelRow,
    HumanVerdict,
    HumanVerdictRow,
    JudgeCoverage,
    JudgeInfo,
    JudgeVerdict,
    Judgment,
    MessageDetail,
    MessageRow,
    MessageSlot,
    MessageToJudge,
    NewMessage,
    PairLabel,
    PairMessage,
    PersonaLabelRow,
    ProfileRow,
    RunLabel,
    RunRef,
    RunSummary,
    VerdictRow,
)

__all__ = [
    "AttributeKey",
    "AttributeRow",
    "CachedCall",
    "CachedCompletion",
    "CompositionMessage",
    "ContextRow",
    "DatabaseBusy",
    "DatabaseRefused",
    "HardLabelRow",
    "HumanVerdict",
    "HumanVerdictRow",
    "JudgeCoverage",
    "JudgeInfo",
    "JudgeKind",
    "JudgeVerdict",
    "Judgment",
    "JudgmentStatus",
    "Label",
    "MessageDetail",
    "MessageRow",
    "MessageSlot",
    "MessageStatus",
    "MessageToJudge",
    "NewMessage",
    "PairLabel",
    "PairMessage",
    "PersonaLabelRow",
    "ProfileRow",
    "RunLabel",
    "RunRef",
    "RunSummary",
    "Store",
    "VerdictRow",
]
