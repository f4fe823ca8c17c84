"""Judge coverage: a judge that judged part of a run describes those messages only.

Run-level numbers (Violation@n, Completeness, the Leaks and Growth views) from such a judge look
like the run's but are not, so they are refused unless asked for; then they say "over N of M
messages". Agreement with a partial judge needs no gate: it is computed on the shared messages.
"""

from __future__ import annotations

from collections.abc import Iterable

from cimem.analysis.cube import LeakCube
from cimem.errors import CimemError


class PartialJudge(CimemError):
    """A judge covers part of a run and run-level numbers were asked for without consent."""


def partial_note(cube: LeakCube) -> str | None:
    """'over N of M messages (judge J covers part of run R)' for a partial judge, else None."""
    cov = cube.info.coverage
    if cov is None or not cov.partial:
        return None
    return f"over {cov.describe()} (judge {cov.judge_id} covers part of run {cube.run})"


def require_coverage(cube: LeakCube, allow_partial: bool, how_to_allow: str) -> None:
    """Raise :class:`PartialJudge` when the cube's judge covers part of its run and
    ``allow_partial`` is false; ``how_to_allow`` names the switch (a flag, a checkbox)."""
    cov = cube.info.coverage
    if allow_partial or cov is None or not cov.partial:
        return
    raise PartialJudge(
        f"judge {cov.judge_id} judged {cov.describe()} of run {cube.run}: run-level numbers"
        f" from it would describe those messages only. Choose a judge that covers the run, or"
        f" {how_to_allow} to compute them over the {cov.judged} judged messages."
    )


def check_coverage(
    cubes: Iterable[LeakCube], allow_partial: bool, how_to_allow: str
) -> list[tuple[str, str]]:
    """The coverage gate for run-level numbers over several cubes (the CLI and the pages).

    Raise :class:`PartialJudge` for the first cube whose judge covers part of its run unless
    ``allow_partial``; otherwise return ``(run, note)`` for each such cube, the note being
    :func:`partial_note`'s text (none when every judge covers its run)."""
    cubes = list(cubes)
    for c in cubes:
        require_coverage(c, allow_partial, how_to_allow)
    return [(c.run, note) for c in cubes if (note := partial_note(c)) is not None]
