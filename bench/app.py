"""App benchmark: three runs of the 60-profile fabricated file in one database (about 6.5 million
verdicts). For every page: the first load (empty caches) and a widget change, timed as server
time through streamlit.testing's AppTest. Targets: first load <= 2 s, widget change <= 300 ms.

    python bench/app.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from common import REPO, fabricated

APP = str(REPO / "app.py")
CHANGES = {
    "webapp/pages/overview.py": None,
    "webapp/pages/leaks.py": ("multiselect", "f_profile"),
    "webapp/pages/growth.py": ("radio", "order"),
    "webapp/pages/audit.py": ("toggle", None),
    "webapp/pages/learn.py": ("slider", "sim_p"),
    "webapp/pages/data.py": None,
}
OPENED_FIRST = {"webapp/pages/learn.py": "learn_sim"}  # a folded section holding the widget


def main() -> None:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from cimem.ingest import ingest_file
    from cimem.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "app.duckdb"
        with Store.open(db) as store:
            for seed in (0, 1, 2):
                ingest_file(store, fabricated(60, seed=seed), name=f"fabricated seed {seed}")
            verdicts = store.table_counts()["verdicts"]
        print(f"database: 3 runs of 60 profiles, {verdicts:,} verdicts")
        os.environ["CIMEM_DB"] = str(db)
        for page, change in CHANGES.items():
            st.cache_data.clear()
            at = AppTest.from_file(APP, default_timeout=300)
            if page == "webapp/pages/overview.py":
                t = time.perf_counter()
                at.run()
            else:
                at.run()
                st.cache_data.clear()
                t = time.perf_counter()
                at.switch_page(page)
                at.run()
            first = time.perf_counter() - t
            assert not at.exception, [e.value for e in at.exception]
            widget = ""
            if change is not None:
                if page in OPENED_FIRST:  # not timed
                    at.session_state[OPENED_FIRST[page]] = True
                    at.run()
                kind, key = change
                element = getattr(at, kind)(key=key) if key else getattr(at, kind)[0]
                if kind == "multiselect":
                    element.set_value([element.options[0]])
                elif kind == "radio":
                    element.set_value("fixed")
                elif kind == "slider":
                    element.set_value(0.1)
                else:
                    element.set_value(not element.value)
                t = time.perf_counter()
                at.run()
                widget = f", widget change {1000 * (time.perf_counter() - t):.0f} ms"
                assert not at.exception, [e.value for e in at.exception]
            t = time.perf_counter()
            at.run()
            rerun = time.perf_counter() - t
            print(f"{page:<20} first load {first:.2f} s{widget}, plain rerun {1000 * rerun:.0f} ms")


if __name__ == "__main__":
    main()
