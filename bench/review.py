"""Review benchmark: a scripted reviewer records verdicts on the Review page with the keyboard,
in chromium, on a copy of the demo database served as `bash scripts/app` serves it.

Prints the keypresses per stored verdict (goal <= 1.2) and the seconds from each keypress to
the settled page (goal <= 0.5 s), as medians and 90th percentiles; the baseline is the same
reviewer's first load of the page.

    python bench/review.py [--verdicts 50] [--run 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from browser import ARGS, CHROMIUM, OBSERVER, settle, start_server, timed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def stored(db: Path, run: int) -> int:
    from cimem.store import Store

    with Store.open(db, read_only=True) as store:
        human = store.find_human_judge(run)
        return len(store.human_verdicts(human)) if human is not None else 0


def review(base: str, run: int, verdicts: int) -> tuple[float, list[float]]:
    """The page's first load, then one key per verdict (every fifth "revealed"), each timed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.add_init_script(f"({OBSERVER})()")
        page.goto(f"{base}/review?runs={run}")
        first = settle(page, 0) / 1000
        page.get_by_text("Cell 1 of", exact=False).first.wait_for()
        times = []
        for n in range(verdicts):
            key = "y" if n % 5 == 4 else "n"
            times.append(timed(page, lambda k=key: page.keyboard.press(k)) / 1000)
        browser.close()
    return first, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verdicts", type=int, default=50)
    ap.add_argument("--run", type=int, default=1)
    args = ap.parse_args()
    from cimem.demo.simulate import build_demo_database

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "review.duckdb"
        build_demo_database(db)
        server, base = start_server(db)
        try:
            first, times = review(base, args.run, args.verdicts)
        finally:
            server.terminate()
            server.wait()
        made = stored(db, args.run)
    p90 = statistics.quantiles(times, n=10)[-1]
    print(f"first load of the Review page: {first:.2f} s")
    print(
        f"{args.verdicts} keypresses -> {made} verdicts stored:"
        f" {args.verdicts / max(made, 1):.2f} keypresses per verdict (goal <= 1.2)"
    )
    print(
        f"keypress to settled page: median {statistics.median(times):.2f} s, 90th percentile"
        f" {p90:.2f} s, worst {max(times):.2f} s (goal <= 0.5 s)"
    )


if __name__ == "__main__":
    main()
