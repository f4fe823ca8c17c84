"""Helpers the benchmarks share: the fabricated scale files, timing, peak memory of a child."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CACHE = Path("/tmp/cimem-bench")


def fabricated(profiles: int, trials: int = 5, seed: int = 0) -> Path:
    """The scale file of the benchmark's own fabricator (made once, then reused)."""
    source = (
        SHARED / "cimemories" / ("profiles.json" if profiles <= 10 else "profiles_extended.json")
    )
    tool = SHARED / "tools" / "fabricate_results.py"
    if not tool.exists():
        sys.exit(f"{tool} is absent: pass a results file with --file")
    out = CACHE / f"fabricated_{profiles}p_{trials}t_{seed}.jsonl"
    if not out.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                str(tool),
                str(source),
                str(out),
                "--profiles",
                str(profiles),
                "--trials",
                str(trials),
                "--seed",
                str(seed),
                "--unparsed-rate",
                "0.02",
            ],
            check=True,
        )
    return out


def parse_seconds(path: Path) -> float:
    """Time to parse every line with orjson, the fastest parser cimem uses (best of 2)."""
    import orjson

    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        with path.open("rb") as f:
            for line in f:
                orjson.loads(line)
        best = min(best, time.perf_counter() - t)
    return best


def run_child(code: str) -> dict:
    """Run Python code in a fresh process; it prints one JSON object. Adds its peak RSS (MiB)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        sys.exit(out.stderr)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return result
