"""``report``: chosen runs as one self-contained HTML file (or Markdown, or PDF) for readers who
install nothing; the numbers are the Overview's, Growth's and Leaks' own."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from cimem.cli.sources import RunReader, add_metric_args, add_source_args, options_from
from cimem.errors import CimemError
from cimem.paths import write_whole

if TYPE_CHECKING:
    from cimem.publish.content import Report

FORMATS = ("html", "md")


def cmd_report(args: argparse.Namespace) -> int:
    from cimem.publish.content import report_of_runs

    if args.runs:
        args.run = [*(args.run or []), *(r.strip() for r in args.runs.split(",") if r.strip())]
    if args.mode == "both":
        raise CimemError("a report is in one mode: give --mode official or --mode definition")
    opts = options_from(args, args.mode)
    with RunReader(args, many=True) as runs:
        count = len(runs)
        report = report_of_runs(runs.read, count, opts, runs.store, args.title or "")
    out = Path(args.out)
    if args.pdf:
        from cimem.publish.html_report import report_html
        from cimem.publish.pdf import html_to_pdf

        html_to_pdf(report_html(report), out)
    else:
        write_whole(out, _render(report, args.format))
    print(f"wrote {out}: {count} run{'s' if count != 1 else ''} ({report.how})")
    return 0


def _render(report: Report, fmt: str) -> str:
    if fmt == "md":
        from cimem.publish.markdown_report import report_markdown

        return report_markdown(report)
    from cimem.publish.html_report import report_html

    return report_html(report)


def add_report_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="a self-contained report of chosen runs (HTML, Markdown or PDF)",
        description="Chosen runs as one HTML file that opens offline with no network request"
        " (inline SVG charts, tabs per run, a print stylesheet): the Overview table with"
        " intervals and the trade-off chart, Violation as tasks accumulate, the most leaked"
        " attributes and recipients, the heatmap, the judges with their coverage and agreement,"
        " the audit's corrected numbers, and the provenance of every number (cimem version,"
        " each source file's sha256, judge model and prompt hash, mode, label rule, profile set,"
        " n, seeds). --format md writes Markdown for a pull request or wiki; --pdf prints the"
        " HTML through chromium when it is installed.",
    )
    add_source_args(p, many_runs=True)
    p.add_argument("--runs", help="run ids or names, comma-separated (with or instead of --run)")
    add_metric_args(p)
    p.add_argument("--out", required=True, help="the file to write (report.html, report.md, ...)")
    p.add_argument("--format", choices=FORMATS, default="html", help="html (default) or md")
    p.add_argument("--pdf", action="store_true", help="print the HTML report to --out as PDF")
    p.add_argument("--title", help="the report's title (default: CIMemories results)")
    p.set_defaults(func=cmd_report)
