"""Data: import files (upload or a path on the server), the runs with their configuration,
rename and delete runs, the selected runs' message health, export a run to the official
format."""

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from cimem import paths
from cimem.errors import CimemError
from cimem.ingest import ingest_or_find
from cimem.text import plural
from webapp import cache, connection, render, sidebar
from webapp.panels import progress
from webapp.panels.data import health, run_admin

st.title("Data")
st.caption(
    f"Database: {render.escape_md(connection.database().shown)}. Open another with the sidebar's "
    "picker or `?db=NAME` in the URL (a .duckdb file in the data folder), or start the app with "
    "CIMEM_DB set."
)

progress.making_section()
if note := st.session_state.pop("import_note", None):
    st.success(note)
st.header("Import")
st.markdown(
    "Official run output (`results.jsonl`, also gzipped), the benchmark's "
    "`profiles.json`, Hugging Face rows (Parquet, CSV, JSON lines), a PersistBench CIM "
    "file or an Inspect log of the cimemories task (`.eval`). The format is detected; a file "
    "already imported is recognised by its content."
)
upload = st.file_uploader("Upload a file", type=["jsonl", "json", "gz", "parquet", "csv", "eval"])
server_path = st.text_input(
    "...or a file in the data folder on the server",
    "",
    key="server_path",
    help="a path relative to the data folder (CIMEM_DATA_DIR); nothing outside it is read",
)
name = st.text_input("Run name (optional)", "")
model = st.text_input("Model (optional)", "")
if st.button("Import", type="primary", disabled=not (upload or server_path), key="import"):
    bar = st.progress(0.0, text="Importing...")

    def imported(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=f"Importing... {done:,} / {total:,}")

    path, typed = None, upload.name if upload is not None else server_path
    try:
        if upload is not None:
            suffix = "".join(Path(upload.name).suffixes) or ".jsonl"
            with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as tmp:
                tmp.write(upload.getbuffer())
            path = Path(tmp.name)
        else:
            path = paths.confine(server_path, paths.data_dir(), paths.INPUT_SUFFIXES)
        with cache.writing() as store:  # every other reader waits for the import
            res = ingest_or_find(
                store,
                path,
                name=name or (Path(upload.name).stem if upload else None),
                model=model or None,
                progress=imported,
                source=f"{upload.name} (uploaded)" if upload else None,
            )
        bar.progress(1.0, text="Done")
        if res.created:
            note = (
                f"Run {res.run_id} ({render.escape_md(res.name)}): {plural(res.profiles, 'profile')},"
                f" {plural(res.messages, 'message')}, {plural(res.verdicts, 'verdict')}"
                + ("; added to the runs in the sidebar." if res.messages else ".")
            )
            if res.messages:
                sidebar.join_selection(res.run_id, note)
            st.success(note)
        else:
            st.info(
                f"Already imported as run {res.run_id} ({render.escape_md(res.name)});"
                " nothing added."
            )
    except (CimemError, ValueError, FileNotFoundError) as exc:
        bar.empty()
        said = str(exc) if path is None else paths.as_typed(str(exc), path, typed)
        st.error(f"Import failed, nothing was written: {render.escape_md(said)}")
    finally:
        if upload is not None:
            Path(tmp.name).unlink(missing_ok=True)

st.header("Runs")
runs = cache.runs_frame(cache.current())
if runs.empty:
    st.info(
        "No runs yet: import a file above, or from the command line with "
        "`python -m cimem ingest FILE --db DB`."
    )
    st.stop()
RUN_COLUMNS = {  # the store's fields -> what a reader sees, in this order
    "run_id": "run",
    "name": "name",
    "model": "model",
    "level": "prompt level",
    "n_trials": "samples per task (n)",
    "profiles": "profiles",
    "contexts": "tasks (all profiles)",
    "messages": "messages",
    "verdicts": "verdicts",
    "judges": "judges",
}
ORIGIN_COLUMNS = {  # where each run came from: a second table, so each fits the page's width
    "run_id": "run",
    "kind": "holds",
    "source_format": "format",
    "source": "source file",
    "simulated": "simulated",
    "created_at": "imported",
}


def file_name(source: object) -> str:
    """A run's source file by its name: a server path is not a visitor's business (the name says
    which file it was)."""
    return Path(str(source)).name if source else "-"


shown = runs[list(RUN_COLUMNS)].rename(columns=RUN_COLUMNS)
shown["model"] = shown["model"].fillna("-")
render.static_table(shown)
origin = runs[list(ORIGIN_COLUMNS)].rename(columns=ORIGIN_COLUMNS)
origin["source file"] = [file_name(x) for x in runs["source"]]
origin["simulated"] = ["yes" if x else "no" for x in runs["simulated"]]
origin["imported"] = [
    f"{t:%Y-%m-%d %H:%M}" if t == t and t is not None else "-" for t in runs["created_at"]
]
render.static_table(origin, breakable=("source file",))
st.caption(
    "holds: results (messages and verdicts), profiles or labels only; a dash: the source does not"
    " say."
)
choice = run_admin.picked_run(runs, st.session_state["choices"])
cfg = cache.run_config(cache.current(), choice)
judges = cache.judges_of(cache.current(), choice)
with st.expander("Configuration"):
    # a table, as every other one here, the source file by its name as in the runs table
    settings = {**cfg, "source": file_name(cfg.get("source"))}
    render.static_table(
        pd.DataFrame(
            {
                "setting": list(settings),
                "value": ["-" if v is None else str(v) for v in settings.values()],
            }
        ),
        breakable=("value",),
    )
    if judges:
        render.static_table(
            pd.DataFrame(
                {
                    "judge": [j.judge_id for j in judges],
                    "name": [j.name for j in judges],
                    "kind": [str(j.kind) for j in judges],
                    "model": [j.model or "-" for j in judges],
                    "prompt hash": [(j.prompt_hash or "-")[:12] for j in judges],
                    "made": [j.created_at for j in judges],
                }
            )
        )
    run_admin.provenance_form(choice, cfg, judges)
c1, c2 = st.columns(2)
new_name = c1.text_input("New name", cfg["name"], key=f"new_name_{choice}")
if c1.button("Rename", key="rename") and new_name.strip():
    cache.rename_run(choice, new_name.strip())
    st.rerun()
confirm = c2.checkbox(
    f"Yes, delete run {choice} ({render.escape_md(cfg['name'])}) and everything in it",
    key=f"confirm_delete_{choice}",
)
if c2.button("Delete run", disabled=not confirm):
    cache.delete_run(choice)
    st.rerun()

health.section()

st.header("Export")
if cfg["kind"] != "profiles":
    run_admin.export_button(choice, cfg["name"], judges)
