"""The memory-composition curve (:mod:`cimem.analysis.composition`) as the rows its chart and
CSV draw, beside the growth curves: how leakage grows with the memory's size rather than with
tasks or samples."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from cimem.analysis.composition import CompositionCurve


class Measure(StrEnum):
    """The composition curve's three lines, as its legend names them."""

    LEAK_RATE = "leak rate of the withheld"
    ANY_LEAK = "messages leaking any withheld"
    COMPLETENESS = "completeness"


def composition_rows(comp: CompositionCurve) -> list[dict[str, Any]]:
    """One row per step and measure with a value: the step (memories of the curve's axis in the
    prompt, under the axis's name: ``withheld``, ``needed`` or ``memories``), the measure, its
    value in percent and the judged messages at that step; step by step, each step's measures
    in :class:`Measure` order."""
    rows: list[dict[str, Any]] = []
    for step, messages, *values in zip(
        comp.steps, comp.messages, comp.leak_rate, comp.any_leak, comp.completeness, strict=True
    ):
        for measure, value in zip(Measure, values, strict=True):
            if value is not None:
                rows.append(
                    {
                        str(comp.axis): step,
                        "measure": str(measure),
                        "value": 100 * value,
                        "messages": messages,
                    }
                )
    return rows
