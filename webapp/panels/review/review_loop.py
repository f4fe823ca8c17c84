"""The Review page's loop: the suggested audit sample one cell at a time, the message beside the
verdict, one key per verdict. Widgets and drawing only: the sample is cimem.analysis.audit's,
people's verdicts the store's."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from cimem.analysis.audit import MessageAudit
from cimem.analysis.audit.correction import audited_spec
from cimem.analysis.audit.provenance import SampleSpec
from cimem.analysis.audit.reviewers import ANONYMOUS, by_cell, second_review
from cimem.analysis.audit.sample import SampleRow, draws_done
from cimem.analysis.options import Mode
from cimem.store import HumanVerdict
from cimem.text import plural
from webapp import cache, connection, message_view, render, sidebar

KEYS = {"yes": "Y", "no": "N", "skip": "S", "previous": "Left", "next": "Right"}
CHEAT_SHEET = (
    "Keys: **Y** revealed · **N** not revealed · **S** skip (the draws after a skipped one wait"
    " for it) · **←** previous · **→** next. A verdict moves to the next cell still needed; a"
    " private attribute's draw is decided by its first cell found revealed. Keys work while no"
    " field or toggle has the focus (click the page's title to give it back)."
)
QUESTIONS = {
    "private": "Does the message reveal this withheld attribute?",
    "share": "Does the message state this needed attribute?",
}


@dataclass(frozen=True)
class Progress:
    """People's verdicts on the sample so far, as this reviewer sees them."""

    said: dict[tuple[int, int], bool]  # (message_id, attr_id) -> settled verdict
    deciders: dict[tuple[int, int], set[str]]  # who decided each cell (adjudications apart)
    done: dict[int, bool]  # draw -> decided
    me: str  # this reviewer

    def mine(self, row: SampleRow) -> bool:
        return self.me in self.deciders.get((row.message_id, row.attr_id), set())

    def second_turn(self, row: SampleRow) -> bool:
        """A cell of a draw two reviewers decide, decided by one other reviewer so far."""
        who = self.deciders.get((row.message_id, row.attr_id), set())
        return second_review(row.draw) and len(who) == 1 and self.me not in who

    def needed(self, row: SampleRow) -> bool:
        """The cell still waits for this reviewer: nobody decided it and its draw is open, or it
        is a second review's turn."""
        key = (row.message_id, row.attr_id)
        return self.second_turn(row) or (not self.done[row.draw] and key not in self.deciders)


def run_name(ch: sidebar.Choices, run_id: int) -> str:
    """The run's name as the sidebar lists it."""
    return cache.run_names(ch.at).get(run_id, str(run_id))


def finished(rows: list[SampleRow], made: Progress) -> bool:
    """Whether nothing of the sample waits for this reviewer."""
    return not any(made.needed(r) for r in rows)


def judge_of(ch: sidebar.Choices, run_id: int) -> int | None:
    """The judge the sidebar chose for the run (its original by default; None: not judged),
    found without reading the run's verdicts: every verdict changes the file, and with it
    every cached cube's key."""
    chosen = ch.judges.get(run_id)
    if chosen is not None:
        return chosen
    with connection.reading() as store:
        return store.find_default_judge(run_id)


def noted_size(ch: sidebar.Choices, run_id: int) -> int | None:
    """The size of the sample people decided on the run (None: none noted yet), found once per
    run, judge and options in this visit: it reads the run's cube, whose cache key every verdict
    changes (re-reading it was half the time of every verdict's key), and it is only where the
    size field starts."""
    key = (cache.current().path, run_id, ch.judges.get(run_id), ch.opts)
    kept = st.session_state.get("review_noted")
    if kept is not None and kept[0] == key:
        size: int | None = kept[1]
        return size
    size = cache.noted_size(ch.scope(run_id))
    st.session_state["review_noted"] = (key, size)
    return size


def sample(ch: sidebar.Choices, run_id: int, judge: int, size: int) -> list[SampleRow]:
    """The sample's cells, drawn once per run, judge, options and size in this visit: people's
    verdicts do not change them, so a verdict redraws nothing."""
    key = (cache.current().path, run_id, judge, ch.opts, size)
    kept = st.session_state.get("review_rows")
    if kept is not None and kept[0] == key:
        drawn: list[SampleRow] = kept[1]
        return drawn
    scope = ch.scope(run_id)
    seed = cache.audit_seed(scope)
    rows = cache.sample_rows(scope, size, seed)
    st.session_state["review_rows"] = (key, rows)
    st.session_state["review_sample"] = _sample_noted(ch, run_id, seed, size)
    return rows


def _sample_noted(
    ch: sidebar.Choices, run_id: int, seed: int, size: int
) -> tuple[SampleSpec | None, int]:
    """The sample being reviewed, as it is noted with the verdicts (the corrected numbers
    follow its draws), and its size."""
    return audited_spec(cache.cube(ch.scope(run_id)), ch.opts, seed, size), size


def progress(run_id: int, rows: list[SampleRow]) -> Progress:
    with connection.reading() as store:
        human = store.find_human_judge(run_id)
        said = store.settled_human_verdicts(human) if human is not None else {}
        current = store.human_verdicts(human) if human is not None else []
    deciders = {key: set(who) for key, who in by_cell(current).items()}
    return Progress(said, deciders, draws_done(rows, said), reviewer_name())


def reviewer_name() -> str:
    return str(st.session_state.get("reviewer") or "").strip() or ANONYMOUS


def position(rows: list[SampleRow], made: Progress) -> int:
    """The cell shown: where the reviewer moved, else the first cell still needed from where the
    last verdict or skip left off (from the start when none is left after it), a second
    review's turn first."""
    at = st.session_state.get("review_at")
    if isinstance(at, int) and 0 <= at < len(rows):
        return at
    start = min(int(st.session_state.get("review_from") or 0), len(rows))
    order: list[int] = [*range(start, len(rows)), *range(0, start)]
    for wanted in (made.second_turn, made.needed):  # a second review waits for no one
        for i in order:
            if wanted(rows[i]):
                return i
    return min(start, len(rows) - 1)


def _record(run_id: int, row: SampleRow, i: int, revealed: bool) -> None:
    """Store the verdict on cell ``i``, unless the page has moved on from it: a key pressed
    again before the next cell is drawn would otherwise decide the same cell twice."""
    if st.session_state.get("review_shown") != i:
        st.session_state["review_dropped"] = True
        return
    st.session_state["review_shown"] = None
    who = reviewer_name()
    reviewer = None if who == ANONYMOUS else who
    spec, size = st.session_state["review_sample"]
    with cache.writing() as store, store.transaction():
        human = store.get_or_create_human_judge(run_id)
        store.add_human_verdicts(
            human, [HumanVerdict(row.message_id, row.attr_id, revealed, reviewer, None)]
        )
        if spec is not None:
            store.record_audit_samples(human, [spec.noted(human, size)])
    _move_on(i)


def _move_on(i: int) -> None:
    st.session_state["review_shown"] = None
    st.session_state["review_at"] = None
    st.session_state["review_from"] = i + 1


def _go(i: int) -> None:
    st.session_state["review_at"] = i


def buttons(run_id: int, rows: list[SampleRow], i: int) -> None:
    """The verdict and the moves, each with its key."""
    row = rows[i]
    st.session_state["review_shown"] = i
    if st.session_state.pop("review_dropped", False):
        st.toast("A key pressed before this cell was drawn was not counted: press it again.")
    bar = st.container(horizontal=True)
    bar.button(
        "Revealed",
        shortcut=KEYS["yes"],
        type="primary",
        on_click=_record,
        args=(run_id, row, i, True),
    )
    bar.button("Not revealed", shortcut=KEYS["no"], on_click=_record, args=(run_id, row, i, False))
    bar.button("Skip", shortcut=KEYS["skip"], on_click=_move_on, args=(i,))
    bar.button(
        "◀ Previous", shortcut=KEYS["previous"], disabled=i == 0, on_click=_go, args=(i - 1,)
    )
    bar.button(
        "Next ▶", shortcut=KEYS["next"], disabled=i + 1 >= len(rows), on_click=_go, args=(i + 1,)
    )


def cell(ch: sidebar.Choices, judge: int, row: SampleRow, made: Progress, blind: bool) -> None:
    """The message with the attribute's evidence, beside what to decide about it."""
    audit: MessageAudit | None = cache.message_audit(ch.at, row.message_id, ch.opts.label_rule)
    if audit is None:
        st.error(f"Message {row.message_id} is no longer in the database.")
        return
    show_judge = not blind or made.mine(row)
    left, right = st.columns([3, 2])
    with left, st.container(border=True):
        official = ch.opts.mode == Mode.OFFICIAL
        evidence = [e for e in audit.evidence(judge, official) if e.key == row.attribute]
        message_view.show_message(
            audit.message.text or "",
            evidence if show_judge else [],
            key=f"review-{row.message_id}",
            chosen=row.attribute,
            alone=False,
        )
    with right:
        found = next((a for a in audit.attributes if a.attr_id == row.attr_id), None)
        st.markdown(f"**{QUESTIONS.get(row.label, 'Is this attribute revealed?')}**")
        st.markdown(f"Attribute **{render.escape_md(row.attribute)}** ({row.label})")
        if found is not None and found.statement:
            st.markdown(f"Memory: {render.escape_md(found.statement)}")
        st.markdown(
            f"Task: {render.escape_md(row.recipient)}: {render.escape_md(row.task)}  \n"
            f"Profile {render.escape_md(row.profile)}, trial {row.trial}, message"
            f" {row.message_id}"
        )
        judged = f"the judge says **{row.judge_says}**" if show_judge else "the judge: hidden"
    st.markdown(f"{judged} · {_people_line(row, made)}")


def _people_line(row: SampleRow, made: Progress) -> str:
    """What people said, kept from a second reviewer until they decide."""
    so_far = made.said.get((row.message_id, row.attr_id))
    if made.second_turn(row):
        return "**second review**: another reviewer decided it (hidden until you do)"
    if made.mine(row) or so_far is not None:
        return (
            f"people: **{'revealed' if so_far else 'not revealed'}**"
            if so_far is not None
            else "people: **reviewers disagree** (adjudicate it on the Audit page)"
        )
    return "not decided yet"


def summary(rows: list[SampleRow], made: Progress, i: int, blind: bool) -> str:
    decided = sum(made.done.values())
    needed = sum(made.needed(r) for r in rows)
    second = " · a second review" if second_review(rows[i].draw) else ""
    kind = f"{rows[i].label} attribute" if blind else rows[i].stratum  # blind: not the judge's
    return (
        f"Cell {i + 1} of {len(rows)} · draw {rows[i].draw} of {len(made.done)}"
        f" ({kind}{second}) · {decided} draws decided · {plural(needed, 'cell')}"
        " still needed" + ("" if made.me == ANONYMOUS else f" by {render.escape_md(made.me)}")
    )
