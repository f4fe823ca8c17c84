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
    " under them with the official rule on the same pairs. Metrics need whole contexts labelled:"
    " a context counts only with a needed and a withheld attribute in it."
)
CHOICES = [str(m) for m in PeopleLabel]
NOTE = "plab_note"  # what the last save recorded, said after the page is drawn again
EVERYONE = "(everyone)"
VERSION = "plab_version"  # bumped by a save: a fresh table and uploader, nothing saved twice


def section(ch: sidebar.Choices) -> None:
    st.header("People's labels")
    st.caption(EXPLAINED)
    if note := st.session_state.pop(NOTE, None):
        st.success(note)
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
    scope = ch.scope(ch.run_id)
    found = cache.agreement_of(scope.verdicts(), scope.opts.label_rule)
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
    c1, c2, c3 = st.columns([1, 1, 2])
    reviewer = c1.text_input("Reviewer", key="plab_reviewer").strip()
    profile = c2.selectbox("Person", list(tasks), key="plab_profile")
    contexts = tasks[profile]
    ctx = c3.selectbox(
        "Task", list(contexts), format_func=lambda i: contexts[i], key="plab_context"
    )
    if not reviewer:
        st.info("Name yourself as reviewer first: labels are kept per reviewer.")
        return
    sheet = cache.context_sheet(ch.at, run_id, profile, int(ctx))
    if sheet.empty:
        st.info("This task has no labelled pair in this run.")
        return
    first = sheet.iloc[0]
    saved = cache.saved_labels(
        ch.at, reviewer, str(first["profile"]), str(first["recipient"]), str(first["task"])
    )
    labels = pd.Series([saved.get(k) for k in sheet["attribute"]], index=sheet.index, dtype=object)
    sheet = sheet.assign(label=labels)  # text, never a float column of NaN: edits must fit it
    edited = st.data_editor(
        sheet[["attribute", "memory_statement", "domain", "label"]],
        column_config={
            "label": st.column_config.SelectboxColumn("label", options=CHOICES),
            "memory_statement": st.column_config.TextColumn("memory", width="large"),
        },
        disabled=["attribute", "memory_statement", "domain"],
        hide_index=True,
        key=f"plab_{run_id}_{profile}_{ctx}_{reviewer}_{st.session_state.get(VERSION, 0)}",
    )
    labelled = edited[edited["label"].isin(CHOICES)]
    new = labelled[[saved.get(k) != v for k, v in zip(labelled["attribute"], labelled["label"])]]
    st.caption(
        f"{len(labelled)} of {len(edited)} pairs labelled, {len(new)} new or changed (your saved"
        " labels are filled in); the personas' labels stay hidden."
    )
    if st.button("Save my labels", disabled=new.empty, key="plab_save"):
        with cache.writing() as store:
            n = store.add_people_labels(entries(sheet, new, reviewer))
        _saved_and_redrawn(f"Recorded {plural(n, 'label')} by {reviewer}.")


def _saved_and_redrawn(note: str) -> None:
    """After a save (its cached reads forgotten by :func:`webapp.cache.writing`): keep the note
    for the redrawn page, and start a fresh table and uploader (so nothing is saved twice), then
    draw the page again."""
    st.session_state[NOTE] = note
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1
    st.rerun()


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
    tasks = cache.contexts_by_profile(ch.at, run_id)
    c1, c2, c3 = st.columns([2, 1, 1])
    person = c1.selectbox("Person", [EVERYONE, *tasks], key="plab_sheet_person")
    n = int(c2.number_input("Whole contexts", 1, 500, 3, key="plab_sheet_n"))
    seed = int(c3.number_input("Sample seed", 0, 10**6, 0, key="plab_sheet_seed"))
    choice = SheetChoice(None if person == EVERYONE else person, contexts=n, seed=seed)

    def sheet() -> str:  # made when the button is clicked, not on every rerun
        with connection.reading() as store:
            return to_csv(template_records(store, run_id, choice))

    st.download_button(
        "Download a sheet to fill",
        sheet,
        file_name=f"labels-run-{run_id}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    version = st.session_state.get(VERSION, 0)
    u1, u2 = st.columns([3, 1])
    upload = u1.file_uploader("Upload a filled sheet", type=["csv"], key=f"plab_upload_{version}")
    reviewer = u2.text_input("Reviewer of rows without one", key="plab_sheet_reviewer")
    if upload is not None and st.button("Record the sheet's labels", key="plab_import"):
        try:
            body = upload.getvalue().decode("utf-8-sig")
            with cache.writing() as store:
                labels, empty = read_labels(store, body, upload.name, reviewer.strip() or None)
                recorded = store.add_people_labels(labels)
        except UnicodeDecodeError:
            st.error(f"{render.escape_md(upload.name)}: not UTF-8 text (save it as CSV UTF-8)")
            return
        except CimemError as exc:
            st.error(render.escape_md(str(exc)))
            return
        _saved_and_redrawn(f"Recorded {plural(recorded, 'label')}; {empty} rows left empty.")
