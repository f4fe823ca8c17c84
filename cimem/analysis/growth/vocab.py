"""The growth curves' vocabularies: task orders, sample modes, random-order methods, the lines a
chart draws and the two axes a slice runs along. Each is a StrEnum whose values are the strings
the CLI, the app and the JSON contract use, so a plain string compares equal to its member."""

from __future__ import annotations

from enum import StrEnum


class Order(StrEnum):
    """The order tasks are added in."""

    RANDOM = "random"  # the expectation over uniformly random T-subsets
    FIXED = "fixed"  # the listed contexts (or a given order), cumulative
    WORST = "worst"  # a greedy order that adds the task raising Violation most


class SampleMode(StrEnum):
    """How k samples of a task are read from its n."""

    FIRST = "first"  # the first k samples
    UNBIASED = "unbiased"  # the unbiased estimator from all n


class Method(StrEnum):
    """What a random order averages."""

    EXPECTED_RATIO = "expected-ratio"  # the mean of Violation itself (Figure 2)
    RATIO_OF_EXPECTATIONS = "ratio-of-expectations"  # expected leaked over expected eligible


class Line(StrEnum):
    """The lines of a growth chart, as their legend names them."""

    OBSERVED = "observed"
    THEORY = "1-(1-p)^k (independent samples)"
    BOUND = "union bound T·V(1)"


class Axis(StrEnum):
    """What a slice of the grid runs along: task counts T (at one k) or samples k (at one T)."""

    TASKS = "T"
    SAMPLES = "k"


ORDERS = tuple(Order)
SAMPLE_MODES = tuple(SampleMode)
METHODS = tuple(Method)
EXPECTED_RATIO = Method.EXPECTED_RATIO
RATIO_OF_EXPECTATIONS = Method.RATIO_OF_EXPECTATIONS


def method_name(text: str) -> Method:
    """The random-order method for a name, old names included (``montecarlo`` is the expected
    ratio; ``exact`` named the ratio of expectations as if it were the exact Figure 2 value,
    so it is refused with what to use instead).

    >>> str(method_name("montecarlo"))
    'expected-ratio'
    """
    if text in METHODS:
        return Method(text)
    if text == "montecarlo":
        return EXPECTED_RATIO
    if text == "exact":
        raise ValueError(
            "method 'exact' was renamed: it is the ratio of expected counts, now"
            f" '{RATIO_OF_EXPECTATIONS}'; the default '{EXPECTED_RATIO}' is the expectation of"
            " the ratio, what the paper's Figure 2 samples"
        )
    raise ValueError(f"method must be one of {', '.join(METHODS)} (got {text!r})")
