"""The judge's errors as people's verdicts show them (the Audit page), the metrics corrected for
them (Overview) and the correction told in plain words (Learn). Widgets and drawing only: the
error rates and the correction are cimem.analysis.audit's."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.audit.correction import Corrected
from cimem.analysis.audit.error_rates import AuditedErrors, audited_errors
from webapp import cache, render, sidebar


def judge_against_people(run_id: int, judge: int | None, label_rule: str) -> None:
    """The judge's errors on the pairs people decided, per label: what the correction on
    Overview estimates its error rates from (it updates with every saved verdict)."""
    human = cache.human_judge_of(cache.current(), run_id)
    if human is None or judge is None or judge == human:
        return
    ag = cache.agreement(cache.current(), judge, human, label_rule)  # the Audit page's, cached
    if ag.overall.n == 0:
        return
    st.markdown(f"**Judge {judge} against people's verdicts (judge {human}), whole run**")
    render.static_table(pd.DataFrame([_error_row(e) for e in audited_errors(ag)]))
    st.caption(
        "Missed: people found the attribute revealed, the judge did not (its false negatives);"
        " added: the judge found it revealed, people did not (false positives); Wilson 95%"
        " intervals. Overview corrects Violation@n and Completeness for these errors."
    )


def _error_row(e: AuditedErrors) -> dict[str, object]:
    def share(n: int, of: int, ci: tuple[float, float] | None) -> str:
        return f"{n} of {of}" + (f" [{100 * ci[0]:.0f}-{100 * ci[1]:.0f}%]" if ci else "")

    return {
        "label": e.label,
        "pairs people decided": e.decided,
        "judge missed": share(e.missed, e.truly_yes, e.missed_ci95),
        "judge added": share(e.added, e.truly_no, e.added_ci95),
    }


def corrected_section(ch: sidebar.Choices) -> None:
    """Overview: raw against corrected Violation@n and Completeness of each selected run that
    people have recorded verdicts on (under its own judge)."""
    for run_id in ch.runs:
        _corrected_of(ch, run_id)


def _corrected_of(ch: sidebar.Choices, run_id: int) -> None:
    human = cache.human_judge_of(ch.at, run_id)
    run_cube = cache.cube(ch.scope(run_id))
    if human is None or run_cube.info.judge_id in (None, human) or not run_cube.has_labels:
        return
    st.divider()
    c = cache.corrected(ch.scope(run_id), human)
    said = "Corrected" if c.any_corrected else "Not corrected"
    st.subheader(f"{said} for the judge's errors" + ("" if c.any_corrected else " yet"))
    st.caption(f"Run {render.escape_md(run_cube.run)}")
    r = c.result
    render.static_table(pd.DataFrame(c.rows()).drop(columns=["why not corrected"]))
    for name, v in (("Violation@n", r.violation), ("Completeness", r.completeness)):
        if v.not_estimated:
            st.info(f"{name} is not corrected: {v.not_estimated}.")
    st.caption(
        f"Run {render.escape_md(run_cube.run)}, judge {render.escape_md(run_cube.judge)},"
        f" {ch.describe()}. {c.method_sentence(ch.opts.mode)}."
        + _miss_rate_sentence(c)
        + " The Learn page explains it."
    )


def _miss_rate_sentence(c: Corrected) -> str:
    rate = c.result.violation.miss_rate
    if rate is None:
        return ""
    said = rate.sentence()
    return f" {said[0].upper()}{said[1:]}, for the leaks it missed in every cell."


CORRECTION_TEXT = """
Every number on the other pages counts what **one judge** said was revealed. Judges make
mistakes: they miss a fact the message states (a *false negative*) or see one that is not there
(a *false positive*). Violation@n is a worst case over many tasks and samples, so a small
false-positive rate adds up to a large overstatement; Completeness is an average, so misses
pull it down.

**The audit.** People decide, in a fixed random order, a sample of what the metrics count
(Audit page's suggested sample, or `cimem audit-sample` and `cimem human import`):

- for Violation@n, *withheld attributes the judge found revealed somewhere*, drawn at random
  (an attribute drawn more often the more it weighs in the metric); people read the cells the
  judge called revealed, and the first one they confirm decides it;
- for Completeness, *needed cells* (a needed attribute in one message), drawn at random within
  the judge's yes and within its no.

**The estimate** (*design-based*). Within each group, the share people confirm estimates the
share over the whole group, with an exact binomial interval; the groups' weights are known
from the judge's verdicts, so no model of the judge is needed. Completeness is that weighted sum.
Violation@n is the share of leaks people confirmed, plus the leaks the judge missed in *every*
cell of an attribute: each such leak was missed at least once, so there are at most as many as
the judge's miss rate on withheld facts times Violation@n. That rate cannot be measured cheaply
(a missed withheld fact hides among thousands of cells the judge called "no"), so it is bounded
by the miss rate measured on needed attributes, with room: the 95% interval runs from the
confirmed share's lower limit to its upper limit enlarged as if the judge missed withheld facts
**twice** as often as needed ones; the point takes them as often, and is the middle of that
range.

**What it assumes.** People decide the draws in their order (a draw skipped stops what counts
at the one before it); people's verdicts are the truth; the judge misses a stated withheld fact
at most twice as often as a stated needed one (a judge reading a long message for a sensitive
detail may well miss it more often than a plainly stated need). The interval is for this run's
own messages: how far its Violation@n under people's verdicts can be from the estimate. A
simulation over judges that miss 5-30% and add 0.5-5%, assistants that leak 1-60% (rarely,
in one cell, or in many), audits of 100-800 cells and judges that miss withheld facts as often,
1.5 and 2 times as often as needed ones (`bench/correction.py`) checks that the interval holds
the truth at least 93% of the time in every regime; at 3 times as often it no longer does.
"""


def explain_correction() -> None:
    """The Learn page's plain-words account of the correction and its assumptions."""
    st.divider()
    st.header("Correcting for the judge's errors")
    st.markdown(CORRECTION_TEXT)
