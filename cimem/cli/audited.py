"""The run an audit command works on: a stored run under ``--judge``, with labels (the audit is
stratified by label) and a judge (it checks a judge's decisions). Shared by ``audit-queue``,
``audit-sample`` and ``audit-plan``."""

from __future__ import annotations

import argparse

from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.errors import CimemError
from cimem.store import Store


def labelled_cube(store: Store, run_id: int, args: argparse.Namespace) -> LeakCube:
    """The run under ``--judge``; it must have labels, since the audit sample is stratified by
    label."""
    cube = cube_from_store(store, run_id, args.judge)
    if not cube.has_labels:
        raise CimemError(f"run {run_id} has no labels: the sample is stratified by label")
    if cube.info.judge_id is None:
        raise CimemError(
            f"run {run_id} has no judge yet: an audit checks a judge's decisions (judge it with"
            " `python -m cimem judge`)"
        )
    return cube
