"""The Labels page's people section: how many pairs people labelled, their agreement with the
personas on the chosen run, a context to label in the page (blind to the personas), and the
spreadsheet route (a sheet to download, a filled one to upload). Widgets and drawing only: the
sheet, the checks and the agreement are cimem.analysis.people_labels'."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.people_labels import (
    SheetChoice,
    read_labels,
    template_records,
    to_csv,
)
from cimem.errors import CimemError
from cimem.store import PeopleLabel, PeopleLabelEntry
from cimem.text import plural
from webapp import cache, connection, render, sidebar

EXPLAINED = (
    "Check the personas: label (person, task, attribute) pairs yourself as share (the task"
    " needs it), withhold (the recipient must not learn it) or unsure. Labels are kept with"
    " their reviewer and never overwritten (a reviewer's latest is current); a pair counts as"
    " people's when every reviewer's current label agrees. They serve every run of the same"
    " people and tasks; the schemes `people` and `unanimous@reviewed` above compare the metrics"
    " under them with the official rule on the same pairs. Metrics need whole contexts labelled."
)
CHOICES = [str(m) for m in PeopleLabel]


def section(ch: sidebar.Choices) -> None:
    st.header("People's labels")
    st.caption(EXPLAINED)
    rows = cache.people_labels(ch.at)
    reviewers = {r.reviewer or "(unnamed)" for r in rows}
    st.markdown(
        f"{plural(len(rows), 'current label')} by {plural(len(reviewers), 'reviewer')} in this"
        " database."
    )
    if ch.run is None:
        return
    _agreement(ch)
    render.when_opened("Label a context here", "people_label_form", lambda: _form(ch))
    render.when_opened("Label in a spreadsheet", "people_label_sheet", lambda: _sheet(ch))


def _agreement(ch: sidebar.Choices) -> None:
    found = cache.agreement_of(ch.scope(ch.run_id))
    settled = found.labelled - found.disputed
    st.markdown(
        f"**Run {render.escape_md(found.run)}**: people labelled"
        f" {plural(found.labelled, 'pair')}, {found.disputed} with reviewers who disagree"
        " (left out)."
    )
    if not settled:
        return
    frame = pd.DataFrame(
        {
            "labels of": [s.source for s in found.sources],
            "rule": [s.rule for s in found.sources],
            "pairs": [s.pairs for s in found.sources],
            "agree %": [100 * s.share for s in found.sources],
            "Cohen's kappa": [s.kappa for s in found.sources],
        }
    )
    render.static_table(frame, digits={"agree %": 1, "Cohen's kappa": 3})
    st.caption(
        "People's settled labels against each source under the sidebar's label rule, over"
        " three classes: share, withhold, and unsure against ambiguous. Settled: "
        + (", ".join(f"{k} {v}" for k, v in found.by_label.items()) or "none")
    )


def _form(ch: sidebar.Choices) -> None:
    run_id = ch.run_id
    tasks = cache.contexts_by_profile(ch.at, run_id)
    if not tasks:
        st.info("This run has no profiles.")
        return
    c1, c2, c3 = st.columns([1, 2, 1])
    profile = c1.selectbox("Person", list(tasks), key="plab_profile")
    contexts = tasks[profile]
    ctx = c2.selectbox(
        "Task", list(contexts), format_func=lambda i: contexts[i], key="plab_context"
    )
    reviewer = c3.text_input("Reviewer", key="plab_reviewer")
    sheet = cache.context_sheet(ch.at, run_id, profile, int(ctx))
    if sheet.empty:
        st.info("This task has no labelled pair in this run.")
        return
    sheet = sheet.assign(label=None)
    edited = st.data_editor(
        sheet[["attribute", "memory_statement", "domain", "label"]],
        column_config={
            "label": st.column_config.SelectboxColumn("label", options=CHOICES),
            "memory_statement": st.column_config.TextColumn("memory", width="large"),
        },
        disabled=["attribute", "memory_statement", "domain"],
        hide_index=True,
        key=f"plab_{run_id}_{profile}_{ctx}",
    )
    chosen = edited[edited["label"].isin(CHOICES)]
    st.caption(f"{len(chosen)} of {len(edited)} pairs labelled; the personas' labels stay hidden.")
    if st.button("Save my labels", disabled=chosen.empty, key="plab_save"):
        with connection.writing() as store:
            n = store.add_people_labels(entries(sheet, chosen, reviewer))
        cache.changed()
        st.success(f"Recorded {plural(n, 'label')}.")


def entries(sheet: pd.DataFrame, chosen: pd.DataFrame, reviewer: str) -> list[PeopleLabelEntry]:
    """The labels a person chose in one context's sheet (``chosen``: its rows with a label)."""
    first = sheet.iloc[0]
    return [
        PeopleLabelEntry(
            str(first["profile"]),
            str(first["recipient"]),
            str(first["task"]),
            str(key),
            PeopleLabel(str(label)),
            reviewer.strip() or None,
        )
        for key, label in zip(chosen["attribute"], chosen["label"])
    ]


def _sheet(ch: sidebar.Choices) -> None:
    run_id = ch.run_id
    c1, c2 = st.columns([1, 3])
    n = int(c1.number_input("Whole contexts", 1, 200, 3, key="plab_sheet_n"))
    with connection.reading() as store:
        text = to_csv(template_records(store, run_id, SheetChoice(contexts=n, seed=0)))
    c2.download_button(
        "Download a sheet to fill", text, file_name=f"labels-run-{run_id}.csv", mime="text/csv"
    )
    upload = st.file_uploader("Upload a filled sheet", type=["csv"], key="plab_upload")
    if upload is not None and st.button("Record the sheet's labels", key="plab_import"):
        try:
            body = upload.getvalue().decode("utf-8-sig")
            with connection.writing() as store:
                labels, empty = read_labels(store, body, upload.name)
                recorded = store.add_people_labels(labels)
        except UnicodeDecodeError:
            st.error(f"{render.escape_md(upload.name)}: not UTF-8 text")
            return
        except CimemError as exc:
            st.error(render.escape_md(str(exc)))
            return
        cache.changed()
        st.success(f"Recorded {plural(recorded, 'label')}; {empty} rows left empty.")
