"""Overview: the runs in the database."""

import streamlit as st

import app_state

st.title("Overview")
runs = app_state.runs_table(app_state.db_path())
if runs.empty:
    st.info("This database has no runs yet. Import one with "
            "`python -m cimem ingest results.jsonl --db DB` (official run output, profiles.json, "
            "Hugging Face rows or a PersistBench file).")
else:
    st.dataframe(runs, hide_index=True)
