"""Runs shown once more under another judge (Overview and Growth): the sidebar's picker, the
URL parameter ``also=RUN:JUDGE,...`` (judge 0: the original verdicts), and the name of each
view of a run shown more than once."""

from __future__ import annotations

import streamlit as st

from webapp import cache
from webapp.cache import DbScope


def picker(
    db: DbScope, run_ids: list[int], judges: dict[int, int]
) -> dict[int, tuple[int, int | None]]:
    """Runs to show once more under another judge on Overview and Growth (say, the original
    verdicts beside a re-judge), as view keys -1, -2, ... in the order chosen."""
    options = [
        f"{r}:{j.judge_id if j else 0}"
        for r in run_ids
        if len(cache.judges_of(db, r)) > 1
        for j in (None, *cache.judges_of(db, r))
        if (j.judge_id if j else None) != judges.get(r)
    ]
    if not options:
        return {}
    asked = [x for x in st.query_params.get("also", "").split(",") if x in options]
    chosen = st.multiselect(
        "Also show under another judge",
        options,
        default=asked,
        format_func=lambda o: _view_label(db, o),
        key="also",
        help="Overview and Growth show these runs once more under the judge named, beside the"
        " judge chosen above, each named by its judge",
    )
    return {-(i + 1): _run_judge(o) for i, o in enumerate(chosen)}


def _run_judge(option: str) -> tuple[int, int | None]:
    run, _, judge = option.partition(":")
    return int(run), (int(judge) or None)


def _judge_phrase(db: DbScope, run_id: int, judge: int | None) -> str:
    if judge is None:
        return "original verdicts"
    name = next((j.name for j in cache.judges_of(db, run_id) if j.judge_id == judge), "?")
    return f"judge {judge}: {name}"


def _view_label(db: DbScope, option: str) -> str:
    run, judge = _run_judge(option)
    return f"run {run} under {_judge_phrase(db, run, judge)}"


def names(
    db: DbScope, run_ids: list[int], judges: dict[int, int], also: dict[int, tuple[int, int | None]]
) -> dict[int, str]:
    """The judge that names each view of a run shown more than once."""
    doubled = {run for run, _ in also.values()}
    names = {r: _judge_phrase(db, r, judges.get(r)) for r in run_ids if r in doubled}
    return names | {k: _judge_phrase(db, run, judge) for k, (run, judge) in also.items()}


def keep_in_url(also: dict[int, tuple[int, int | None]]) -> None:
    said = ",".join(f"{run}:{judge or 0}" for run, judge in also.values())
    if said:
        st.query_params["also"] = said
    elif "also" in st.query_params:
        del st.query_params["also"]
