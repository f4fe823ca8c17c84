"""The audit sample: the first cells of the audit's review order (:mod:`.plan`) from a run's
start, as cells of a prepared run and as rows a reviewer works on, in the order to decide them.

Read in that order, each stratum's draws are decided as a prefix, which is what the correction
counts (:mod:`.estimate`). A withheld attribute's draw lists the cells its judge called revealed;
the first that people find revealed decides it, and the rest of its cells may be passed over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.audit.cells import AuditCells, cell_index
from cimem.analysis.audit.correction import populations
from cimem.analysis.audit.design import Metric, people_on_cells
from cimem.analysis.audit.plan import review_order
from cimem.analysis.metrics import Prepared
from cimem.errors import CimemError
from cimem.store import Store

STRATA = {
    (Metric.VIOLATION, True): "private, judge yes",
    (Metric.VIOLATION, False): "private, judge no",
    (Metric.COMPLETENESS, True): "share, judge yes",
    (Metric.COMPLETENESS, False): "share, judge no",
}


@dataclass(frozen=True)
class SampledCells:
    """The sample's cells in review order, with the draw (1, 2, ...) and stratum of each."""

    cells: AuditCells
    draw: np.ndarray  # int64
    stratum: list[str]


def suggest_audit(prep: Prepared, size: int, seed: int = 0) -> SampledCells:
    """The first ``size`` cells of the review order of a run no person has audited yet (each
    draw's cells whole, so a draw's last cells may pass ``size``). ``revealed`` is False
    (people fill it)."""
    pops = populations(prep)
    people = tuple(people_on_cells(p, AuditCells.empty()) for p in pops)
    by_metric = {p.metric: p for p in pops}
    pair: list[np.ndarray] = []
    trial: list[np.ndarray] = []
    draw: list[np.ndarray] = []
    stratum: list[str] = []
    taken = 0
    for n, planned in enumerate(review_order(pops, people, seed), start=1):
        if taken >= size:
            break
        pop = by_metric[planned.metric]
        cells = pop.cells_of(planned.unit)
        pair.append(pop.cell_pair[cells])
        trial.append(pop.cell_trial[cells])
        draw.append(np.full(cells.stop - cells.start, n, np.int64))
        stratum += [STRATA[(planned.metric, planned.judge_yes)]] * (cells.stop - cells.start)
        taken += cells.stop - cells.start
    p = np.concatenate(pair) if pair else np.zeros(0, np.int64)
    return SampledCells(
        AuditCells(p, np.concatenate(trial) if trial else p, np.zeros(len(p), bool)),
        np.concatenate(draw) if draw else p,
        stratum,
    )


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
    draw: int  # the draw it belongs to, in review order (1 first)


def audit_sample(store: Store, prep: Prepared, size: int, seed: int) -> list[SampleRow]:
    """The audit sample's first ``size`` cells (:func:`suggest_audit`) as rows a reviewer can
    work on, in the order to decide them."""
    if size < 1:
        raise CimemError("the audit sample needs a size of at least 1")
    cube = prep.cube
    index = cell_index(store, cube)
    sampled = suggest_audit(prep, size, seed)
    cells = sampled.cells
    rows = []
    for i, (p, t) in enumerate(zip(cells.pair.tolist(), cells.trial.tolist())):
        ctx, attr = int(cube.pair_ctx[p]), int(cube.pair_attr[p])
        yes = bool((int(cube.pair_mask[p]) >> t) & 1)
        stratum = sampled.stratum[i]
        message_id = index.message_of[(ctx, t)]
        rows.append(
            SampleRow(
                message_id=message_id,
                profile=cube.profile_names[int(cube.ctx_profile[ctx])],
                recipient=cube.ctx_recipient[ctx],
                task=cube.ctx_task[ctx],
                trial=index.trial_of[message_id],
                attr_id=int(cube.attr_ids[attr]) if cube.attr_ids is not None else attr,
                attribute=cube.attr_key[attr],
                label=stratum.split(",")[0],
                judge_says="yes" if yes else "no",
                stratum=stratum,
                draw=int(sampled.draw[i]),
            )
        )
    return rows


def undecided_sample(store: Store, prep: Prepared, size: int, seed: int) -> list[SampleRow]:
    """The next ``size`` cells of the review order that people have not decided (whole draws:
    a draw's last cells may pass ``size``), skipping the draws people decided; what more audit
    needs (``audit-plan`` counts these). People's verdicts are those of the run's human judge."""
    human = store.find_human_judge(prep.cube.info.run_id) if prep.cube.info.run_id else None
    said = store.settled_human_verdicts(human) if human is not None else {}
    asked = size
    while True:
        rows = audit_sample(store, prep, asked, seed)
        done = draws_done(rows, said)
        left = [r for r in rows if not done[r.draw]]
        if len(left) >= size or len(rows) < asked:
            break
        asked = 2 * asked + size - len(left)  # each draw of the order re-reads its cells
    out: list[SampleRow] = []
    for r in left:
        if len(out) >= size and r.draw != out[-1].draw:
            break
        out.append(r)
    return out


def draws_done(rows: list[SampleRow], said: dict[tuple[int, int], bool]) -> dict[int, bool]:
    """Per draw of the sample, whether people decided it: one of its cells found revealed, or
    every cell decided (``said``: people's verdict per (message_id, attr_id))."""
    cells: dict[int, list[SampleRow]] = {}
    for r in rows:
        cells.setdefault(r.draw, []).append(r)
    return {
        d: any(said.get((c.message_id, c.attr_id)) for c in cs)
        or all((c.message_id, c.attr_id) in said for c in cs)
        for d, cs in cells.items()
    }
