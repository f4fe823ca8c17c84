"""People's verdicts on a run: as cells of a prepared run (what the correction is estimated
from), and on one message (what the verdict form and its history show)."""

from __future__ import annotations

import numpy as np

from cimem.analysis.audit.cells import AuditCells, cell_index
from cimem.analysis.metrics import Prepared
from cimem.store import HumanVerdictRow, Store


def audit_cells(store: Store, prep: Prepared, human_judge: int) -> tuple[AuditCells, int]:
    """People's settled verdicts of ``human_judge`` (the latest adjudication, else what the
    reviewers agree on) as cells of ``prep``; and how many fell outside its labelled pairs (an
    unlabelled pair, a composition message)."""
    index = cell_index(store, prep.cube)
    pair, trial, revealed, outside = [], [], [], 0
    for (message_id, attr_id), said in store.settled_human_verdicts(human_judge).items():
        cell = index.cell_of.get(message_id)
        row = None
        if cell is not None and attr_id in index.attr_pos:
            row = index.pair_of.get((cell[0], index.attr_pos[attr_id]))
        if cell is None or row is None:
            outside += 1
            continue
        pair.append(row)
        trial.append(cell[1])
        revealed.append(said)
    cells = AuditCells(
        np.array(pair, np.int64), np.array(trial, np.int64), np.array(revealed, bool)
    )
    return cells, outside


def verdicts_on_message(
    store: Store, run_id: int, message_id: int, *, history: bool = False
) -> list[HumanVerdictRow]:
    """People's verdicts on one message of the run: the current ones, or with ``history`` every
    verdict ever recorded; none when no person has judged the run."""
    human = store.find_human_judge(run_id)
    if human is None:
        return []
    return [v for v in store.human_verdicts(human, history=history) if v.message_id == message_id]
