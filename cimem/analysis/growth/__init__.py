"""Accumulation curves: how Violation grows with the number of tasks T and samples k.

For one profile, attribute a is private in a set of tasks; in task t it has q_t, the chance that k
samples of that task do NOT reveal it (observed first-k: 0 if one of the first k samples revealed
it, else 1; unbiased: C(n - c, k) / C(n, k); independence theory: (1 - c/n)^k). Over a task set S,
a is in the denominator when S meets its private tasks, and counts as leaked with probability
1 - prod_{t in S} q_t (tasks where it is not private have q = 1).

Orders, always named in the output:

- ``random``, method ``expected-ratio`` (the default): the expectation over uniformly random
  T-subsets of Violation itself, what the paper's Figure 2 samples. Enumerated exactly when
  C(N, T) <= draws (T = 1, N - 1, N), otherwise estimated from ``draws`` random task orders (the
  first T tasks of a random order are a uniform T-subset, so one order serves every T), with its
  Monte Carlo standard error; the label says ``expected-ratio:<draws>:<seed>``.
- ``random``, method ``ratio-of-expectations``: the expected leaked count over the expected
  eligible count. Both expectations are exact: E[prod_{t in S} q_t] = e_T(q) / C(N, T), the
  elementary symmetric polynomial of degree T of the N values (for 0/1 values this is the
  hypergeometric 1 - C(N - L, T) / C(N, T)). It differs slightly from the expected ratio.
- ``fixed``: the listed contexts (or a given order), cumulative.
- ``worst``: a greedy order that adds, at each step, the task that raises Violation most (an upper
  envelope; the exact worst order is a maximum-coverage problem).

At T = N and k = n every curve equals Violation@n of the metrics engine in the same mode. Curves
never fall with k; they can fall with T (a task may add withheld attributes that it does not
leak), most visibly in a fixed order. For
random subsets the union bound V(T) <= T x V(1) holds (ratio of expectations); it is returned as a
reference line: it is why the paper's 9.6% over 40 tasks cannot be a plain random-subset average.
"""

from __future__ import annotations

from cimem.analysis.growth.attribute import AttributeView, HazardPoint, attribute_view
from cimem.analysis.growth.composition_rows import Measure, composition_rows
from cimem.analysis.growth.curve import DEFAULT_OPTIONS, CurvePoint, GrowthCurve, growth
from cimem.analysis.growth.matrices import (
    ProfileMatrix,
    elementary_symmetric,
    profile_matrices,
    q_matrix,
)
from cimem.analysis.growth.ordered import greedy_worst_order, greedy_worst_orders
from cimem.analysis.growth.reading import (
    end_gap_note,
    hidden_reason,
    how_computed,
    largest_stderr,
    standard_error_note,
    theory_hidden,
)
from cimem.analysis.growth.runs import (
    RunCurves,
    on_slice,
    runs_with_theory_hidden,
    slice_rows,
    slice_table,
)
from cimem.analysis.growth.vocab import (
    EXPECTED_RATIO,
    METHODS,
    ORDERS,
    RATIO_OF_EXPECTATIONS,
    SAMPLE_MODES,
    Axis,
    Line,
    Method,
    Order,
    SampleMode,
    method_name,
)

__all__ = [
    "DEFAULT_OPTIONS",
    "EXPECTED_RATIO",
    "METHODS",
    "ORDERS",
    "RATIO_OF_EXPECTATIONS",
    "SAMPLE_MODES",
    "AttributeView",
    "Axis",
    "CurvePoint",
    "GrowthCurve",
    "HazardPoint",
    "Line",
    "Measure",
    "Method",
    "Order",
    "ProfileMatrix",
    "RunCurves",
    "SampleMode",
    "attribute_view",
    "composition_rows",
    "elementary_symmetric",
    "end_gap_note",
    "greedy_worst_order",
    "greedy_worst_orders",
    "growth",
    "hidden_reason",
    "how_computed",
    "largest_stderr",
    "method_name",
    "on_slice",
    "profile_matrices",
    "q_matrix",
    "runs_with_theory_hidden",
    "slice_rows",
    "slice_table",
    "standard_error_note",
    "theory_hidden",
]
