"""Where a run's labels come from, for label sensitivity: the stored combined view, a single
Westin persona, the personas weighted alike, or people's labels.

A :class:`Scheme` is a label rule applied to a source, written ``RULE@SOURCE`` (``majority@pragmatic``;
a bare rule reads the combined view). Under unanimity the weights change nothing (mass 1 means
every sample agreed), so the weights matter only under majority or threshold rules; a single
persona's unanimity asks only its own samples to agree.

>>> Scheme.parse("majority@pragmatic").name, Scheme.parse(" Unanimous ").name
('majority@pragmatic', 'unanimous')
>>> persona_of("gpt-5___the_privacy_fundamentalist__"), persona_of("annotator_7")
(<Persona.FUNDAMENTALIST: 'fundamentalist'>, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np
import pandas as pd

from cimem.analysis.cube import HARD_FROM_FRACTIONS, LeakCube
from cimem.analysis.labels import AMBIGUOUS, PRIVATE, SHARE, LabelRule
from cimem.store.columns import PersonaFractions
from cimem.store.enums import PeopleLabel
from cimem.store.rows import PeoplePairLabel

_KEYS = ["profile_id", "ctx_idx", "attr_id"]
PEOPLE_CODES = {
    PeopleLabel.SHARE: SHARE,
    PeopleLabel.WITHHOLD: PRIVATE,
    PeopleLabel.UNSURE: AMBIGUOUS,
}


class Persona(StrEnum):
    """Westin's privacy types, as the labelling personas are named."""

    FUNDAMENTALIST = "fundamentalist"
    PRAGMATIC = "pragmatic"
    UNCONCERNED = "unconcerned"


def persona_of(stored: str) -> Persona | None:
    """The Westin persona a stored persona name stands for (the official file prefixes its
    labeller, ``gpt-5___the_pragmatic__``; cimem's labeller writes ``pragmatic``)."""
    low = stored.lower()
    return next((p for p in Persona if p.value in low), None)


class Source(StrEnum):
    """What a scheme's rule reads."""

    COMBINED = "combined"  # the stored weighted view (0.26 / 0.64 / 0.10 in the official file)
    EQUAL = "equal"  # the three personas weighted alike
    FUNDAMENTALIST = "fundamentalist"
    PRAGMATIC = "pragmatic"
    UNCONCERNED = "unconcerned"
    PEOPLE = "people"  # people's labels (share / withhold; unsure and disputed are ambiguous)
    REVIEWED = "reviewed"  # the combined view on the pairs people labelled only


@dataclass(frozen=True)
class Scheme:
    """A label rule applied to a source."""

    rule: LabelRule
    source: Source = Source.COMBINED

    @classmethod
    def parse(cls, text: str) -> Scheme:
        """``RULE`` or ``RULE@SOURCE`` (case and spaces ignored); ``people`` alone is people's
        labels, which no rule changes."""
        rule_text, _, source_text = text.strip().lower().partition("@")
        if rule_text == Source.PEOPLE:
            return cls(LabelRule.parse("unanimous"), Source.PEOPLE)
        try:
            source = Source(source_text.strip() or Source.COMBINED)
        except ValueError:
            raise ValueError(
                f"label scheme {text!r}: unknown source {source_text!r}; choose {', '.join(Source)}"
            ) from None
        return cls(LabelRule.parse(rule_text), source)

    @property
    def name(self) -> str:
        if self.source is Source.PEOPLE:
            return "people"
        return self.rule.name if self.source is Source.COMBINED else f"{self.rule}@{self.source}"

    def describe(self) -> str:
        """What the scheme asks, in a sentence a reader of the table needs."""
        if self.source is Source.PEOPLE:
            return "people's labels (unsure and reviewers who disagree: ambiguous)"
        reads = {
            Source.COMBINED: "the combined view (personas weighted as stored)",
            Source.EQUAL: "the three personas weighted alike",
            Source.REVIEWED: "the combined view, on the pairs people labelled only",
        }.get(self.source, f"the {self.source} persona alone")
        return f"{self.rule} of {reads}"


OFFICIAL = Scheme(LabelRule.parse("unanimous"))
DEFAULT_SCHEMES: tuple[str, ...] = (
    "unanimous",
    "majority",
    "majority@equal",
    *(f"{rule}@{p}" for rule in ("unanimous", "majority") for p in Persona),
)
PEOPLE_SCHEMES: tuple[str, ...] = ("people", "unanimous@reviewed")


def pair_keys(cube: LeakCube) -> pd.DataFrame:
    """The store's (profile_id, ctx_idx, attr_id) of every pair of a stored run's cube."""
    profile_ids, ctx_local, attr_ids = cube.store_ids()
    ctx = cube.pair_ctx
    return pd.DataFrame(
        {
            "profile_id": np.asarray(profile_ids, np.int64)[cube.ctx_profile[ctx]],
            "ctx_idx": ctx_local[ctx].astype(np.int64),
            "attr_id": attr_ids[cube.pair_attr],
        }
    )


def relabelled(
    cube: LeakCube,
    source: Source,
    fractions: PersonaFractions | None = None,
    people: Sequence[PeoplePairLabel] = (),
) -> LeakCube:
    """The cube with its pairs labelled from ``source``: persona fractions in place of the
    combined ones (a pair the source has no fractions for is ambiguous), or people's hard
    labels. Pairs of sources that ship only hard labels keep them, except under people's."""
    if source is Source.COMBINED:
        return cube
    if source is Source.PEOPLE:
        codes = people_codes(cube, people)
        return replace(cube, pair_hard=codes)
    if source is Source.REVIEWED:
        hard = cube.pair_hard.copy()
        hard[people_codes(cube, people, unlabelled=-9) == -9] = AMBIGUOUS
        return replace(cube, pair_hard=hard)
    if fractions is None:
        raise ValueError(f"source {source} needs the run's persona fractions")
    necessary, private = _source_fractions(pair_keys(cube), fractions, source)
    hard = cube.pair_hard.copy()
    hard[(hard == HARD_FROM_FRACTIONS) & np.isnan(necessary)] = AMBIGUOUS
    return replace(
        cube,
        pair_necessary=np.nan_to_num(necessary),
        pair_private=np.nan_to_num(private),
        pair_hard=hard,
    )


def _source_fractions(
    keys: pd.DataFrame, fractions: PersonaFractions, source: Source
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair (in ``keys``' order), the source's necessary and private mass; NaN where the
    source has none (equal weights need all three personas)."""
    frame = pd.DataFrame({k: fractions[k] for k in (*_KEYS, "necessary", "private")})
    frame["persona"] = [persona_of(str(p)) for p in fractions.persona]
    if source is Source.EQUAL:
        grouped = frame.dropna(subset=["persona"]).groupby(_KEYS)
        means = grouped[["necessary", "private"]].mean()
        means = means[grouped["persona"].nunique() == len(Persona)].reset_index()
    else:
        means = frame[frame["persona"] == Persona(source.value)][[*_KEYS, "necessary", "private"]]
    merged = keys.merge(means, how="left", on=_KEYS)
    return merged["necessary"].to_numpy(np.float64), merged["private"].to_numpy(np.float64)


def people_codes(
    cube: LeakCube, people: Sequence[PeoplePairLabel], unlabelled: int = AMBIGUOUS
) -> np.ndarray:
    """Per pair, people's label code: share or withhold where every reviewer's current label
    agrees, ambiguous where they say unsure or disagree, ``unlabelled`` where nobody labelled."""
    said: dict[tuple[int, int, int], set[PeopleLabel]] = {}
    for row in people:
        said.setdefault((row.profile_id, row.ctx_idx, row.attr_id), set()).add(row.label)
    if not said:
        return np.full(len(cube.pair_ctx), unlabelled, np.int8)
    table = pd.DataFrame(
        [
            (*key, PEOPLE_CODES[labels.pop()] if len(labels) == 1 else AMBIGUOUS)
            for key, labels in said.items()
        ],
        columns=[*_KEYS, "code"],
    )
    merged = pair_keys(cube).merge(table, how="left", on=_KEYS)
    return merged["code"].fillna(unlabelled).to_numpy(np.int8)
