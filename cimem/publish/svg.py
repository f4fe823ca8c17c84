"""Charts as inline SVG for a report that makes no network request: axes with titles and units,
a legend, lines told apart by colour (Okabe-Ito) and by dash, points with a tooltip (the
browser's own, from ``<title>``) and optional labels. Every text from data is escaped."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"
MARGIN = (16, 24, 52, 60)  # top, right, bottom, left (px): room for the axis titles
LEGEND_COLUMNS = 2
CHAR_PX = 6.8  # the width of a character at the legend's size, about


@dataclass(frozen=True)
class Series:
    """One line or set of points: its legend name, colour, dash (SVG dasharray, "" solid),
    whether its points are joined, and a tooltip and a label per point. A series without points
    is a legend entry only."""

    name: str
    colour: str
    points: Sequence[tuple[float, float]]
    dash: str = ""
    joined: bool = True
    tips: Sequence[str] = ()
    labels: Sequence[str] = ()
    in_legend: bool = True  # False: drawn, and named by other entries (a run, a line style)


@dataclass(frozen=True)
class Axes:
    """The chart's axes: titles (with units) and the ranges they span."""

    x_title: str
    y_title: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round ticks (steps of 1, 2 or 5 times a power of ten) over the range.

    >>> nice_ticks(0, 100)
    [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    >>> nice_ticks(1, 23)
    [5.0, 10.0, 15.0, 20.0]
    """
    span = max(high - low, 1e-9)
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    ticks, t = [], first
    while t <= high + 1e-9:
        ticks.append(float(round(t, 10)))
        t += step
    return ticks


def chart(series: Sequence[Series], axes: Axes, width: int = 720, height: int = 360) -> str:
    """The chart as an ``<svg>`` element (its legend below the plot)."""
    top, right, bottom, left = MARGIN
    plot_w, plot_h = width - left - right, height - top - bottom
    (x0, x1), (y0, y1) = axes.x_range, axes.y_range

    def px(x: float) -> float:
        return left + (x - x0) / max(x1 - x0, 1e-9) * plot_w

    def py(y: float) -> float:
        return top + plot_h - (y - y0) / max(y1 - y0, 1e-9) * plot_h

    named = [s for s in series if s.in_legend]
    legend_rows = -(-len(named) // LEGEND_COLUMNS)
    total_h = height + 22 * legend_rows + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {total_h}"'
        f' width="100%" style="max-width:{width}px;{FONT}" role="img">',
        *_grid(axes, px, py, left, top, plot_w, plot_h),
    ]
    for s in series:
        parts.extend(_series(s, px, py))
    parts.extend(_legend(named, left, height + 4, plot_w))
    parts.append("</svg>")
    return "".join(parts)


Scale = Callable[[float], float]


def _grid(
    axes: Axes, px: Scale, py: Scale, left: int, top: int, plot_w: int, plot_h: int
) -> list[str]:
    """Gridlines, tick labels and the two axis titles."""
    out = []
    for t in nice_ticks(*axes.y_range):
        y = py(t)
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#444">{_num(t)}</text>'
        )
    for t in nice_ticks(*axes.x_range):
        x = px(t)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#eee"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="11" text-anchor="middle" fill="#444">{_num(t)}</text>'
        )
    out.append(
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>'
    )
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 38}" font-size="12"'
        f' text-anchor="middle" fill="#222">{escape(axes.x_title)}</text>'
    )
    mid = top + plot_h / 2
    out.append(
        f'<text x="14" y="{mid:.1f}" font-size="12" text-anchor="middle" fill="#222"'
        f' transform="rotate(-90 14 {mid:.1f})">{escape(axes.y_title)}</text>'
    )
    return out


def _series(s: Series, px: Scale, py: Scale) -> list[str]:
    """A line (when joined) and its points, each with its tooltip and label."""
    out = []
    dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
    if s.joined and len(s.points) > 1:
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="2"{dash}/>'
        )
    radius = 2.5 if s.joined else 5
    for i, (x, y) in enumerate(s.points):
        tip = escape(s.tips[i]) if i < len(s.tips) else escape(s.name)
        out.append(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="{radius}" fill="{s.colour}"'
            f' stroke="#fff" stroke-width="0.8"><title>{tip}</title></circle>'
        )
        if i < len(s.labels) and s.labels[i]:
            out.append(
                f'<text x="{px(x) + 7:.1f}" y="{py(y) - 6:.1f}" font-size="11"'
                f' fill="#222">{escape(s.labels[i])}</text>'
            )
    return out


def _legend(series: Sequence[Series], left: int, top: float, width: int) -> list[str]:
    """Entries in rows of :data:`LEGEND_COLUMNS`: a swatch drawn as the series is (colour and
    dash), its name (cut to fit, whole in its tooltip)."""
    out = []
    col_w = width / LEGEND_COLUMNS
    fits = int((col_w - 36) / CHAR_PX)
    for i, s in enumerate(series):
        row, col = divmod(i, LEGEND_COLUMNS)
        x, y = left + col * col_w, top + 22 * row + 14
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        if s.joined:
            out.append(
                f'<line x1="{x:.1f}" x2="{x + 24:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{s.colour}" stroke-width="2.5"{dash}/>'
            )
        else:
            out.append(f'<circle cx="{x + 12:.1f}" cy="{y:.1f}" r="5" fill="{s.colour}"/>')
        out.append(
            f'<text x="{x + 30:.1f}" y="{y + 4:.1f}" font-size="12" fill="#222">'
            f"{escape(_short(s.name, fits))}<title>{escape(s.name)}</title></text>"
        )
    return out


def _short(text: str, width: int) -> str:
    """A long name cut to ``width`` characters, keeping its end (where run names differ)."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
