"""Where people's verdicts meet the numbers: a human verdict is stored per (message, attribute),
the metrics and their correction work on cells of a prepared run (a labelled pair row of the cube
and a trial's sample slot). These maps go from one to the other through the store's message slots
(message -> profile, context, slot: a full-memory trial's number, or a high bit for a
partial-memory trial)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.cube import LeakCube
from cimem.errors import CimemError
from cimem.store import Store


@dataclass(frozen=True)
class AuditCells:
    """People's verdicts on cells of a prepared run: pair row (index into the cube's pairs), trial,
    and whether the person found the attribute revealed."""

    pair: np.ndarray  # int64
    trial: np.ndarray  # int64
    revealed: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.pair)

    @classmethod
    def empty(cls) -> AuditCells:
        """No verdict yet."""
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool))


@dataclass(frozen=True)
class CellIndex:
    """Where messages and attributes of a run sit in a prepared cube."""

    message_of: dict[tuple[int, int], int]  # (context position, slot) -> message_id
    cell_of: dict[int, tuple[int, int]]  # message_id -> (context position, slot)
    pair_of: dict[tuple[int, int], int]  # (context position, attribute position) -> pair row
    attr_pos: dict[int, int]  # the store's attr_id -> attribute position
    trial_of: dict[int, int]  # message_id -> its trial (a slot is its trial but for
    # partial-memory trials, whose slots are high bits)


def cell_index(store: Store, cube: LeakCube) -> CellIndex:
    """The maps between a stored run's messages and the cube's pair rows and trials."""
    if cube.info.run_id is None or cube.profile_ids is None or cube.ctx_local is None:
        raise CimemError("people's verdicts need a run from a database, not a file")
    if cube.attr_ids is None:
        raise CimemError("the cube carries no attribute ids")
    ctx_pos = {
        (cube.profile_ids[int(p)], int(c)): i
        for i, (p, c) in enumerate(zip(cube.ctx_profile, cube.ctx_local))
    }
    message_of: dict[tuple[int, int], int] = {}
    trial_of: dict[int, int] = {}
    for (pid, ctx, slot), (message_id, trial) in store.message_slots_index(
        cube.info.run_id
    ).items():
        if (pid, ctx) in ctx_pos:
            message_of[(ctx_pos[(pid, ctx)], slot)] = message_id
            trial_of[message_id] = trial
    pair_of = {(int(c), int(a)): i for i, (c, a) in enumerate(zip(cube.pair_ctx, cube.pair_attr))}
    return CellIndex(
        message_of,
        {m: cell for cell, m in message_of.items()},
        pair_of,
        {int(a): i for i, a in enumerate(cube.attr_ids)},
        trial_of,
    )
