"""The selected run in both metric modes, for the Learn page's "what the official script does
differently": the options of each mode and the three steps the official script takes."""

from __future__ import annotations

from dataclasses import replace

from cimem.analysis.discards import DiscardReport
from cimem.analysis.options import MODES, MetricOptions, Mode


def both_modes(opts: MetricOptions) -> dict[Mode, MetricOptions]:
    """``opts`` in each mode with every other field kept (label rule, excluded keys, parse
    failures, k), so the definition-mode numbers are those the sidebar's choices give, and a
    field added to the options later is kept too instead of silently falling back to its
    default.

    >>> opts = MetricOptions(mode="definition", exclude=("income",), parse_failures="zero")
    >>> both_modes(opts)["official"].exclude, both_modes(opts)["definition"] == opts
    (('income',), True)
    """
    return {mode: replace(opts, mode=mode) for mode in MODES}


def parse_failures_note(opts: MetricOptions) -> str:
    """How definition mode under ``opts`` treats a judge reply that failed to parse."""
    if opts.parse_failures == "exclude":
        return "parse failures left out"
    return "parse failures counted as nothing revealed"


def official_steps(official: DiscardReport) -> list[dict[str, object]]:
    """The official script's three departures from the definitions, each with how much it
    touched in the run (``official``: the run's discard report in official mode)."""
    identity = official.identity_filter
    return [
        {
            "step": "1. withheld pairs removed by the identity filter",
            "count": identity.private_pairs_removed if identity else 0,
        },
        {"step": "2. contexts dropped from both metrics", "count": official.contexts_dropped.count},
        {
            "step": "3. samples whose judge reply failed to parse",
            "count": official.trials.parse_failures,
        },
    ]
