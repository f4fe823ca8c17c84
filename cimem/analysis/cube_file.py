"""A results file's cube read straight from the file (``metrics --results``, no database): the
importer's own reader (the one grammar and validation of the official format, parse failures
inferred there), without evidence, its records turned into arrays. A large file is read by one
process per core, each a span of its lines, and their parts joined in file order.
"""

from __future__ import annotations

import gc
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import DTypeLike

from cimem.analysis.cube import HARD_FROM_FRACTIONS, CubeInfo, LeakCube
from cimem.child_processes import end_with_parent
from cimem.ingest.files import Span, readers_for, require_file, spans
from cimem.ingest.official import empty_file, read_official
from cimem.ingest.records import LABELS_COMBINED, ProfileRecord
from cimem.store.cube_reads import PARTIAL_TOP_SLOT


def cube_from_official(path: str | Path, readers: int | None = None) -> LeakCube:
    """The cube of an official run-output file, read in one streaming pass: by ``readers``
    processes (default: one per core, at most four, for a file of 64 MB or more)."""
    path = Path(path)

    require_file(path)
    readers = readers_for(path) if readers is None else readers
    parts = spans(path, readers) if readers > 1 else []
    if len(parts) < 2:
        found = _read_parts(path, None)
    else:
        found = _read_in_parallel(path, parts)
    if not found.names:
        raise empty_file(path)
    return found.cube(path)


def _read_in_parallel(path: Path, parts: list[Span]) -> _FileCubeParts:
    """Each span read by a process of its own (forked: it starts with cimem imported); an
    InputError of any span is raised here, the first in file order."""
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(len(parts), mp_context=context, initializer=end_with_parent) as pool:
        found = list(pool.map(partial(_read_parts, path), parts))
    joined = found[0]
    for more in found[1:]:
        joined.extend(more)
    return joined


def _read_parts(path: Path, span: Span | None) -> _FileCubeParts:
    """The cube parts of the file's records (of ``span`` only, when given)."""
    was_enabled = gc.isenabled()
    gc.disable()  # millions of short-lived JSON objects: cyclic GC passes only cost time
    try:
        parts = _FileCubeParts()
        for rec in read_official(path, evidence=False, span=span):
            parts.add(rec)
        return parts
    finally:
        if was_enabled:
            gc.enable()


_FILE_MASKS = ("trials", "valid", "unparsed", "failed", "unjudged", "partial")


@dataclass
class _FileCubeParts:
    """A file's cube gathered profile by profile, so the file is read in one streaming pass:
    per-profile arrays are kept in lists and joined once at the end."""

    names: list[str] = field(default_factory=list)
    ctx_profile: list[np.ndarray] = field(default_factory=list)
    recipients: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    attr_profile: list[np.ndarray] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    domains: list[str | None] = field(default_factory=list)
    events: list[str | None] = field(default_factory=list)
    pair_ctx: list[np.ndarray] = field(default_factory=list)
    pair_attr: list[np.ndarray] = field(default_factory=list)
    fractions: list[np.ndarray] = field(default_factory=list)
    pair_mask: list[np.ndarray] = field(default_factory=list)
    per_ctx: dict[str, list[np.ndarray]] = field(
        default_factory=lambda: {k: [] for k in _FILE_MASKS}
    )
    max_trial: int = -1
    beyond: int = 0  # partial-memory trials that did not fit their context's slots
    n_attr: int = 0  # attributes of the profiles added so far: the next profile's first one
    n_ctx: int = 0  # likewise contexts

    def add(self, rec: ProfileRecord) -> None:
        """Append one profile: its attributes, contexts, trial masks and labelled pairs."""
        p = len(self.names)
        self.names.append(rec.name)
        n_attr, n_ctx = len(rec.attributes), len(rec.contexts)
        self.attr_profile.append(np.full(n_attr, p, np.int32))
        self.keys += [a.key for a in rec.attributes]
        self.domains += [a.domain for a in rec.attributes]
        self.events += [a.event for a in rec.attributes]
        self.ctx_profile.append(np.full(n_ctx, p, np.int32))
        self.recipients += [c[0] for c in rec.contexts]
        self.tasks += [c[1] for c in rec.contexts]
        bits, masks, top, beyond = _trial_bits(rec, n_attr, n_ctx)
        self.max_trial = max(self.max_trial, top)
        self.beyond += beyond
        for k in _FILE_MASKS:
            self.per_ctx[k].append(masks[k])
        self._add_pairs(rec, bits)
        self.n_attr += n_attr
        self.n_ctx += n_ctx

    def extend(self, later: _FileCubeParts) -> None:
        """Append the parts of the profiles that come after these in the file (another
        process's span): their profile, context and attribute numbers move past these."""
        p, c, a = len(self.names), self.n_ctx, self.n_attr
        self.names += later.names
        self.ctx_profile += [x + p for x in later.ctx_profile]
        self.attr_profile += [x + p for x in later.attr_profile]
        self.recipients += later.recipients
        self.tasks += later.tasks
        self.keys += later.keys
        self.domains += later.domains
        self.events += later.events
        self.pair_ctx += [x + c for x in later.pair_ctx]
        self.pair_attr += [x + a for x in later.pair_attr]
        self.fractions += later.fractions
        self.pair_mask += later.pair_mask
        for k in _FILE_MASKS:
            self.per_ctx[k] += later.per_ctx[k]
        self.max_trial = max(self.max_trial, later.max_trial)
        self.beyond += later.beyond
        self.n_attr += later.n_attr
        self.n_ctx += later.n_ctx

    def _add_pairs(self, rec: ProfileRecord, bits: np.ndarray) -> None:
        """The profile's pairs labelled by the combined persona (the metrics' labels), with their
        fractions and revealed trials, numbered within the whole cube."""
        pl = rec.persona_labels
        if not pl:
            return
        if LABELS_COMBINED not in pl["personas"]:
            return
        combined = pl["persona_code"] == pl["personas"].index(LABELS_COMBINED)
        ci, ai = pl["ctx_idx"][combined], pl["attr_idx"][combined]
        self.pair_ctx.append(ci + self.n_ctx)
        self.pair_attr.append(ai + self.n_attr)
        self.fractions.append(pl["fractions"][combined, :2])
        self.pair_mask.append(bits[ci, ai])

    def cube(self, path: Path) -> LeakCube:
        """The gathered parts joined into the cube of the file at ``path``."""
        fractions = np.concatenate(self.fractions) if self.fractions else np.zeros((0, 2))
        pair_ctx = _joined(self.pair_ctx, np.int32)
        ctx_masks = {k: _joined(v, np.uint64) for k, v in self.per_ctx.items()}
        return LeakCube(
            run=path.name,
            judge="original verdicts (file)",
            n_trials=self.max_trial + 1,
            profile_names=self.names,
            ctx_profile=_joined(self.ctx_profile, np.int32),
            ctx_recipient=self.recipients,
            ctx_task=self.tasks,
            attr_profile=_joined(self.attr_profile, np.int32),
            attr_key=self.keys,
            attr_domain=self.domains,
            attr_event=self.events,
            pair_ctx=pair_ctx,
            pair_attr=_joined(self.pair_attr, np.int32),
            pair_necessary=fractions[:, 0].copy(),
            pair_private=fractions[:, 1].copy(),
            pair_hard=np.full(len(pair_ctx), HARD_FROM_FRACTIONS, np.int8),
            pair_mask=_joined(self.pair_mask, np.uint64),
            ctx_trials=ctx_masks["trials"],
            ctx_valid=ctx_masks["valid"],
            ctx_unparsed=ctx_masks["unparsed"],
            ctx_judge_error=np.zeros(self.n_ctx, np.uint64),
            ctx_failed=ctx_masks["failed"],
            ctx_unjudged=ctx_masks["unjudged"],
            info=CubeInfo(source=str(path)),
            ctx_partial=ctx_masks["partial"] if np.any(ctx_masks["partial"]) else None,
            partial_beyond=self.beyond,
        )


def _joined(parts: list[np.ndarray], dtype: DTypeLike) -> np.ndarray:
    """Per-profile arrays as one array of ``dtype`` (empty when no profile had any)."""
    return (np.concatenate(parts) if parts else np.zeros(0)).astype(dtype)


def _trial_bits(
    rec: ProfileRecord, n_attr: int, n_ctx: int
) -> tuple[np.ndarray, dict[str, np.ndarray], int, int]:
    """Per (context, attribute) the sample slots whose verdict says revealed, per context the
    slots in each state (and those of partial-memory trials), the most trials any (context,
    composition) has less one (the store's n_trials, less one), and how many partial-memory
    trials did not fit: the slots the store gives
    (``cimem.store.cube_reads._SLOTS_SQL``: a full-memory trial's is its number, a
    partial-memory one's a high bit, 63 down, in (A, B, trial, file) order within its context,
    kept while above the context's full-memory trials)."""
    m = rec.messages
    n_msg = len(m.get("ctx_idx", ()))
    bits = np.zeros((n_ctx, n_attr), np.uint64)
    masks = {k: np.zeros(n_ctx, np.uint64) for k in _FILE_MASKS}
    if not n_msg:
        return bits, masks, -1, 0
    ctx = np.asarray(m["ctx_idx"], np.int64)
    trial = np.asarray(m["trial"], np.int64)
    full = (np.asarray(m["num_not_to_share"], np.int64) == 0) & (
        np.asarray(m["num_to_share"], np.int64) == n_attr
    )
    slot, kept = _slots(m, ctx, trial, full, n_ctx)
    bit = np.left_shift(np.uint64(1), slot.astype(np.uint64))
    ok = np.array([st == "ok" for st in m["status"]], np.bool_)
    state = np.zeros(n_msg, np.int8)  # 0 unjudged, 1 valid, 2 parse failure
    j = rec.judgments
    if j and j["msg_idx"]:
        state[np.asarray(j["msg_idx"], np.int64)] = [1 if st == "ok" else 2 for st in j["status"]]
    for name, sel in (
        ("trials", kept),
        ("failed", kept & ~ok),
        ("valid", kept & ok & (state == 1)),
        ("unparsed", kept & ok & (state == 2)),
        ("unjudged", kept & ok & (state == 0)),
        ("partial", kept & ~full),
    ):
        np.bitwise_or.at(masks[name], ctx[sel], bit[sel])
    v = rec.verdicts
    if v:
        vm = np.asarray(v["msg_idx"], np.int64)
        hit = v["revealed"] & kept[vm]
        vm = vm[hit]
        np.bitwise_or.at(bits, (ctx[vm], np.asarray(v["attr_idx"], np.int64)[hit]), bit[vm])
    steps = np.stack([ctx, np.asarray(m["num_to_share"]), np.asarray(m["num_not_to_share"])])
    per_step = int(np.unique(steps, axis=1, return_counts=True)[1].max())
    return bits, masks, per_step - 1, int((~kept).sum())


def _slots(
    m: dict, ctx: np.ndarray, trial: np.ndarray, full: np.ndarray, n_ctx: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each message's sample slot and whether it fits (see :func:`_trial_bits`)."""
    slot = trial.copy()
    kept = np.ones(len(ctx), bool)
    part = np.flatnonzero(~full)
    if not len(part):
        return slot, kept
    order = part[
        np.lexsort(
            (
                part,
                trial[part],
                np.asarray(m["num_not_to_share"], np.int64)[part],
                np.asarray(m["num_to_share"], np.int64)[part],
                ctx[part],
            )
        )
    ]
    starts = np.searchsorted(ctx[order], ctx[order], side="left")
    slot[order] = PARTIAL_TOP_SLOT - (np.arange(len(order)) - starts)
    top_full = np.full(n_ctx, -1, np.int64)
    np.maximum.at(top_full, ctx[full], trial[full])
    kept[part] = slot[part] > top_full[ctx[part]]
    slot[~kept] = 0
    return slot, kept
