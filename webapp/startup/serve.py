"""Start the app (``python -m webapp.startup.serve [streamlit options]``, what ``bash scripts/app``
runs): the libraries every page needs are imported first, then Streamlit's own
``streamlit run app.py`` runs in this process.

Streamlit imports a page's modules when the first visitor's script runs, so without this the first
page a fresh server shows waits about a second for pandas, Altair, DuckDB and cimem. Imported here,
before the server listens, they are in ``sys.modules`` when that script runs. The app's own
``webapp`` modules with Streamlit caches are left to the script (their caches must be made with
the runtime up); ``webapp.startup.warm`` (and ``webapp.connection``, the app's door to its
databases) have none, and the warm start builds the default database's cubes. Once the server answers, ``webapp.startup.warm_visit`` opens every page once, so the first
person's page is drawn from warm caches; the console then says "cimem: ready".
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow",
    "duckdb",
    "altair",
    "cimem.store",
    "cimem.ingest",
    "cimem.analysis.audit",
    "cimem.analysis.metrics",
    "cimem.analysis.growth",
    "cimem.analysis.breakdowns",
    "cimem.analysis.overview",
    "cimem.analysis.audit.queue",
    "cimem.analysis.agreement",
    "cimem.analysis.audit.correction",
    "cimem.judges.base",
    "cimem.demo.teaching",
    "cimem.demo.reference",
)


def main(argv: list[str]) -> int:
    """Import PRELOAD, start building the default database's cubes (:mod:`webapp.startup.warm`)
    and the warm visit (:mod:`webapp.startup.warm_visit`), then run ``streamlit run app.py``
    with ``argv`` as its options."""
    for name in PRELOAD:
        importlib.import_module(name)
    from streamlit.web import cli

    from webapp.connection import default_database
    from webapp.startup import warm, warm_visit

    warm.start(default_database())
    warm_visit.start()

    sys.argv = ["streamlit", "run", str(APP), *argv]
    code: int = cli.main(prog_name="streamlit")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
