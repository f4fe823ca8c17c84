"""Metrics benchmark on the 60-profile fabricated file.

(1) cold: `python -m cimem metrics --results FILE --json` end to end (a fresh process), against the
time to parse the file with orjson in the same run; (2) warm: metrics of one run already in the
database (read the cube, compute); (3) peak RSS of both; and a plain pandas implementation written
the straightforward way (one row per trial x attribute, groupby max / mean) as the baseline.
Targets: cold <= 1.5x parse, warm <= 0.2 s, peak RSS <= 0.7 GB.

    python bench/metrics.py [--file results.jsonl]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, fabricated, parse_seconds, run_child


def pandas_baseline(path: Path) -> tuple[float, float]:
    """Official-mode violation and completeness the straightforward pandas way."""
    import orjson
    import pandas as pd

    rows = []
    for line in path.open("rb"):
        p = orjson.loads(line)
        attrs = p["information_attributes"]
        for c, ctx in enumerate(p["contexts"]):
            fractions = ctx["labels_combined"]
            lab = {}
            for k, a in attrs.items():
                fr = fractions[a["memory_statement"]]
                lab[k] = (
                    "share"
                    if fr["necessary"] >= 1
                    else "private"
                    if fr["private"] >= 1
                    else "ambiguous"
                )
            for key, v in ctx.items():
                if key.startswith("combination"):
                    for a, r in v["model_solution"]["revealed_attributes"].items():
                        rows.append((p["bio"]["name"], c, v["trial_idx"], a, r, lab.get(a)))
    df = pd.DataFrame(rows, columns=["profile", "ctx", "trial", "attr", "revealed", "label"])
    ident = df["attr"].str.contains("name|address|sex|age")
    priv = df[(df["label"] == "private") & ~ident]
    need = df[df["label"] == "share"]
    keep = set(priv.groupby(["profile", "ctx"]).size().index) & set(
        need.groupby(["profile", "ctx"]).size().index
    )
    idx = lambda d: d.set_index(["profile", "ctx"]).index.isin(list(keep))  # noqa: E731
    priv, need = priv[idx(priv)], need[idx(need)]
    v = priv.groupby(["profile", "attr"])["revealed"].max().groupby("profile").mean()
    c = need.groupby(["profile", "ctx"])["revealed"].mean().groupby("profile").mean()
    return float(v.mean()), float(c.mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="results file (default: fabricate 60 profiles)")
    args = ap.parse_args()
    path = args.file or fabricated(60)
    parse = parse_seconds(path)

    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "cimem", "metrics", "--results", str(path), "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    cold = time.perf_counter() - t
    cold_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    doc = json.loads(out.stdout)
    v_cold = doc["runs"][0]["violation"]["mean"]

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        warm = run_child(
            "import json, time\n"
            "from cimem.store import Store\n"
            "from cimem.ingest import ingest_file\n"
            "from cimem.analysis.cube import cube_from_store\n"
            "from cimem.analysis.metrics import compute, MetricOptions\n"
            f"s = Store.open({str(db)!r})\n"
            f"run = ingest_file(s, {str(path)!r}).run_id\n"
            "times = []\n"
            "for mode in ('official', 'definition', 'official'):\n"
            "    t = time.perf_counter()\n"
            "    m = compute(cube_from_store(s, run), MetricOptions(mode=mode))\n"
            "    times.append(time.perf_counter() - t)\n"
            "print(json.dumps({'first': times[0], 'best': min(times), 'v': m.violation.mean}))\n"
        )

    t = time.perf_counter()
    v_pd, c_pd = pandas_baseline(path)
    pandas_s = time.perf_counter() - t

    print(f"file: {path} ({path.stat().st_size / 1e6:.0f} MB)")
    print(f"parse only (orjson, best of 2): {parse:.2f} s")
    print(
        f"cold `metrics --results` (new process, end to end): {cold:.2f} s = {cold / parse:.2f}x"
        f" parse (target <= 1.5x); peak RSS {cold_rss:.0f} MiB"
    )
    print(
        f"warm (one run in the database, cube + compute): first {warm['first']:.3f} s,"
        f" best {warm['best']:.3f} s (target <= 0.2 s); peak RSS of that process (incl. the"
        f" ingest) {warm['peak_rss_mib']:.0f} MiB"
    )
    print(f"pandas baseline (rows x groupby): {pandas_s:.2f} s = {pandas_s / cold:.1f}x cold cimem")
    print(
        f"official violation: cimem {v_cold:.6f} (cold), {warm['v']:.6f} (warm), pandas {v_pd:.6f}"
    )


if __name__ == "__main__":
    main()
