"""Column bundles: query results the metrics read as whole numpy columns, one field per column.

A run holds millions of (pair, trial) facts, so the metric inputs leave the store as columns
(DuckDB's ``fetchnumpy``), not rows. Each bundle is a frozen dataclass whose fields are the query's
column names, so a caller reads ``pairs.mask`` rather than ``pairs["mask"]`` and a renamed column
fails where the bundle is built. NULLs are NaN in number columns and None in text columns.

>>> import numpy as np
>>> c = TrialMasks.from_numpy({n: np.zeros(0) for n in field_names(TrialMasks)})
>>> len(c.profile_id), c.unjudged.dtype, c["trials"] is c.trials
(0, dtype('float64'), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from cimem.store.rows import field_names

__all__ = [
    "AgreementPairs",
    "LabelColumns",
    "LeakPairs",
    "PersonaFractions",
    "QueueCells",
    "TrialMasks",
]


class _Columns:
    """What every bundle shares: it is built from ``fetchnumpy``'s dict, and a column can be
    read by its name as a string too (``masks[k]`` for a loop over several columns)."""

    @classmethod
    def from_numpy(cls, columns: dict[str, Any]) -> Self:
        """The bundle of a ``fetchnumpy`` result whose column names are the bundle's fields."""
        return cls(**plain_numpy(columns))

    def __getitem__(self, column: str) -> Any:
        if column not in field_names(type(self)):
            raise KeyError(column)
        return getattr(self, column)


@dataclass(frozen=True)
class LeakPairs(_Columns):
    """Every labelled (profile, context, attribute) pair of a run: its combined fractions or hard
    label (a :class:`~cimem.store.schema.LabelCode`), and ``mask``, bit t set when the judge
    found the attribute revealed in full-memory trial t."""

    profile_id: np.ndarray
    ctx_idx: np.ndarray
    attr_id: np.ndarray
    necessary: np.ndarray
    private: np.ndarray
    hard: np.ndarray  # int8 LabelCode; FROM_FRACTIONS: derive under a rule
    mask: np.ndarray  # uint64


@dataclass(frozen=True)
class TrialMasks(_Columns):
    """Per (profile, context): bit masks of its trials' sample slots by what happened to them
    (a full-memory trial's slot is its number; partial-memory trials take the high bits)."""

    profile_id: np.ndarray
    ctx_idx: np.ndarray
    trials: np.ndarray  # a message slot exists
    valid: np.ndarray  # message ok and judgment ok
    unparsed: np.ndarray  # the judge's reply could not be read
    judge_error: np.ndarray  # the judge's call failed
    failed: np.ndarray  # generation failed
    unjudged: np.ndarray  # not judged by this judge
    partial: np.ndarray  # the slots of partial-memory trials (the composition experiment)
    beyond: np.ndarray  # partial-memory trials that did not fit the 64 slots: not read


@dataclass(frozen=True)
class LabelColumns(_Columns):
    """Every labelled pair of a run: combined fractions (``hard`` FROM_FRACTIONS) or the source's
    hard label code (fractions 0)."""

    profile_id: np.ndarray
    ctx_idx: np.ndarray
    attr_id: np.ndarray
    necessary: np.ndarray
    private: np.ndarray
    hard: np.ndarray  # int8 LabelCode


@dataclass(frozen=True)
class QueueCells(_Columns):
    """The (message, attribute) verdicts a review queue looks at; ``other`` is the second
    judge's verdict (1, 0, or -1 where it gave none); ``evidence`` only when asked for."""

    message_id: np.ndarray
    profile_id: np.ndarray
    ctx_idx: np.ndarray
    attr_id: np.ndarray
    revealed: np.ndarray
    other: np.ndarray  # int8
    evidence: np.ndarray | None = None


@dataclass(frozen=True)
class AgreementPairs(_Columns):
    """Two judges' verdicts on the (message, attribute) pairs both decided, with the pair's
    place, combined fractions (NaN: none) or hard label code, and the attribute's domain."""

    message_id: np.ndarray
    attr_id: np.ndarray
    a_revealed: np.ndarray
    b_revealed: np.ndarray
    a_evidence: np.ndarray
    b_evidence: np.ndarray
    profile_id: np.ndarray
    ctx_idx: np.ndarray
    trial: np.ndarray
    key: np.ndarray
    domain: np.ndarray
    necessary: np.ndarray
    private: np.ndarray
    hard: np.ndarray  # int8 LabelCode; FROM_FRACTIONS where no hard label


def plain_numpy(columns: dict[str, Any]) -> dict[str, Any]:
    """fetchnumpy gives masked arrays where a column has NULLs: fill them with NaN or None."""
    out = {}
    for name, col in columns.items():
        if isinstance(col, np.ma.MaskedArray):
            if col.dtype.kind == "f":
                col = col.filled(np.nan)
            elif col.dtype.kind in "iub":
                col = np.ma.filled(col.astype(np.float64), np.nan) if col.mask.any() else col.data
            else:
                col = np.array(
                    [None if m else v for v, m in zip(col.data, np.ma.getmaskarray(col))],
                    dtype=object,
                )
        out[name] = col
    return out


@dataclass(frozen=True)
class PersonaFractions(_Columns):
    """Every single persona's fractions of a run's labelled pairs (the ``combined`` view is
    :class:`LeakPairs`'s): one row per (pair, persona)."""

    profile_id: np.ndarray
    ctx_idx: np.ndarray
    attr_id: np.ndarray
    persona: np.ndarray  # object: the stored persona name
    necessary: np.ndarray
    private: np.ndarray
