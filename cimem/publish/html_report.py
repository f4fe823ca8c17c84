"""A report as one HTML file that opens offline in any browser: styles inline, charts as inline
SVG, no script and no external resource, so it makes no network request. A run's details sit
in tabs (plain HTML radio buttons and CSS); printed, every tab is shown, one after another."""

from __future__ import annotations

from html import escape

import pandas as pd

from cimem.analysis.growth import Line
from cimem.analysis.intervals import INTERVALS_SAID
from cimem.publish import palette
from cimem.publish.content import Report, RunCurve, RunDetail
from cimem.publish.html_table import table_html
from cimem.publish.svg import Axes, Series, chart

PAGE_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1b;
 max-width:1100px;margin:2rem auto;padding:0 1.5rem;line-height:1.45}
h1{font-size:1.8rem;margin-bottom:.2rem} h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
.how,.note{color:#555;font-size:.9rem}
.tabs input{position:absolute;opacity:0}
.tabs label{display:inline-block;padding:.35rem .8rem;border:1px solid #ccc;border-bottom:none;
 border-radius:6px 6px 0 0;margin-right:2px;cursor:pointer;background:#f4f4f4;font-size:.9rem}
.tabs input:checked+label{background:#fff;font-weight:600}
.tabs input:focus-visible+label{outline:2px solid #0072B2}
.panel{display:none;border-top:1px solid #ccc;padding-top:.5rem}
.heat{font-size:12px} .heat td.cell{text-align:right;min-width:2.4rem}
.warn{border-left:4px solid #D55E00;background:#fbeee6;padding:.5rem .8rem}
@page{size:A4 landscape;margin:12mm}
@media print{
 body{max-width:none;margin:0;font-size:11px} .tabs label{display:none}
 .panel{display:block!important} .panel h3.run{break-before:page}
 table,svg,figure{break-inside:avoid} h2,h3,h4{break-after:avoid}
 div[style*="overflow"]{overflow:visible!important}
 .cimem-table td,.cimem-table th{padding:2px 4px;font-size:10px}
}
"""


def report_html(report: Report) -> str:
    """The whole report as an HTML document."""
    runs = [o.run for o in report.origins]
    colours = palette.run_colours(runs)
    body = [
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="how">Made by cimem {escape(report.version)} on {escape(report.generated)}'
        f" from {escape(report.database)}: {escape(report.how)}.</p>",
        *([f'<p class="warn">{escape(w)}</p>'] if (w := report.simulated_warning) else []),
        *_overview(report, colours),
        *_growth(report.curves, colours),
        "<h2>Each run</h2>",
        _tabs(report.details),
        *_provenance(report),
    ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(report.title)}</title><style>{_tab_rules(len(report.details))}"
        f"{PAGE_STYLE}</style></head><body>{''.join(body)}</body></html>"
    )


def _overview(report: Report, colours: dict[str, str]) -> list[str]:
    digits = {"Violation@n %": 2, "Completeness %": 2}
    more_digits = {c: 2 for c in report.more.columns if report.more[c].dtype.kind == "f"}
    return [
        "<h2>Overview</h2>",
        table_html(report.headline, digits=digits),
        f'<p class="note">{escape(report.note)}. Mean over profiles; {INTERVALS_SAID}.</p>',
        "<h3>More columns: level, judge, spread, per-message leak rate, joint outcomes</h3>",
        table_html(report.more, digits=more_digits),
        "<h3>Privacy against utility</h3>",
        _tradeoff(report.tradeoff, colours),
    ]


def _tradeoff(points: pd.DataFrame, colours: dict[str, str]) -> str:
    """Each run a point, labelled; the Pareto front dashed when it joins two or more runs."""
    names = [str(n) for n in points["name"]]
    xs, ys = points["violation"].to_numpy(float), points["completeness"].to_numpy(float)
    series = [
        Series(
            name=name,
            colour=colours.get(name, palette.OTHER),
            points=[(float(x), float(y))],
            joined=False,
            tips=[f"{name}: Violation@n {x:.2f}%, Completeness {y:.2f}%"],
            labels=[name],
        )
        for name, x, y in zip(names, xs, ys)
    ]
    front = points[points["pareto"]].sort_values("violation")
    if len(front) > 1:
        series.append(
            Series(
                name="Pareto front of these runs",
                colour=palette.OTHER,
                points=list(zip(front["violation"], front["completeness"])),
                dash="5 4",
            )
        )
    axes = Axes(
        "Violation@n (%) — lower is better",
        "Completeness (%) — higher is better",
        (0, 100),
        (0, 100),
    )
    return f"<figure>{chart(series, axes, height=380)}</figure>" if len(points) else ""


def _growth(curves: list[RunCurve], colours: dict[str, str]) -> list[str]:
    """Observed Violation (solid) against 1-(1-p)^k (dashed) as tasks accumulate, at most eight
    runs a chart."""
    out = ["<h2>Violation as tasks accumulate</h2>"]
    for group in palette.groups(curves):
        series: list[Series] = []
        for c in group:
            for line, values, dash in (
                (Line.OBSERVED, c.observed, ""),
                (Line.THEORY, c.theory, "5 4"),
            ):
                pts = [(t, 100 * v) for t, v in zip(c.tasks, values) if v is not None]
                tips = [f"{c.run}, {line}: T = {t}, {v:.2f}%" for t, v in pts]
                series.append(
                    Series(line, colours[c.run], pts, dash=dash, tips=tips, in_legend=False)
                )
        series += [Series(c.run, colours[c.run], []) for c in group]
        series += [Series(Line.OBSERVED, "#444", []), Series(Line.THEORY, "#444", [], dash="5 4")]
        top = max((y for s in series for _, y in s.points), default=1.0)
        t_max = max((c.tasks[-1] for c in group if c.tasks), default=1)
        axes = Axes(
            "tasks T (random order)",
            "Violation@k (%), k = all samples",
            (1, max(t_max, 2)),
            (0, max(5.0, top * 1.1)),
        )
        out.append(f"<figure>{chart(series, axes)}</figure>")
    notes = [
        f"{c.run}: method {c.method}, k = {c.k}"
        + (
            f", Monte Carlo standard error at most {100 * c.largest_error:.3f} points"
            if c.largest_error
            else ""
        )
        for c in curves
    ]
    out.append(f'<p class="note">{escape("; ".join(notes))}.</p>')
    return out


def _tab_rules(count: int) -> str:
    """The CSS that shows the panel of the checked tab (one rule per tab)."""
    return "".join(f"#tab{i}:checked~#panel{i}{{display:block}}" for i in range(count))


def _tabs(details: list[RunDetail]) -> str:
    heads, panels = [], []
    for i, d in enumerate(details):
        checked = " checked" if i == 0 else ""
        heads.append(
            f'<input type="radio" name="run" id="tab{i}"{checked}>'
            f'<label for="tab{i}">{escape(d.run)}</label>'
        )
        panels.append(f'<div class="panel" id="panel{i}">{_detail(d)}</div>')
    return f'<div class="tabs">{"".join(heads)}{"".join(panels)}</div>'


def _detail(d: RunDetail) -> str:
    parts = [
        f'<h3 class="run">{escape(d.run)}</h3>',
        "<h4>Most leaked attributes</h4>",
        table_html(d.attributes, digits={"leak rate %": 2})
        if len(d.attributes)
        else "<p>No leak.</p>",
        "<h4>Recipients</h4>",
        table_html(d.recipients, digits={c: 2 for c in d.recipients.columns if "%" in c}),
        "<h4>Where the most leaked attributes leak (leak % of samples, by task)</h4>",
        _heatmap(d.heatmap),
        "<h4>Judges</h4>",
        table_html(d.judges) if len(d.judges) else "<p>Read from a file: its verdicts only.</p>",
        "<h4>Audit</h4>",
        _audit(d),
        "<h4>Message health</h4>",
        table_html(d.health_table())
        if d.health is not None
        else "<p>Read from a file: no health scan.</p>",
    ]
    return "".join(parts)


def _heatmap(cells: pd.DataFrame) -> str:
    """Attribute x task as a table: the leak % written in each cell, its shade darker with it
    (one hue, so lightness alone carries it for every reader)."""
    if cells.empty:
        return "<p>No withheld attribute leaked.</p>"
    rows = cells.sort_values("row_order")["key"].astype(str).unique().tolist()
    every = cells.sort_values("column_order")["context"].astype(str).unique().tolist()
    cols = every[:HEAT_COLUMNS]
    share_at = dict(
        zip(
            zip(cells["key"].astype(str), cells["context"].astype(str)),
            cells["frequency"].to_numpy(float),
        )
    )
    counts_at = dict(
        zip(
            zip(cells["key"].astype(str), cells["context"].astype(str)),
            zip(cells["leaks"], cells["samples"]),
        )
    )
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = []
    for key in rows:
        tds = []
        for ctx in cols:
            if (key, ctx) not in share_at:
                tds.append('<td class="cell"></td>')
                continue
            share = float(share_at[key, ctx])
            leaks, samples = counts_at[key, ctx]
            tip = f"{key} → {ctx}: {leaks} of {samples} samples"
            ink = "#fff" if share > 0.55 else "#1b1b1b"
            tds.append(
                f'<td class="cell" title="{escape(tip)}" style="background:{_shade(share)};'
                f'color:{ink}">{100 * share:.0f}</td>'
            )
        body.append(f"<tr><th>{escape(key)}</th>{''.join(tds)}</tr>")
    more = (
        f'<p class="note">The {HEAT_COLUMNS} tasks with most leaks of {len(every)}.</p>'
        if len(every) > HEAT_COLUMNS
        else ""
    )
    return more + (
        '<div style="overflow-x:auto"><table class="cimem-table heat">'
        f"<thead><tr><th>attribute</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


HEAT_COLUMNS = 8  # tasks a heatmap shows (those with most leaks): it fits a printed page


def _shade(share: float) -> str:
    """White to Okabe-Ito vermillion (#D55E00) by the share."""
    s = min(max(share, 0.0), 1.0)
    r, g, b = (round(255 + (c - 255) * s) for c in (0xD5, 0x5E, 0x00))
    return f"#{r:02x}{g:02x}{b:02x}"


def _audit(d: RunDetail) -> str:
    if d.corrected is None:
        return f"<p>{escape(d.audit_note)}</p>"
    rows = d.corrected.rows()
    return table_html(pd.DataFrame(rows)) + f'<p class="note">{escape(d.audit_note)}</p>'


_HASH_STYLE = "font-family:monospace;font-size:11px;word-break:break-all;min-width:9rem"


def _provenance(report: Report) -> list[str]:
    table = report.provenance_table()
    return [
        "<h2>Provenance</h2>",
        f'<p class="how">{escape(report.how)}. cimem {escape(report.version)}; database'
        f" {escape(report.database)}. The sha256 is the run's source file as imported; the"
        " profile set is a hash of the sorted profile names (runs with equal hashes ran on"
        " the same people).</p>",
        table_html(
            table, styles={"sha256": lambda _: _HASH_STYLE, "profile set": lambda _: _HASH_STYLE}
        ),
    ]
