"""Agreement between two judges (or a judge and people) on the (message, attribute) pairs both
decided: raw agreement, Cohen's kappa, the confusion matrix, splits by label and domain, and the
disagreements with both evidence sentences. Agreement per stratum (label x domain) carries a
Wilson 95% interval; kappa is "undefined" (nan) where a judge is constant."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.store import Store


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two boolean raters; nan ("undefined") when there is nothing to compare or
    a rater is constant: chance agreement then explains everything there is and the ratio is 0/0
    (both constant alike) or says nothing about skill (one constant gives exactly 0).

    >>> round(cohen_kappa(np.array([1, 1, 0, 0], bool), np.array([1, 0, 0, 0], bool)), 3)
    0.5
    >>> cohen_kappa(np.array([1, 1], bool), np.array([1, 1], bool))
    nan
    """
    n = len(a)
    if n == 0:
        return float("nan")
    pa, pb = float(np.mean(a)), float(np.mean(b))
    if pa in (0.0, 1.0) or pb in (0.0, 1.0):
        return float("nan")
    po = float(np.mean(a == b))
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe)


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion (sound near 0 and 1 and for small n, where
    the normal approximation gives impossible bounds); (nan, nan) when n = 0.

    >>> [round(x, 3) for x in wilson_interval(10, 10)]
    [0.722, 1.0]
    """
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, float(centre - half))
    hi = 1.0 if successes == n else min(1.0, float(centre + half))
    return (lo, hi)


def format_kappa(kappa: float) -> str:
    """Kappa for people: three decimals, or "undefined" where a judge is constant."""
    return "undefined" if kappa != kappa else f"{kappa:.3f}"


@dataclass
class AgreementStats:
    n: int
    agreement: float
    agreement_ci95: tuple[float, float]  # Wilson score interval
    kappa: float  # nan: undefined (no pairs, or a judge constant)
    confusion: dict[str, int]  # both_yes, a_only, b_only, both_no

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray) -> AgreementStats:
        same = int(np.sum(a == b))
        return cls(
            n=int(len(a)),
            agreement=same / len(a) if len(a) else float("nan"),
            agreement_ci95=wilson_interval(same, int(len(a))),
            kappa=cohen_kappa(a, b),
            confusion={
                "both_yes": int(np.sum(a & b)),
                "a_only": int(np.sum(a & ~b)),
                "b_only": int(np.sum(~a & b)),
                "both_no": int(np.sum(~a & ~b)),
            },
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "agreement": self.agreement,
            "agreement_ci95": list(self.agreement_ci95),
            "kappa": self.kappa,
            "kappa_defined": self.kappa == self.kappa,
            "confusion": self.confusion,
        }


@dataclass
class Agreement:
    judge_a: int
    judge_b: int
    label_rule: str
    overall: AgreementStats
    by_label: dict[str, AgreementStats]
    by_domain: dict[str, AgreementStats]
    by_stratum: dict[str, AgreementStats]  # "label / domain"
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge_a": self.judge_a,
            "judge_b": self.judge_b,
            "label_rule": self.label_rule,
            "overall": self.overall.as_dict(),
            "by_label": {k: v.as_dict() for k, v in self.by_label.items()},
            "by_domain": {k: v.as_dict() for k, v in self.by_domain.items()},
            "by_stratum": {k: v.as_dict() for k, v in self.by_stratum.items()},
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
    label_names = np.array([names[int(v)] for v in label], dtype=object)
    strata = label_names + " / " + domains.astype(str) if len(label) else label_names
    by_stratum = {
        str(v): AgreementStats.of(a[strata == v], b[strata == v])
        for v in sorted(set(strata.tolist()))
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
    return Agreement(
        judge_a, judge_b, rule.name, AgreementStats.of(a, b), by_label, by_domain, by_stratum, dis
    )
