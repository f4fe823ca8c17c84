"""A report printed to PDF by a headless chromium, when one is installed: the HTML report's print
stylesheet lays it out (every run's tab shown, charts kept whole on a page)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from cimem.errors import CimemError

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str | None:
    """The first chromium-like browser on the PATH, or None."""
    return next((p for name in BROWSERS if (p := shutil.which(name))), None)


def html_to_pdf(html: str, out: Path, timeout: float = 120) -> None:
    """Print ``html`` to ``out`` with a headless chromium (no network: the page needs none)."""
    browser = find_browser()
    if browser is None:
        raise CimemError(
            f"--pdf needs chromium (none of {', '.join(BROWSERS)} is on the PATH); write the"
            " HTML report and print it from any browser instead"
        )
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        args = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ]
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not out.exists():
        raise CimemError(f"{browser} could not print {out}: {done.stderr.strip()[-300:]}")
