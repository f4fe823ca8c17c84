"""Agreement between two judges (or a judge and people) on the (message, attribute) pairs both
decided: raw agreement, Cohen's kappa, the confusion matrix, splits by label and domain, and the
disagreements with both evidence sentences."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.store import Store


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two boolean raters; nan when there is nothing to compare.

    >>> round(cohen_kappa(np.array([1, 1, 0, 0], bool), np.array([1, 0, 0, 0], bool)), 3)
    0.5
    """
    n = len(a)
    if n == 0:
        return float("nan")
    po = float(np.mean(a == b))
    pa, pb = float(np.mean(a)), float(np.mean(b))
    pe = pa * pb + (1 - pa) * (1 - pb)
    return 1.0 if pe == 1.0 else (po - pe) / (1 - pe)


@dataclass
class AgreementStats:
    n: int
    agreement: float
    kappa: float
    confusion: dict[str, int]  # both_yes, a_only, b_only, both_no

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray) -> AgreementStats:
        return cls(
            n=int(len(a)),
            agreement=float(np.mean(a == b)) if len(a) else float("nan"),
            kappa=cohen_kappa(a, b),
            confusion={
                "both_yes": int(np.sum(a & b)),
                "a_only": int(np.sum(a & ~b)),
                "b_only": int(np.sum(~a & b)),
                "both_no": int(np.sum(~a & ~b)),
            },
        )


@dataclass
class Agreement:
    judge_a: int
    judge_b: int
    label_rule: str
    overall: AgreementStats
    by_label: dict[str, AgreementStats]
    by_domain: dict[str, AgreementStats]
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge_a": self.judge_a,
            "judge_b": self.judge_b,
            "label_rule": self.label_rule,
            "overall": self.overall.__dict__,
            "by_label": {k: v.__dict__ for k, v in self.by_label.items()},
            "by_domain": {k: v.__dict__ for k, v in self.by_domain.items()},
            "disagreements": self.disagreements,
        }


def agreement(
    store: Store,
    judge_a: int,
    judge_b: int,
    label_rule: str = "unanimous",
    max_disagreements: int | None = None,
) -> Agreement:
    rule = LabelRule.parse(label_rule)
    d = store.agreement_pairs(judge_a, judge_b)
    a = np.asarray(d["a_revealed"], bool)
    b = np.asarray(d["b_revealed"], bool)
    hard = np.asarray(d["hard"], np.int8)
    nec = np.nan_to_num(np.asarray(d["necessary"], np.float64))
    priv = np.nan_to_num(np.asarray(d["private"], np.float64))
    label = np.where(hard == -2, rule.apply(nec, priv), hard)
    has_fraction = ~np.isnan(np.asarray(d["necessary"], np.float64))
    label = np.where((hard == -2) & ~has_fraction, -3, label)  # no label at all
    names = {**LABEL_NAMES, -3: "unlabeled"}
    by_label = {
        names[int(v)]: AgreementStats.of(a[label == v], b[label == v]) for v in np.unique(label)
    }
    domains = np.array([x if x is not None else "(none)" for x in d["domain"]], dtype=object)
    by_domain = {
        str(v): AgreementStats.of(a[domains == v], b[domains == v])
        for v in sorted(set(domains.tolist()))
    }
    idx = np.flatnonzero(a != b)
    if max_disagreements is not None:
        idx = idx[:max_disagreements]
    dis = [
        {
            "message_id": int(d["message_id"][i]),
            "profile_id": int(d["profile_id"][i]),
            "ctx_idx": int(d["ctx_idx"][i]),
            "trial": int(d["trial"][i]),
            "key": d["key"][i],
            "domain": d["domain"][i],
            "label": names[int(label[i])],
            "a_revealed": bool(a[i]),
            "b_revealed": bool(b[i]),
            "a_evidence": d["a_evidence"][i],
            "b_evidence": d["b_evidence"][i],
        }
        for i in idx
    ]
    return Agreement(judge_a, judge_b, rule.name, AgreementStats.of(a, b), by_label, by_domain, dis)
