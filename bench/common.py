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


LAB_MODELS = ("llama-3.3-70b", "gpt-4o", "qwen3-32b", "deepseek-v3", "gemini-2.5-flash")


def lab_database(runs: int, profiles: int, trials: int = 5) -> Path:
    """A research group's database (made once, then reused): ``runs`` fabricated runs of
    ``profiles`` profiles (seeds 3, 4, ...), five models at prompt levels 1, 2, 3, ... The
    60-profile files are made one at a time and removed once imported (about 430 MB each)."""
    path = CACHE / f"lab_{runs}x{profiles}p_{trials}t.duckdb"
    if path.exists():
        return path
    sys.path.insert(0, str(REPO))
    from cimem.ingest import ingest_file
    from cimem.store import Store

    tmp = path.with_suffix(".building")
    tmp.unlink(missing_ok=True)
    with Store.open(tmp) as store:
        for i in range(runs):
            seed = 3 + i
            model, level = LAB_MODELS[i % len(LAB_MODELS)], 1 + i // len(LAB_MODELS)
            made = fabricated(profiles, trials, seed)
            t = time.perf_counter()
            ingest_file(store, made, name=f"{model} level {level}", model=model, level=level)
            print(f"run {i + 1}/{runs}: seed {seed}, {time.perf_counter() - t:.1f} s", flush=True)
            if profiles > 10:
                made.unlink()
        counts = store.table_counts()
    tmp.rename(path)
    print(f"database {path}: {runs} runs of {profiles} profiles, {counts['verdicts']:,} verdicts")
    return path


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
