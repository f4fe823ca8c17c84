"""Label sensitivity benchmark: `cimem labels sensitivity`'s computation (every default scheme on
every run: each persona's fractions aligned to the run's pairs once, then each scheme's labels,
metrics and discards per domain) on a lab's database, against the baseline of the same runs'
metrics under the official rule alone, measured in the same run. Prints seconds per run, per
scheme and the ratio to one metrics computation (a scheme cannot cost less than one).

    python bench/sensitivity.py                     # 3 runs of 60 profiles (built once)
    python bench/sensitivity.py --runs 20 --profiles 10
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from common import REPO, lab_database


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profiles", type=int, default=60)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.label_sources import DEFAULT_SCHEMES, Scheme
    from cimem.analysis.metrics import MetricOptions, compute
    from cimem.analysis.sensitivity import RunLabels, sensitivity
    from cimem.store import Store

    db = lab_database(args.runs, args.profiles)
    with Store.open(db, read_only=True) as store:
        ids = [r.run_id for r in store.list_runs()][: args.runs]
        runs = [RunLabels(cube_from_store(store, i), store.persona_fractions(i)) for i in ids]
    schemes = [Scheme.parse(s) for s in DEFAULT_SCHEMES]
    opts = MetricOptions()
    base, full = [], []
    for _ in range(args.reps):
        t = time.perf_counter()
        for run in runs:
            compute(run.cube, opts)
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        sensitivity(runs, schemes, opts)
        full.append(time.perf_counter() - t)
    b, f = statistics.median(base), statistics.median(full)
    pairs = sum(len(r.cube.pair_ctx) for r in runs)
    print(f"database: {db} ({len(runs)} runs, {pairs:,} labelled pairs)")
    print(f"baseline, official metrics of every run: {b:.2f} s (median of {args.reps})")
    print(
        f"sensitivity, {len(schemes)} schemes x {len(runs)} runs: {f:.2f} s"
        f" = {f / len(runs):.2f} s per run, {f / len(runs) / len(schemes):.3f} s per scheme"
    )
    print(f"per scheme and run: {f / len(schemes) / b:.2f}x one metrics computation")


if __name__ == "__main__":
    main()
