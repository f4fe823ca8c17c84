"""Growth benchmark: the full grid (every T from 1 to 49 x every k from 1 to 5, random order,
observed and theory) for one run of the 10-profile and of the 60-profile fabricated file, read
from the database. Targets: <= 1 s (10 profiles), <= 3 s (60 profiles).

    python bench/growth.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import fabricated


def main() -> None:
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.growth import growth
    from cimem.analysis.metrics import MetricOptions
    from cimem.ingest import ingest_file
    from cimem.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        for profiles, target in ((10, 1.0), (60, 3.0)):
            path = fabricated(profiles)
            db = Path(tmp) / f"g{profiles}.duckdb"
            with Store.open(db) as store:
                run = ingest_file(store, path).run_id
            with Store.open(db, read_only=True) as store:
                for method in ("expected-ratio", "ratio-of-expectations"):
                    t = time.perf_counter()
                    cube = cube_from_store(store, run)
                    curve = growth(
                        cube,
                        MetricOptions(mode="official"),
                        order="random",
                        method=method,
                        draws=200,
                    )
                    dt = time.perf_counter() - t
                    print(
                        f"{profiles} profiles, random order, {method} ({curve.method}):"
                        f" {len(curve.tasks)} x {len(curve.trials)} grid, observed + theory,"
                        f" from the database in {dt:.2f} s (target <= {target:.0f} s);"
                        f" V(49, 5) = {curve.violation[-1][-1]:.4f}"
                    )


if __name__ == "__main__":
    main()
