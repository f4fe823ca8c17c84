"""People's verdicts meet the metrics: the audit sample a team reviews, the audited cells of a
run's pairs, and Violation@n and Completeness corrected for the judge's errors.

A human verdict is stored per (message, attribute); the correction (:mod:`cimem.analysis.correction`)
works on cells of a prepared run: a labelled pair row of the cube and a trial. This module maps
one to the other through the store's message slots (message -> profile, context, trial).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.correction import AuditCells, CorrectedMetrics, corrected_metrics, suggest_audit
from cimem.analysis.cube import LeakCube
from cimem.analysis.metrics import MetricOptions, Prepared, compute, prepare
from cimem.errors import CimemError
from cimem.store import Store


@dataclass(frozen=True)
class CellIndex:
    """Where messages and attributes of a run sit in a prepared cube."""

    message_of: dict[tuple[int, int], int]  # (context position, trial) -> message_id
    cell_of: dict[int, tuple[int, int]]  # message_id -> (context position, trial)
    pair_of: dict[tuple[int, int], int]  # (context position, attribute position) -> pair row
    attr_pos: dict[int, int]  # the store's attr_id -> attribute position


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
    for (pid, ctx, trial, composition), slot in store.message_slots(cube.info.run_id).items():
        if composition is None and (pid, ctx) in ctx_pos:
            message_of[(ctx_pos[(pid, ctx)], trial)] = slot.message_id
    pair_of = {(int(c), int(a)): i for i, (c, a) in enumerate(zip(cube.pair_ctx, cube.pair_attr))}
    return CellIndex(
        message_of,
        {m: cell for cell, m in message_of.items()},
        pair_of,
        {int(a): i for i, a in enumerate(cube.attr_ids)},
    )


def audit_cells(store: Store, prep: Prepared, human_judge: int) -> tuple[AuditCells, int]:
    """People's current verdicts of ``human_judge`` as cells of ``prep``; and how many verdicts
    fell outside its labelled pairs (an unlabelled pair, a composition message)."""
    index = cell_index(store, prep.cube)
    pair, trial, revealed, outside = [], [], [], 0
    for v in store.human_verdicts(human_judge):
        cell = index.cell_of.get(v.message_id)
        row = None
        if cell is not None and v.attr_id in index.attr_pos:
            row = index.pair_of.get((cell[0], index.attr_pos[v.attr_id]))
        if cell is None or row is None:
            outside += 1
            continue
        pair.append(row)
        trial.append(cell[1])
        revealed.append(v.revealed)
    cells = AuditCells(
        np.array(pair, np.int64), np.array(trial, np.int64), np.array(revealed, bool)
    )
    return cells, outside


@dataclass(frozen=True)
class Corrected:
    """Corrected metrics of one run with the audit behind them."""

    human_judge: int
    result: CorrectedMetrics
    verdicts_outside: int  # people's verdicts on cells outside the labelled pairs

    def as_dict(self) -> dict[str, object]:
        return {
            "human_judge": self.human_judge,
            "verdicts_outside_labelled_pairs": self.verdicts_outside,
            "error_rates": [r.__dict__ for r in self.result.error_rates],
        }


def corrected(
    store: Store,
    cube: LeakCube,
    opts: MetricOptions,
    human_judge: int,
    resamples: int = 400,
    seed: int = 0,
) -> Corrected:
    """Violation@k and Completeness of ``cube`` (under its judge) corrected for that judge's
    errors, estimated from ``human_judge``'s current verdicts on the same run."""
    info = store.judge_info(human_judge)
    if info.run_id != cube.info.run_id:
        raise CimemError(
            f"judge {human_judge} belongs to run {info.run_id}, not run {cube.info.run_id}"
        )
    if info.kind != "human":
        raise CimemError(
            f"judge {human_judge} ({info.name}) is a {info.kind} judge; --corrected-by takes the"
            " run's human judge (people's verdicts)"
        )
    if cube.info.judge_id == human_judge:
        raise CimemError("the judge to correct and the people's judge are the same judge")
    prep = prepare(cube, opts)
    cells, outside = audit_cells(store, prep, human_judge)
    raw = compute(cube, opts)
    result = corrected_metrics(
        prep,
        cells,
        raw_violation=raw.violation.mean,
        raw_completeness=raw.completeness.mean,
        resamples=resamples,
        seed=seed,
    )
    return Corrected(human_judge, result, outside)


# --------------------------------------------------------------------------- the audit sample
STRATA = {
    (True, True): "private, judge yes",
    (True, False): "private, judge no",
    (False, True): "share, judge yes",
    (False, False): "share, judge no",
}


@dataclass(frozen=True)
class SampleRow:
    """One cell of a suggested audit: what a reviewer opens and decides."""

    message_id: int
    profile: str
    recipient: str
    task: str
    trial: int
    attr_id: int
    attribute: str
    label: str  # private or share
    judge_says: str  # yes or no
    stratum: str


def audit_sample(store: Store, prep: Prepared, size: int, seed: int) -> list[SampleRow]:
    """A seeded sample of ``size`` cells stratified by label (private, share) and the judge's
    verdict (:func:`cimem.analysis.correction.suggest_audit`), as rows a reviewer can work on."""
    if size < 1:
        raise CimemError("the audit sample needs a size of at least 1")
    cube = prep.cube
    index = cell_index(store, cube)
    cells = suggest_audit(prep, size, seed)
    private = set(prep.priv_rows.tolist())
    rows = []
    for p, t in zip(cells.pair.tolist(), cells.trial.tolist()):
        ctx, attr = int(cube.pair_ctx[p]), int(cube.pair_attr[p])
        yes = bool((int(cube.pair_mask[p]) >> t) & 1)
        is_private = p in private
        rows.append(
            SampleRow(
                message_id=index.message_of[(ctx, t)],
                profile=cube.profile_names[int(cube.ctx_profile[ctx])],
                recipient=cube.ctx_recipient[ctx],
                task=cube.ctx_task[ctx],
                trial=t,
                attr_id=int(cube.attr_ids[attr]) if cube.attr_ids is not None else attr,
                attribute=cube.attr_key[attr],
                label="private" if is_private else "share",
                judge_says="yes" if yes else "no",
                stratum=STRATA[(is_private, yes)],
            )
        )
    return sorted(rows, key=lambda r: (r.message_id, r.attr_id))
