"""A run's judges for a report: who judged, with which model and prompt, how much of the run, and
how often each agrees with the judge the report's numbers rest on (on the cells both decided)."""

from __future__ import annotations

import pandas as pd

from cimem.analysis.agreement import agreement, format_kappa
from cimem.analysis.cube import LeakCube
from cimem.store import Store


def judge_table(store: Store, cube: LeakCube, label_rule: str) -> pd.DataFrame:
    """One row per judge of the cube's run; the judge the numbers rest on is marked "shown"."""
    run_id, shown = cube.info.run_id, cube.info.judge_id
    if run_id is None:
        return pd.DataFrame()
    coverage = {c.judge_id: c for c in store.judge_coverage(run_id)}
    rows = []
    for j in store.judges(run_id):
        cov = coverage.get(j.judge_id)
        rows.append(
            {
                "judge": f"{j.judge_id}: {j.name}" + (" (shown)" if j.judge_id == shown else ""),
                "kind": str(j.kind),
                "model": j.model or "-",
                "prompt hash": (j.prompt_hash or "-")[:12],
                "judged": cov.describe() if cov is not None else "-",
                **_agreement_cells(store, shown, j.judge_id, label_rule),
            }
        )
    return pd.DataFrame(rows)


def _agreement_cells(
    store: Store, shown: int | None, other: int, label_rule: str
) -> dict[str, str]:
    """Agreement and Cohen's kappa with the shown judge, with the cells both decided."""
    if shown is None or other == shown:
        return {"agreement with shown": "-", "kappa": "-", "cells both decided": "-"}
    a = agreement(store, shown, other, label_rule, max_disagreements=0).overall
    if not a.n:
        return {"agreement with shown": "-", "kappa": "-", "cells both decided": "0"}
    lo, hi = a.agreement_ci95
    return {
        "agreement with shown": f"{100 * a.agreement:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
        "kappa": format_kappa(a.kappa),
        "cells both decided": f"{a.n:,}",
    }
