"""The Data page's work on one run: which run (the sidebar's first, until another is picked), what
made it (its model, prompt level, memory format, and its judge's model and prompt hash, which an
imported file may not say), rename, delete, and export under a chosen judge. Widgets and
drawing only: the writes are the store's, through the app's one writer."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from cimem.ingest.export import export_official
from cimem.store import JudgeInfo
from webapp import cache, connection, render, sidebar

LEVELS = (None, 1, 2, 3, 4)
MEMORY_FORMATS = (None, "official", "bullets", "json", "partitioned")


def picked_run(runs: pd.DataFrame, ch: sidebar.Choices) -> int:
    """The run this section works on: the sidebar's first run, until the reader picks another
    (the picker is keyed by the sidebar's run, so changing that one brings it back)."""
    ids = [int(r) for r in runs["run_id"].tolist()]
    names = dict(zip(ids, runs["name"]))
    start = ids.index(ch.run) if ch.run in ids else 0
    return int(
        st.selectbox(
            "Run",
            ids,
            index=start,
            format_func=lambda r: f"{r}: {names[r]}",
            key=f"data_run_{ch.run}",
            help="the sidebar's first run, or another: rename, delete, what made it, export",
        )
    )


def _label(value: object) -> str:
    return "not recorded" if value is None else str(value)


def provenance_form(run_id: int, cfg: dict, judges: list[JudgeInfo]) -> None:
    """What made the run and its original judge, as recorded, editable (an imported file often
    does not say them; the leaderboard, the report and `runs --json` show them)."""
    original = next((j for j in judges if j.kind != "human"), None)
    with st.form(f"provenance_{run_id}"):
        st.markdown(f"**What made run {run_id}**")
        c1, c2, c3 = st.columns(3)
        model = c1.text_input("Model", cfg.get("model") or "")
        level = c2.selectbox(
            "Prompt level", LEVELS, index=_at(LEVELS, cfg.get("level")), format_func=_label
        )
        memory = c3.selectbox(
            "Memory format",
            MEMORY_FORMATS,
            index=_at(MEMORY_FORMATS, cfg.get("memory_format")),
            format_func=_label,
        )
        judge_model = prompt_hash = None
        if original is not None:
            d1, d2 = st.columns(2)
            judge_model = d1.text_input(f"Judge {original.judge_id}'s model", original.model or "")
            prompt_hash = d2.text_input(
                f"Judge {original.judge_id}'s prompt hash", original.prompt_hash or ""
            )
        if st.form_submit_button("Save what made the run"):
            judge = (
                (original.judge_id, judge_model.strip() or None, prompt_hash.strip() or None)
                if original is not None and judge_model is not None and prompt_hash is not None
                else None
            )
            with cache.writing() as store:
                store.set_provenance(
                    run_id,
                    model=model.strip() or None,
                    level=level,
                    memory_format=memory,
                    judge=judge,
                )
            st.rerun()


def _at(options: tuple, value: object) -> int:
    return options.index(value) if value in options else 0


def export_button(run_id: int, name: str, judges: list[JudgeInfo]) -> None:
    """The run in the official run-output format, under a judge the reader picks."""
    usable = [j for j in judges if j.kind != "human"] or judges
    if not usable:
        st.info(f"Run {run_id} has no judge: an export would carry no verdicts.")
        return
    judge = st.selectbox(
        "Judge whose verdicts to write",
        usable,
        format_func=lambda j: f"{j.judge_id}: {j.name}" + (f" ({j.model})" if j.model else ""),
        key=f"export_judge_{run_id}",
    )

    def exported() -> bytes:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run.jsonl"
            with connection.reading() as store:
                export_official(store, run_id, out, judge_id=judge.judge_id)
            return out.read_bytes()

    st.download_button(
        f"Download run {run_id} ({render.escape_md(name)}) under judge {judge.judge_id} in the"
        " official format",
        exported,
        file_name=f"cimem_run_{run_id}_judge_{judge.judge_id}.jsonl",
        mime="application/jsonl",
        on_click="ignore",
    )
