"""The runs' colours on every chart: Okabe and Ito's categorical palette, which readers with any
common colour-vision deficiency tell apart, given to runs by their place in the selection so a
run has the same colour on Growth and on Overview; and the most runs one chart draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#F0E442",  # yellow
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#000000",  # black
)
MAX_RUNS_PER_CHART = len(OKABE_ITO)  # more runs: small multiples of at most this many
OTHER = "#555555"  # not a run of this database (the published numbers); apart from every run colour
# under deuteranopia too (a mid grey was one with the bluish green)


def run_colours(runs: Sequence[str]) -> dict[str, str]:
    """Each run's colour by its place in the selection (the ninth takes the first colour again,
    and is drawn in another chart of the small multiples).

    >>> run_colours(["a", "b"])
    {'a': '#E69F00', 'b': '#56B4E9'}
    >>> run_colours([str(i) for i in range(9)])["8"]
    '#E69F00'
    """
    return {r: OKABE_ITO[i % len(OKABE_ITO)] for i, r in enumerate(runs)}


def groups(runs: Sequence[T], size: int = MAX_RUNS_PER_CHART) -> list[list[T]]:
    """The runs cut into consecutive groups of at most ``size``, as even as they go (20 runs:
    7, 7, 6), one chart each; a group's runs keep their colours (their places differ by less
    than ``size``, so no two in a group share one).

    >>> [len(g) for g in groups(list(range(20)))], groups([1, 2, 3])
    ([7, 7, 6], [[1, 2, 3]])
    """
    if not runs:
        return []
    charts = -(-len(runs) // size)
    base, extra = divmod(len(runs), charts)
    out, start = [], 0
    for i in range(charts):
        end = start + base + (1 if i < extra else 0)
        out.append(list(runs[start:end]))
        start = end
    return out
