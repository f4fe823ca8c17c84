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
    """One row per step and measure with a value: withheld memories in the prompt, the
    measure, its value in percent and the judged messages at that step; step by step, each
    step's measures in :class:`Measure` order."""
    rows: list[dict[str, Any]] = []
    for withheld, messages, *values in zip(
        comp.steps, comp.messages, comp.leak_rate, comp.any_leak, comp.completeness, strict=True
    ):
        for measure, value in zip(Measure, values, strict=True):
            if value is not None:
                rows.append(
                    {
                        "withheld": withheld,
                        "measure": str(measure),
                        "value": 100 * value,
                        "messages": messages,
                    }
                )
    return rows
