"""Every colour that carries a meaning stays distinct for readers with protanopia or
deuteranopia: each set of colours is passed through a simulation of the deficiency (Machado,
Oliveira and Fernandes 2009, full severity, in linear RGB) and its closest pair must stay apart
in CIELAB. Red, orange and green lines were one colour under deuteranopia before this test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cimem.publish.palette import OKABE_ITO, OTHER
from webapp.charts.growth_attribute import HAZARD_COLOURS
from webapp.charts.growth_composition import COLOURS as COMPOSITION
from webapp.charts.learn_simulator import CURVE_COLOURS
from webapp.message_view import EVIDENCE_COLOURS
from webapp.render import LABEL_COLOURS, LEAK_COLOURS

MACHADO = {
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
}
SRGB_TO_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
)
WHITE = np.array([0.95047, 1.0, 1.08883])
APART = 12.0  # CIELAB distance: clearly two colours side by side
# colours that mean something alone (lines, run colours, highlights, the label swatches)
MEANINGFUL = {
    "runs (every chart)": list(OKABE_ITO) + [OTHER],
    "evidence highlights": list(EVIDENCE_COLOURS.values()),
    "label colours": list(LABEL_COLOURS.values()),
    "memory composition lines": list(COMPOSITION.values()),
    "Learn simulator lines": list(CURVE_COLOURS),
    "one attribute's hazards": list(HAZARD_COLOURS.values()),
    "heatmap ramp": LEAK_COLOURS,
}


def linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    t = SRGB_TO_XYZ @ rgb / WHITE
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(hex_colour: str, deficiency: str | None) -> np.ndarray:
    rgb = linear(hex_colour)
    if deficiency is not None:
        rgb = np.clip(np.array(MACHADO[deficiency]) @ rgb, 0, 1)
    return lab(rgb)


def closest(colours: list[str], deficiency: str | None) -> tuple[float, tuple[str, str]]:
    pairs = list(itertools.combinations(colours, 2))
    gaps = [float(np.linalg.norm(seen(a, deficiency) - seen(b, deficiency))) for a, b in pairs]
    return min(gaps), pairs[int(np.argmin(gaps))]


def test_the_simulation_merges_red_and_green():
    """The check can fail: the classic red and green are one colour to a deuteranope."""
    assert closest(["#d62728", "#2ca02c"], None)[0] > 40
    assert closest(["#d62728", "#2ca02c"], "deuteranopia")[0] < APART


@pytest.mark.parametrize("deficiency", [None, "protanopia", "deuteranopia"])
@pytest.mark.parametrize("name", list(MEANINGFUL))
def test_meaningful_colours_stay_apart(name, deficiency):
    gap, pair = closest(MEANINGFUL[name], deficiency)
    assert gap >= APART, f"{name}: {pair} are {gap:.1f} apart for {deficiency or 'everyone'}"
