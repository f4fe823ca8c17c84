"""The Learn page's simulator: why a worst case over tasks and samples grows like 1-(1-p)^n
while the per-message average stays at p."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Simulation:
    p: float
    tasks: int
    samples: int
    attributes: int
    violation: float  # share of attributes leaked at least once
    per_message: float  # share of (attribute, task, sample) leaked
    formula: float  # 1 - (1 - p)^(tasks x samples)
    curve_tasks: list[float]  # observed violation after 1..tasks tasks (all samples)


def simulate(
    p: float, tasks: int, samples: int, attributes: int = 100, seed: int = 0
) -> Simulation:
    """Each attribute is withheld in every task; each sample leaks it independently with p."""
    if not 0 <= p <= 1:
        raise ValueError("p must be between 0 and 1")
    rng = np.random.default_rng(seed)
    leaks = rng.random((attributes, tasks, samples)) < p
    per_task = np.asarray(leaks.any(axis=2))
    curve = [float(per_task[:, :t].any(axis=1).mean()) for t in range(1, tasks + 1)]
    return Simulation(
        p,
        tasks,
        samples,
        attributes,
        violation=curve[-1],
        per_message=float(leaks.mean()),
        formula=1.0 - (1.0 - p) ** (tasks * samples),
        curve_tasks=curve,
    )


# Figure 1 of the paper as a worked example: one task, three needed attributes, one withheld
FIGURE1 = {
    "recipient": "Financial advisor",
    "task": "Plan savings for a house",
    "needed": ["annual income", "monthly savings", "current debt"],
    "revealed_needed": ["annual income", "monthly savings"],
    "withheld": ["hypertension diagnosis"],
    "revealed_withheld": ["hypertension diagnosis"],
}
