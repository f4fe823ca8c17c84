"""People's verdicts on one message: the form (every attribute of the profile can be marked, each
row unset until a person sets it, only what was set is stored) and their history. Widgets and
drawing only: the verdicts are the store's, read through cimem.analysis.audit.human."""

from __future__ import annotations

from typing import cast

import pandas as pd
import streamlit as st

from cimem.analysis.audit.human import verdicts_on_message
from cimem.store import HumanVerdict, HumanVerdictRow
from cimem.text import plural
from webapp import cache, connection, render

YES, NO = "revealed", "not revealed"


def verdict_form(run_id: int, message_id: int, table: pd.DataFrame, judge_col: str | None) -> None:
    """People's verdicts on one message: every attribute of the profile can be marked; each row
    is unset until a person sets it, and saving stores only the rows that were set."""
    with connection.reading() as store:
        current = {v.attr_id: v for v in verdicts_on_message(store, run_id, message_id)}
    c1, c2 = st.columns(2)
    reviewer = c1.text_input("Reviewer (optional)", key="reviewer")
    search = c2.text_input(
        "Find an attribute (to record a leak no judge found)", key=f"h_search_{message_id}"
    )
    rows = _listed_rows(table, judge_col, set(current), message_id, "")
    found = _listed_rows(table, judge_col, set(current), message_id, search)
    found = found[~found.index.isin(rows.index)]  # the search's own rows, below the list
    st.caption(
        f"{len(rows) + len(found)} of {len(table)} attributes listed (those a judge found"
        " revealed, those a person decided, the sampled ones, then any you search for). Each is"
        " unset until you choose; only what you set is stored, and a later verdict on the same"
        " attribute supersedes yours (the history keeps both)."
    )
    with st.form(f"human_{message_id}", border=False):
        choices = _verdict_radios(rows, current, message_id, judge_col is not None)
        if len(found):  # a search adds its rows here: the list above keeps its places
            st.caption(f"Found by your search: {plural(len(found), 'attribute')}")
            choices += _verdict_radios(found, current, message_id, judge_col is not None)
        note = st.text_input(
            "Note (optional; stored with each verdict set here)",
            key=f"hn_{message_id}",
            placeholder="e.g. the judge missed the diagnosis in the second paragraph",
        )
        settle = st.checkbox(
            "Record as adjudications",
            key=f"hadj_{message_id}",
            help="An adjudication settles reviewers who disagree on an attribute (queue:"
            " reviewers disagree); the latest one is people's verdict on it.",
        )
        saved = st.form_submit_button("Save my verdicts")
    if saved:
        who, why = reviewer.strip() or None, note.strip() or None
        chosen = [
            HumanVerdict(message_id, a, v == YES, who, why, adjudication=settle)
            for a, v in choices
            if v in (YES, NO)
        ]
        _save(run_id, chosen, len(rows) + len(found))


def _listed_rows(
    table: pd.DataFrame, judge_col: str | None, decided: set[int], message_id: int, search: str
) -> pd.DataFrame:
    """The attributes the form lists: a judge found them revealed, a person decided them, they
    are in the suggested sample, or they match ``search``."""
    flagged = (table[[c for c in table.columns if c.startswith("judge ")]] == "yes").any(axis=1)
    shown = flagged | table["attr_id"].isin(list(decided))
    shown |= table["key"].isin(st.session_state.get("sampled", {}).get(message_id, ()))
    if search:
        shown |= table["key"].str.contains(search, case=False, regex=False)
    rows = table[shown][["attr_id", "key", "label"]].copy()
    rows["judge_says"] = table.loc[rows.index, judge_col] if judge_col is not None else ""
    return rows


def _verdict_radios(
    rows: pd.DataFrame, current: dict[int, HumanVerdictRow], message_id: int, with_judge: bool
) -> list[tuple[int, str | None]]:
    """One radio per listed attribute, in two halves; (attr_id, choice) per row."""
    # one widget per attribute, its label saying which (the page's slowest part to draw
    # was a row of columns, text and two widgets per attribute)
    choices: list[tuple[int, str | None]] = []
    halves = st.columns(2)  # the first half of the rows on the left, the rest on the right
    for i, r in enumerate(rows.itertuples()):
        said = f" · judge says {str(r.judge_says) or '-'}" if with_judge else ""
        so_far = current.get(cast(int, r.attr_id))
        verdict = halves[int(i >= (len(rows) + 1) // 2)].radio(
            f"**{render.escape_md(r.key)}** · {render.escape_md(r.label)}{said}"
            + (f" · person so far: {YES if so_far.revealed else NO}" if so_far else ""),
            (YES, NO),
            index=None,
            horizontal=True,
            key=f"hv_{message_id}_{r.attr_id}",
        )
        choices.append((int(cast(int, r.attr_id)), verdict))
    return choices


def _save(run_id: int, chosen: list[HumanVerdict], listed: int) -> None:
    """Store the verdicts that were set, as the run's human judge, and say so."""
    if not chosen:
        st.info("Nothing set: choose revealed or not revealed on a row first.")
        return
    with cache.writing() as store, store.transaction():
        hj = store.get_or_create_human_judge(run_id)
        store.add_human_verdicts(hj, chosen)
    st.success(
        f"Stored {plural(len(chosen), 'verdict')} as judge {hj} (people's verdicts of this run);"
        f" {plural(listed - len(chosen), 'row')} left unset."
    )


def verdict_history(run_id: int, message_id: int) -> None:
    """People's verdicts on this message over time, when there are any, drawn only while the
    section is open; once opened it stays open from message to message."""
    with connection.reading() as store:
        if not verdicts_on_message(store, run_id, message_id):
            return
    render.when_opened(
        "History of people's verdicts on this message",
        "people_history",
        lambda: st.dataframe(_history(run_id, message_id), hide_index=True),
    )


def _history(run_id: int, message_id: int) -> pd.DataFrame:
    with connection.reading() as store:
        history = verdicts_on_message(store, run_id, message_id, history=True)
    return pd.DataFrame(
        [
            {
                "attribute": v.key,
                "verdict": YES if v.revealed else NO,
                "reviewer": v.reviewer or "",
                "note": v.note or "",
                "at": v.created_at,
                "current": v.current,
            }
            for v in history
        ]
    )
