"""Hard labels from persona fractions, under a named rule applied at query time.

A pair (attribute, task) has fractions ``necessary``, ``private``, ``unlabeled`` (the weighted
``labels_combined`` of the persona samples). A rule turns them into share / private / ambiguous:

- ``unanimous`` (the official rule, default): the bin with mass >= 1, i.e. every persona sample
  agreed. Compared exactly as the official script does (``>= 1``), with no tolerance.
- ``majority``: the bin holding more than half of the mass.
- ``threshold:X`` (0.5 < X <= 1): the bin holding at least X of the mass.

Ambiguous pairs are out of both metrics. Sources that ship only hard labels (the Hugging Face
release, PersistBench) keep theirs whatever the rule.

>>> import numpy as np
>>> rule = LabelRule.parse("threshold:0.8")
>>> rule.apply(np.array([0.9, 0.1, 0.5]), np.array([0.1, 0.85, 0.5])).tolist()
[1, 0, -1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.store.enums import Label

SHARE, PRIVATE, AMBIGUOUS = 1, 0, -1
LABEL_NAMES = {SHARE: Label.SHARE, PRIVATE: Label.PRIVATE, AMBIGUOUS: Label.AMBIGUOUS}


@dataclass(frozen=True)
class LabelRule:
    """A named rule; ``threshold`` is the mass a bin needs (1.0 for unanimous)."""

    name: str
    threshold: float
    strict: bool = False  # majority: more than half, not at least

    @classmethod
    def parse(cls, text: str | None) -> LabelRule:
        """The rule a name stands for (case and spaces ignored; empty: the official rule).

        >>> LabelRule.parse(" Majority ")
        LabelRule(name='majority', threshold=0.5, strict=True)
        >>> LabelRule.parse(None).name, LabelRule.parse("threshold:0.80").name
        ('unanimous', 'threshold:0.8')
        >>> LabelRule.parse("threshold:0.5")
        Traceback (most recent call last):
        ...
        ValueError: label rule 'threshold:0.5': X must be a number in (0.5, 1]
        """
        text = (text or "unanimous").strip().lower()
        if text == "unanimous":
            return cls("unanimous", 1.0)
        if text == "majority":
            return cls("majority", 0.5, strict=True)
        if text.startswith("threshold:"):
            try:
                x = float(text.split(":", 1)[1])
            except ValueError:
                x = float("nan")
            if not 0.5 < x <= 1.0:
                raise ValueError(f"label rule {text!r}: X must be a number in (0.5, 1]")
            return cls(f"threshold:{x:g}", x)
        raise ValueError(f"unknown label rule {text!r}; choose unanimous, majority or threshold:X")

    def apply(self, necessary: np.ndarray, private: np.ndarray) -> np.ndarray:
        """Label codes (1 share, 0 private, -1 ambiguous) for arrays of fractions.

        Majority needs more than half of the mass; exactly half is ambiguous:

        >>> LabelRule.parse("majority").apply(np.array([0.5, 0.6]), np.array([0.5, 0.4])).tolist()
        [-1, 1]
        """
        if self.strict:
            share, priv = necessary > self.threshold, private > self.threshold
        else:
            share, priv = necessary >= self.threshold, private >= self.threshold
        out = np.full(len(necessary), AMBIGUOUS, dtype=np.int8)
        out[share & ~priv] = SHARE
        out[priv & ~share] = PRIVATE
        return out

    def __str__(self) -> str:
        return self.name
