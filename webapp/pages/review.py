"""Review: the suggested audit sample one cell at a time, the message beside the question, one
key per verdict. What people decide here is what Overview's corrected numbers count."""

import streamlit as st

from webapp import render, sidebar
from webapp.panels.review import review_loop

st.title("Review")
ch: sidebar.Choices = st.session_state["choices"]
run_id = ch.run
if run_id is None:
    st.info("Choose a run with messages in the sidebar (or import one on the Data page).")
    st.stop()
sidebar.simulated_banner([run_id])
judge = review_loop.judge_of(ch, run_id)
if judge is None:
    st.info(f"Run {run_id} has no judge yet: a review checks a judge's decisions.")
    st.stop()
c1, c2, c3 = st.columns([1, 2, 2])
size = int(
    c1.number_input(
        "cells",
        10,
        5000,
        min(max(review_loop.noted_size(ch, run_id) or 200, 10), 5000),
        step=50,
        key="review_size",
        help="the first cells of the audit's review order (the Audit page's suggested sample,"
        " `cimem audit-sample`), decided in that order; each draw comes whole, so the sample"
        " may hold a few more cells. Starts at the size of the sample people decided here",
    )
)
c2.text_input("Reviewer (optional)", key="reviewer")
blind = c3.toggle(
    "Blind: hide the judge until you decide",
    key="review_blind",
    help="hides the judge's verdict and evidence on the cells you have not decided yet",
)
rows = review_loop.sample(ch, run_id, judge, size)
if not rows:
    st.info("This run has no judged cell of a labelled pair to review.")
    st.stop()
made = review_loop.progress(run_id, rows)
i = review_loop.position(rows, made)
st.caption(f"Run {render.escape_md(review_loop.run_name(ch, run_id))}, judge {judge}")
if review_loop.finished(rows, made):
    st.success(
        "Every cell of this sample is decided: raise **cells** to go on (the Audit page's"
        " suggested sample says how many more give the corrected numbers +/- 3 points)."
    )
st.markdown(review_loop.summary(rows, made, i, blind))
review_loop.buttons(run_id, rows, i)
st.caption(review_loop.CHEAT_SHEET)
review_loop.cell(ch, judge, rows[i], made, blind)
