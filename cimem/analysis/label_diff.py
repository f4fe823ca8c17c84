"""Two runs' labels side by side: on the contexts both have (the same person, recipient and
task), which (context, attribute) pairs each labels share, private or ambiguous under one rule,
and where they differ. Runs whose labels differ for the same person and task measure different
things: their Violation and Completeness are not comparable there."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cimem.analysis.cube import LeakCube, context_keys
from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.analysis.options import labels_of

Fingerprints = dict[tuple[str, str, str], int]  # a context's matching key -> its labels' hash

UNLABELED = "unlabeled"
Key = tuple[str, str, str, str]  # profile, recipient, task, attribute


def pair_labels(cube: LeakCube, rule: LabelRule) -> dict[Key, tuple[str, Key]]:
    """Each labelled pair of the run by its matching key (:func:`context_keys` and the attribute
    key): its label and its names as the run writes them."""
    labels = labels_of(cube, rule)
    contexts = context_keys(cube)
    out: dict[Key, tuple[str, Key]] = {}
    for ctx, attr, label in zip(cube.pair_ctx.tolist(), cube.pair_attr.tolist(), labels.tolist()):
        profile = cube.profile_names[int(cube.ctx_profile[ctx])]
        shown = (profile, cube.ctx_recipient[ctx], cube.ctx_task[ctx], cube.attr_key[attr])
        out[(*contexts[ctx], cube.attr_key[attr])] = (
            str(LABEL_NAMES.get(int(label), UNLABELED)),
            shown,
        )
    return out


@dataclass(frozen=True)
class LabelDiff:
    """How two runs label the pairs of the contexts they share."""

    run_a: str
    run_b: str
    label_rule: str
    shared_contexts: int
    compared: int  # pairs labelled in either run, on the shared contexts
    same: int
    changes: dict[str, int]  # "share -> private": pairs
    examples: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.same == self.compared

    def as_dict(self) -> dict[str, object]:
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "label_rule": self.label_rule,
            "shared_contexts": self.shared_contexts,
            "pairs_compared": self.compared,
            "pairs_same": self.same,
            "changes": self.changes,
            "examples": [
                dict(zip(("profile", "recipient", "task", "attribute", "a", "b"), e))
                for e in self.examples
            ],
        }


def label_diff(a: LeakCube, b: LeakCube, rule: LabelRule, examples: int = 20) -> LabelDiff:
    """The labels of ``a`` against ``b`` on the contexts both have; the first ``examples``
    differing pairs, by profile, task and attribute."""
    shared = set(context_keys(a)) & set(context_keys(b))
    la = {k: v for k, v in pair_labels(a, rule).items() if k[:3] in shared}
    lb = {k: v for k, v in pair_labels(b, rule).items() if k[:3] in shared}
    moves: Counter[str] = Counter()
    differing = []
    for k in sorted(set(la) | set(lb)):
        x, shown = la.get(k, (UNLABELED, None))
        y, other = lb.get(k, (UNLABELED, None))
        if x != y:
            moves[f"{x} -> {y}"] += 1
            differing.append((*(shown or other or k), x, y))
    keys = set(la) | set(lb)
    return LabelDiff(
        a.run,
        b.run,
        rule.name,
        len(shared),
        len(keys),
        len(keys) - len(differing),
        dict(moves.most_common()),
        differing[:examples],
    )


@dataclass(frozen=True)
class RunPair:
    """Two runs against each other: the contexts they share (the same person, recipient and
    task) and how many of those each labels differently (any pair's label differs)."""

    run_a: str
    run_b: str
    shared_contexts: int
    contexts_labelled_differently: int

    @property
    def labels_agree(self) -> bool:
        return self.contexts_labelled_differently == 0

    def describe(self) -> str:
        """How the two compare, in words (the Overview note and ``metrics`` say it).

        >>> RunPair("1", "2", 49, 0).describe(), RunPair("1", "3", 0, 0).describe()
        ('49 shared contexts, labelled alike', 'no shared context')
        """
        if not self.shared_contexts:
            return "no shared context"
        if self.labels_agree:
            return f"{self.shared_contexts} shared contexts, labelled alike"
        return (
            f"{self.shared_contexts} shared contexts, {self.contexts_labelled_differently}"
            " labelled differently"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "shared_contexts": self.shared_contexts,
            "contexts_labelled_differently": self.contexts_labelled_differently,
            "labels_agree": self.labels_agree,
        }


def context_fingerprints(cube: LeakCube, rule: LabelRule) -> Fingerprints:
    """Each context's matching key -> a hash of its (attribute key, label) pairs under the rule:
    two runs label a context alike exactly when the hashes match (up to hash collisions). The
    hash of a context is the sum of its pairs' mixed (key, label) codes, whatever their order,
    so every context is hashed at once (valid within one process: keys use Python's hash)."""
    mask = (1 << 64) - 1
    key_code = np.array([hash(k) & mask for k in cube.attr_key], np.uint64)
    label = (labels_of(cube, rule).astype(np.int64) + 1).astype(np.uint64)  # 0, 1, 2
    value = _mixed(key_code[cube.pair_attr] * np.uint64(4) + label)
    sums = np.zeros(len(cube.ctx_profile), np.uint64)
    np.add.at(sums, cube.pair_ctx, value)  # wraps around at 2**64, as a hash may
    return dict(zip(context_keys(cube), sums.tolist()))


def _mixed(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: near codes become unrelated, so their sums do not collide.

    >>> _mixed(np.array([1, 2], np.uint64)).tolist() != [1, 2]
    True
    """
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: np.ndarray = x ^ (x >> np.uint64(31))
    return mixed


def run_pairs(cubes: list[LeakCube], rule: LabelRule) -> list[RunPair]:
    """Every pair of runs: their shared contexts and how many of those they label differently
    (`cimem labels diff` names the pairs)."""
    return pairs_of([(c.run, context_fingerprints(c, rule)) for c in cubes])


def pairs_of(prints: Sequence[tuple[str, Fingerprints]]) -> list[RunPair]:
    """:func:`run_pairs` from each run's name and :func:`context_fingerprints`, kept once its
    cube is dropped (``metrics`` over tens of runs holds one cube at a time)."""
    out = []
    for i, (run_a, a) in enumerate(prints):
        for run_b, b in prints[i + 1 :]:
            shared = a.keys() & b.keys()
            differ = sum(1 for k in shared if a[k] != b[k])
            out.append(RunPair(run_a, run_b, len(shared), differ))
    return out
