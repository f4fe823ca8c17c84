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


@dataclass(frozen=True)
class PersonaColumns:
    """Each persona's necessary and private mass per pair of a cube (NaN where the persona
    gave none), aligned once so that every scheme of a run is an array operation."""

    necessary: dict[Persona, np.ndarray]
    private: dict[Persona, np.ndarray]

    @property
    def empty(self) -> bool:
        return not self.necessary

    def of(self, source: Source) -> tuple[np.ndarray, np.ndarray]:
        """The source's mass per pair; the personas weighted alike need all three."""
        if source is Source.EQUAL:
            if len(self.necessary) < len(Persona):
                nan = np.full(len(next(iter(self.necessary.values()), ())), np.nan)
                return nan, nan
            return (
                np.mean([self.necessary[p] for p in Persona], axis=0),
                np.mean([self.private[p] for p in Persona], axis=0),
            )
        persona = Persona(source.value)
        if persona not in self.necessary:
            n = len(next(iter(self.necessary.values()), ()))
            return np.full(n, np.nan), np.full(n, np.nan)
        return self.necessary[persona], self.private[persona]


def _codes(profile: np.ndarray, ctx: np.ndarray, attr: np.ndarray) -> np.ndarray:
    """One int64 per (profile_id, ctx_idx, attr_id): a pair found with a sorted search."""
    profile, ctx, attr = (np.asarray(x, np.int64) for x in (profile, ctx, attr))
    if len(ctx) and (ctx.max() >= 1 << 12 or attr.max() >= 1 << 32 or profile.max() >= 1 << 19):
        raise ValueError("label sources handle up to 4,096 contexts per profile")
    return (profile << 44) | (ctx << 32) | attr


def persona_columns(cube: LeakCube, fractions: PersonaFractions) -> PersonaColumns:
    """Each Westin persona's fractions aligned to the cube's pairs (other personas ignored)."""
    keys = pair_keys(cube)
    mine = _codes(*(keys[k].to_numpy() for k in _KEYS))
    order = np.argsort(mine, kind="stable")
    ordered = mine[order]
    codes, names = pd.factorize(np.asarray(fractions.persona, dtype=object))
    which = np.array([persona_of(str(n)) for n in names] + [None], dtype=object)[codes]
    theirs = _codes(fractions.profile_id, fractions.ctx_idx, fractions.attr_id)
    necessary: dict[Persona, np.ndarray] = {}
    private: dict[Persona, np.ndarray] = {}
    for persona in {p for p in which if p is not None}:
        rows = which == persona
        at = np.searchsorted(ordered, theirs[rows])
        found = at < len(ordered)
        found[found] = ordered[at[found]] == theirs[rows][found]
        target = order[at[found]]
        for out, column in ((necessary, fractions.necessary), (private, fractions.private)):
            values = np.full(len(mine), np.nan)
            values[target] = np.asarray(column, np.float64)[rows][found]
            out[persona] = values
    return PersonaColumns(necessary, private)


def relabelled(
    cube: LeakCube,
    source: Source,
    personas: PersonaColumns | PersonaFractions | None = None,
    people: Sequence[PeoplePairLabel] = (),
) -> LeakCube:
    """The cube with its pairs labelled from ``source``: a persona's (or the personas weighted
    alike) fractions in place of the combined ones (a pair the source has no fractions for is
    ambiguous), or people's hard labels. Pairs of sources that ship only hard labels keep
    them, except under people's. Give :func:`persona_columns` when asking for several sources
    of one run (fractions are aligned to the pairs each time they are given)."""
    if source is Source.COMBINED:
        return cube
    if source is Source.PEOPLE:
        codes = people_codes(cube, people)
        return replace(cube, pair_hard=codes)
    if source is Source.REVIEWED:
        hard = cube.pair_hard.copy()
        hard[people_codes(cube, people, unlabelled=-9) == -9] = AMBIGUOUS
        return replace(cube, pair_hard=hard)
    if personas is None:
        raise ValueError(f"source {source} needs the run's persona fractions")
    if isinstance(personas, PersonaFractions):
        personas = persona_columns(cube, personas)
    necessary, private = personas.of(source)
    hard = cube.pair_hard.copy()
    hard[(hard == HARD_FROM_FRACTIONS) & np.isnan(necessary)] = AMBIGUOUS
    return replace(
        cube,
        pair_necessary=np.nan_to_num(necessary),
        pair_private=np.nan_to_num(private),
        pair_hard=hard,
    )


def people_codes(
    cube: LeakCube,
    people: Sequence[PeoplePairLabel],
    unlabelled: int = AMBIGUOUS,
    disputed: int = AMBIGUOUS,
) -> np.ndarray:
    """Per pair, people's label code: share or withhold where every reviewer's current label
    agrees, ambiguous where they say unsure, ``disputed`` where they disagree, ``unlabelled``
    where nobody labelled."""
    said: dict[tuple[int, int, int], set[PeopleLabel]] = {}
    for row in people:
        said.setdefault((row.profile_id, row.ctx_idx, row.attr_id), set()).add(row.label)
    if not said:
        return np.full(len(cube.pair_ctx), unlabelled, np.int8)
    table = pd.DataFrame(
        [
            (*key, PEOPLE_CODES[labels.pop()] if len(labels) == 1 else disputed)
            for key, labels in said.items()
        ],
        columns=[*_KEYS, "code"],
    )
    merged = pair_keys(cube).merge(table, how="left", on=_KEYS)
    return merged["code"].fillna(unlabelled).to_numpy(np.int8)
