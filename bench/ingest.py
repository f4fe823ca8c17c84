"""Ingest benchmark: the 60-profile fabricated file into a fresh database.

Prints ingest seconds, verdicts per second and peak RSS of the ingesting process, next to the time
to merely parse the same file with orjson in the same run. Targets: ingest <= 1.5x parse time,
peak RSS <= 0.7 GB.

    python bench/ingest.py [--file results.jsonl] [--profiles 60]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from common import fabricated, parse_seconds, run_child


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="results file (default: fabricate 60 profiles)")
    ap.add_argument("--profiles", type=int, default=60)
    args = ap.parse_args()
    path = args.file or fabricated(args.profiles)
    size = path.stat().st_size / 1e6
    parse = parse_seconds(path)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        result = run_child(
            "import json, time\n"
            "from cimem.store import Store\n"
            "from cimem.ingest import ingest_file\n"
            f"s = Store.open({str(db)!r})\n"
            "t = time.perf_counter()\n"
            f"r = ingest_file(s, {str(path)!r})\n"
            "dt = time.perf_counter() - t\n"
            "print(json.dumps({'seconds': dt, 'verdicts': r.verdicts, 'messages': r.messages}))\n"
        )
    secs = result["seconds"]
    print(f"file: {path} ({size:.0f} MB)")
    print(f"parse only (orjson, best of 2): {parse:.2f} s")
    print(f"ingest: {secs:.2f} s  = {secs / parse:.2f}x parse  (target <= 1.5x)")
    print(
        f"verdicts: {result['verdicts']:,}  -> {result['verdicts'] / secs:,.0f} verdicts/s;"
        f" messages: {result['messages']:,}"
    )
    print(
        f"peak RSS of the ingesting process: {result['peak_rss_mib']:.0f} MiB  (target <= 700 MiB)"
    )


if __name__ == "__main__":
    main()
