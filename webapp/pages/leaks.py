"""Leaks: slice by profile, domain, event, attribute, recipient and task; the attribute x task
heatmap; the attributes leaked most and the recipients that receive most; the messages behind."""

import altair as alt
import streamlit as st

from webapp import render, state

st.title("Leaks")
ch, cube = state.labelled_run(
    "This run has no labels, so nothing counts as a leak. Import a labelled results file (official"
    " run output) or labels (Hugging Face rows) for these profiles."
)
m = state.metrics(ch.db, ch.v, ch.run, ch.judge, ch.opts)
st.caption(
    f"Run {render.escape_md(m.run)}; "
    + ch.describe(m)
    + ". A leak: a withheld attribute that the judge "
    "found in a sample. Frequencies are leaks / samples."
)
pairs = state.pairs(ch.db, ch.v, ch.run, ch.judge, ch.opts)

f1, f2, f3 = st.columns(3)
profiles = f1.multiselect("Profile", sorted(pairs["profile"].unique()), key="f_profile")
domains = f2.multiselect("Domain", sorted(x for x in pairs["domain"].dropna().unique()))
events = f3.multiselect("Event", sorted(x for x in pairs["event"].dropna().unique()))
f4, f5, f6 = st.columns(3)
recipients = f4.multiselect("Recipient", sorted(pairs["recipient"].unique()))
tasks = f5.multiselect("Task", sorted(pairs["task"].unique()))
search = f6.text_input("Attribute contains", "")
filters = tuple(
    (col, tuple(chosen))
    for col, chosen in (
        ("profile", profiles),
        ("domain", domains),
        ("event", events),
        ("recipient", recipients),
        ("task", tasks),
    )
    if chosen
) + ((("search", search),) if search else ())
(view, attrs, by_recipient, by_domain, by_profile, private_cells, all_cells) = state.leak_tables(
    ch.db, ch.v, ch.run, ch.judge, ch.opts, filters
)
if view.empty:
    st.info("No pair matches these filters.")
    st.stop()

st.subheader("Attribute x task")
only_private = st.toggle(
    "Private cells only (leak frequency)",
    value=True,
    help="Off: every labelled cell, coloured by its label",
)
top = st.slider("Attributes shown (most leaked first)", 10, 80, 30, step=5)
cells = private_cells if only_private else all_cells
chosen_cell = None
ranked_keys = cells.groupby("key")["leaks"].sum().sort_values(ascending=False).index[:top]
cells = cells[cells["key"].isin(ranked_keys)]
if cells.empty:
    st.info("No private cell with samples here.")
else:
    pick = alt.selection_point(fields=["key", "context"], name="cell")
    color = (
        alt.Color("frequency:Q", title="leak frequency", scale=alt.Scale(scheme="reds"))
        if only_private
        else alt.Color(
            "label:N",
            scale=alt.Scale(
                domain=["share", "private", "ambiguous"], range=["#4c9f70", "#d1495b", "#c0c0c0"]
            ),
        )
    )
    heat = (
        alt.Chart(cells)
        .mark_rect()
        .encode(
            x=alt.X(
                "context:N", title=None, sort=None, axis=alt.Axis(labelAngle=-60, labelLimit=180)
            ),
            y=alt.Y("key:N", title=None, sort=list(ranked_keys)),
            color=color,
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.4)),
            tooltip=[
                "key",
                "recipient",
                "task",
                "label",
                "leaks",
                "samples",
                alt.Tooltip("frequency:Q", format=".2f"),
                "profiles",
            ],
        )
        .add_params(pick)
        .properties(height=max(240, 18 * len(ranked_keys)))
    )
    event = st.altair_chart(heat, on_select="rerun", key="heat", selection_mode="cell")
    try:
        points = event.selection["cell"]
        if points:
            chosen_cell = (points[0]["key"], points[0]["context"])
    except (AttributeError, KeyError, TypeError, IndexError):
        chosen_cell = None
    st.caption("Click a cell to list the messages behind it, below.")

st.subheader("Attributes leaked most")
st.dataframe(
    attrs.head(200),
    hide_index=True,
    key="attr_table",
    on_select="rerun",
    selection_mode="single-row",
    column_config={"leak_rate": st.column_config.NumberColumn(format="%.3f")},
)
st.subheader("Recipients that receive most")
st.dataframe(by_recipient, hide_index=True)
with st.expander("By domain, and by profile"):
    st.dataframe(by_domain, hide_index=True)
    st.dataframe(by_profile, hide_index=True)

st.subheader("Messages behind a leak")
leaky = view[(view["leaks"] > 0) & view["in_violation"]]
target = None
table_sel = st.session_state.get("attr_table")
if chosen_cell is not None:
    key, context = chosen_cell
    match = leaky[
        (leaky["key"] == key)
        & ((leaky["recipient"].astype(str) + ": " + leaky["task"].astype(str)) == context)
    ]
    if not match.empty:
        target = match.iloc[0]
elif table_sel is not None and getattr(table_sel, "selection", None) and table_sel.selection.rows:
    row = attrs.iloc[table_sel.selection.rows[0]]
    match = leaky[(leaky["profile"] == row["profile"]) & (leaky["key"] == row["key"])]
    if not match.empty:
        target = match.iloc[0]
if target is None and not leaky.empty:
    options = leaky.head(300)
    label = (
        options["profile"].astype(str)
        + " · "
        + options["key"].astype(str)
        + " → "
        + options["recipient"].astype(str)
        + " ("
        + options["leaks"].astype(str)
        + "/"
        + options["samples"].astype(str)
        + ")"
    )
    i = st.selectbox("Pair", range(len(options)), format_func=lambda j: label.iloc[j])
    target = options.iloc[i]
if target is None:
    st.info("No leak in this selection.")
    st.stop()
ctx_pos = int(target["ctx"])
attr_pos = int(target["attr"])
pid = cube.profile_ids[int(target["profile_pos"])]
rows = state.pair_messages(
    ch.db,
    ch.v,
    ch.run,
    int(pid),
    int(cube.ctx_local[ctx_pos]),
    int(cube.attr_ids[attr_pos]),
    m.info.judge_id,
)
st.markdown(
    f"**{render.escape_md(str(target['key']))}** of "
    f"**{render.escape_md(str(target['profile']))}** to "
    f"**{render.escape_md(str(target['recipient']))}** "
    f"({render.escape_md(str(target['task']))}): label {target['label']}, "
    f"{target['leaks']} of {target['samples']} samples revealed it."
)
for row in rows:
    with st.container(border=True):
        st.markdown(
            f"Trial {row.trial}: "
            + ("**revealed**" if row.revealed else "not revealed")
            + (f" — evidence: {render.escape_md(row.evidence)}" if row.evidence else "")
        )
        render.show_message(row.text or "", [row.evidence] if row.evidence else [])
        st.page_link(
            "webapp/pages/audit.py",
            label="Audit this message",
            query_params={**st.query_params.to_dict(), "message": str(row.message_id)},
        )
