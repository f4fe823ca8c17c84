"""A report as Markdown, for a pull request or a wiki: the same numbers as the HTML report in
tables (no charts: the growth curve as a table at a few task counts), every text from data
escaped so it shows as written and never becomes a link, an image or markup."""

from __future__ import annotations

import re

import pandas as pd

from cimem.analysis.intervals import INTERVALS_SAID
from cimem.publish.content import Report, RunCurve, RunDetail

_SPECIAL = re.compile(r"([\\`*_\[\]|<>~#])")  # what makes emphasis, code, links, HTML, cells


def md_text(value: object) -> str:
    """Text shown literally by a Markdown renderer (a newline becomes a space in a table).

    >>> md_text("a|b *c* <x>")
    'a\\\\|b \\\\*c\\\\* \\\\<x\\\\>'
    """
    text = "" if value is None else str(value)
    return _SPECIAL.sub(r"\\\1", text.replace("\r", " ").replace("\n", " "))


def md_table(frame: pd.DataFrame, digits: int = 2) -> str:
    """A GitHub-flavoured table; numbers with ``digits`` decimals, a missing one "-"."""
    if frame.empty:
        return "_(none)_"

    def cell(v: object) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "-"
        if isinstance(v, float):
            return f"{v:,.{digits}f}"
        return md_text(v)

    head = "| " + " | ".join(md_text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def report_markdown(report: Report) -> str:
    parts = [
        f"# {md_text(report.title)}",
        f"Made by cimem {md_text(report.version)} on {md_text(report.generated)} from"
        f" {md_text(report.database)}: {md_text(report.how)}.",
        *([f"> **{md_text(w)}**"] if (w := report.simulated_warning) else []),
        "## Overview",
        md_table(report.headline),
        f"{md_text(report.note)}. Mean over profiles; {INTERVALS_SAID}.",
        md_table(report.more),
        "## Violation as tasks accumulate (random order, k = all samples, %)",
        md_table(_growth_table(report.curves)),
    ]
    for d in report.details:
        parts.extend(_detail(d))
    parts.extend(["## Provenance", md_table(report.provenance_table())])
    return "\n\n".join(parts) + "\n"


def _growth_table(curves: list[RunCurve]) -> pd.DataFrame:
    """Observed / theory at T = 1, 2, 5, 10, 20 and all tasks (those a run has)."""
    rows = []
    for c in curves:
        if not c.tasks:
            continue
        wanted = sorted({t for t in (1, 2, 5, 10, 20) if t <= c.tasks[-1]} | {c.tasks[-1]})
        at = dict(zip(c.tasks, zip(c.observed, c.theory)))
        row: dict[str, object] = {"run": c.run}
        for t in wanted:
            obs, theo = at.get(t, (None, None))
            row[f"T={t}"] = "-" if obs is None else f"{100 * obs:.2f} / {100 * (theo or 0):.2f}"
        rows.append(row)
    return pd.DataFrame(rows).fillna("-")


def _detail(d: RunDetail) -> list[str]:
    out = [
        f"## {md_text(d.run)}",
        "### Most leaked attributes",
        md_table(d.attributes),
        "### Recipients",
        md_table(d.recipients),
        "### Judges",
        md_table(d.judges),
        "### Audit",
    ]
    if d.corrected is not None:
        rows = d.corrected.rows()
        out.append(md_table(pd.DataFrame(rows)))
    out.append(md_text(d.audit_note))
    if d.health is not None:
        out.extend(["### Message health", md_table(d.health_table())])
    return out
