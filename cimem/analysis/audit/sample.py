"""The audit sample: a seeded sample of a judge's decisions stratified by label (private,
share) and the judge's verdict (yes, no), sized for estimating its error rates, as cells of a
prepared run and as rows a reviewer works on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.audit.cells import AuditCells, cell_index
from cimem.analysis.metrics import Prepared
from cimem.errors import CimemError
from cimem.store import Store

# private & judge yes, private & judge no, share & judge yes, share & judge no. The first cell
# decides the false-positive rate that a maximum over many cells amplifies, so it gets the most.
AUDIT_SHARES = (0.4, 0.2, 0.2, 0.2)


def suggest_audit(
    prep: Prepared, size: int, seed: int = 0, shares: tuple[float, ...] = AUDIT_SHARES
) -> AuditCells:
    """A stratified sample of usable cells for estimating the judge's error rates: ``shares`` of
    ``size`` from the four strata (label private/share x judge yes/no); a stratum smaller than its
    share is taken whole and the rest goes to the others. ``revealed`` is False (people fill it)."""
    rng = np.random.default_rng(seed)
    cube = prep.cube
    cells: list[tuple[np.ndarray, np.ndarray]] = []
    for rows in (prep.priv_rows, prep.need_rows):
        samples = prep.samples[cube.pair_ctx[rows]]
        for judged_yes in (True, False):
            r_list, t_list = [], []
            for t in range(prep.k):
                bit = np.uint64(1) << np.uint64(t)
                usable = (samples & bit) != 0
                yes = (cube.pair_mask[rows] & bit) != 0
                pick = usable & (yes if judged_yes else ~yes)
                r_list.append(rows[pick])
                t_list.append(np.full(int(pick.sum()), t))
            cells.append((np.concatenate(r_list), np.concatenate(t_list)))
    sizes = np.array([len(r) for r, _ in cells])
    total = min(size, int(sizes.sum()))
    take = np.minimum(np.floor(np.asarray(shares) * total).astype(np.int64), sizes)
    while take.sum() < total:  # give what a small stratum cannot take to the others, in order
        open_ = np.flatnonzero(take < sizes)
        take[open_[int(np.argmax(np.asarray(shares)[open_]))]] += 1
    pair, trial = [], []
    for (rows_of, trials_of), n in zip(cells, take):
        idx = rng.choice(len(rows_of), size=int(n), replace=False)
        pair.append(rows_of[idx])
        trial.append(trials_of[idx])
    p = np.concatenate(pair).astype(np.int64)
    return AuditCells(p, np.concatenate(trial).astype(np.int64), np.zeros(len(p), bool))


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
    verdict (:func:`suggest_audit`), as rows a reviewer can work on."""
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
