"""The leak cube: everything the metrics need about one run under one judge, as numpy arrays.

It is built either from the store (:func:`cube_from_store`) or straight from an official run-output
file (:func:`cimem.analysis.cube_file.cube_from_official`, no database needed), so both paths share
every metric function.

Layout: profiles ``0..P-1``; contexts flattened to ``0..C-1`` (``ctx_profile`` says whose); attributes
``0..A-1`` (``attr_profile``); labelled pairs (context, attribute) with their fractions or hard label,
and ``mask``: bit t set when the judge found the attribute revealed in trial t of that context.
Per context, bit masks say which trials exist and whether their message and judgment are usable.
Only full-memory trials enter (composition-experiment trials are analysed separately).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from cimem.errors import CimemError
from cimem.ingest.validate import MAX_TRIALS
from cimem.store import JudgeCoverage, Store
from cimem.store.columns import LeakPairs, TrialMasks

HARD_FROM_FRACTIONS = -2


@dataclass(frozen=True)
class CubeInfo:
    """Where a cube came from: a stored run under a judge, or a file (then only ``source``)."""

    source: str | None = None  # the file the run was imported from, or read
    run_id: int | None = None
    judge_id: int | None = None  # None: no judge has seen the run
    simulated: bool = False
    model: str | None = None
    level: int | None = None
    restricted_to: int | None = None  # contexts kept by restrict_contexts, if it was applied
    coverage: JudgeCoverage | None = None  # messages the judge judged, of the run's generated ones


@dataclass
class LeakCube:
    run: str
    judge: str
    n_trials: int
    profile_names: list[str]
    ctx_profile: np.ndarray  # int32 [C]
    ctx_recipient: list[str]
    ctx_task: list[str]
    attr_profile: np.ndarray  # int32 [A]
    attr_key: list[str]
    attr_domain: list[str | None]
    attr_event: list[str | None]
    pair_ctx: np.ndarray  # int32 [N]
    pair_attr: np.ndarray  # int32 [N]
    pair_necessary: np.ndarray  # float64 [N]
    pair_private: np.ndarray  # float64 [N]
    pair_hard: np.ndarray  # int8 [N]: -2 = derive from fractions, else 1/0/-1
    pair_mask: np.ndarray  # uint64 [N]: revealed trials
    ctx_trials: np.ndarray  # uint64 [C]: trials with a message slot
    ctx_valid: np.ndarray  # uint64 [C]: message ok and judgment ok
    ctx_unparsed: np.ndarray  # uint64 [C]: judge reply failed to parse
    ctx_judge_error: np.ndarray  # uint64 [C]: judge call failed
    ctx_failed: np.ndarray  # uint64 [C]: generation failed (no message)
    ctx_unjudged: np.ndarray  # uint64 [C]: message not judged by this judge
    info: CubeInfo = field(default_factory=CubeInfo)
    ctx_local: np.ndarray | None = None  # int32 [C]: context index within its profile
    attr_ids: np.ndarray | None = None  # int64 [A]: the store's attr_id (positions for files)
    profile_ids: list[int] | None = None  # the store's profile_id per profile
    # uint64 [C]: the slots of partial-memory trials (eval.py's composition styles), which take
    # the high bits, 63 down; None: the run has none. Official mode counts them as samples, as
    # the official script counts every trial key; definition mode leaves them out.
    ctx_partial: np.ndarray | None = None
    partial_beyond: int = 0  # partial-memory trials that did not fit a context's 64 slots

    @property
    def n_profiles(self) -> int:
        return len(self.profile_names)

    @property
    def has_labels(self) -> bool:
        return len(self.pair_ctx) > 0

    @property
    def has_messages(self) -> bool:
        return bool(np.any(self.ctx_trials))

    @property
    def partial(self) -> np.ndarray:
        """Per context, the slots of its partial-memory trials (none: zeros)."""
        if self.ctx_partial is None:
            return np.zeros(len(self.ctx_profile), np.uint64)
        return self.ctx_partial

    @property
    def n_slots(self) -> int:
        """The sample slots a context's masks may use: its trials, and the high bits when the
        run has partial-memory trials."""
        return MAX_TRIALS if np.any(self.partial) else max(self.n_trials, 1)

    def store_ids(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """The store's profile ids, per-profile context indexes and attribute ids, to find the
        messages behind a cell (a cube built from the store has them; one read from a file not)."""
        if self.profile_ids is None or self.ctx_local is None or self.attr_ids is None:
            raise CimemError(f"{self.run} was read from a file: it has no stored messages")
        return self.profile_ids, self.ctx_local, self.attr_ids


def popcount(x: np.ndarray) -> np.ndarray:
    """Number of set bits of each uint64: the trials a mask holds.

    >>> popcount(np.array([0b1011, 0], np.uint64)).tolist()
    [3, 0]
    """
    return np.bitwise_count(np.asarray(x, dtype=np.uint64)).astype(np.int64)


def first_bits(k: int) -> np.uint64:
    """Mask of trials 0..k-1.

    >>> bin(first_bits(3)), first_bits(64) == np.uint64(2**64 - 1)
    ('0b111', np.True_)
    """
    return np.uint64((1 << k) - 1) if k < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


# --------------------------------------------------------------------------- from the store
def cube_from_store(store: Store, run_id: int, judge_id: int | None = None) -> LeakCube:
    """The cube of a stored run, under ``judge_id`` (default: the run's original verdicts)."""
    cfg = store.run_config(run_id)
    if judge_id is None:
        judge_id = store.find_default_judge(run_id)
    judge, coverage = _judge_label(store, run_id, judge_id)
    _check_trials_fit(store, run_id)
    profiles = store.profiles_of(run_id)
    pid_pos = {p.profile_id: i for i, p in enumerate(profiles)}
    contexts = store.contexts_of(run_id)
    ctx_pos = {(c.profile_id, c.ctx_idx): i for i, c in enumerate(contexts)}
    attrs = store.attributes_of(run_id)
    pairs = store.leak_pairs(run_id, judge_id)
    per_ctx = _stored_context_masks(store.trial_masks(run_id, judge_id), ctx_pos)
    return LeakCube(
        run=f"{run_id}: {cfg['name']}",
        judge=judge,
        n_trials=int(cfg["n_trials"] or 0),
        profile_names=[p.name for p in profiles],
        ctx_profile=np.array([pid_pos[c.profile_id] for c in contexts], np.int32),
        ctx_recipient=[c.recipient for c in contexts],
        ctx_task=[c.task for c in contexts],
        attr_profile=np.array([pid_pos[a.profile_id] for a in attrs], np.int32),
        attr_key=[a.key for a in attrs],
        attr_domain=[a.domain for a in attrs],
        attr_event=[a.event for a in attrs],
        pair_ctx=_stored_pair_contexts(pairs, pid_pos, ctx_pos),
        pair_attr=_stored_pair_attributes(pairs, {a.attr_id: i for i, a in enumerate(attrs)}),
        pair_necessary=np.asarray(pairs["necessary"], np.float64),
        pair_private=np.asarray(pairs["private"], np.float64),
        pair_hard=np.asarray(pairs["hard"], np.int8),
        pair_mask=np.asarray(pairs["mask"], np.uint64),
        ctx_trials=per_ctx["trials"],
        ctx_valid=per_ctx["valid"],
        ctx_unparsed=per_ctx["unparsed"],
        ctx_judge_error=per_ctx["judge_error"],
        ctx_failed=per_ctx["failed"],
        ctx_unjudged=per_ctx["unjudged"],
        info=CubeInfo(
            source=cfg["source"],
            run_id=run_id,
            judge_id=judge_id,
            simulated=bool(cfg["simulated"]),
            model=cfg["model"],
            level=cfg["level"],
            coverage=coverage,
        ),
        ctx_local=np.array([c.ctx_idx for c in contexts], np.int32),
        attr_ids=np.array([a.attr_id for a in attrs], np.int64),
        profile_ids=[p.profile_id for p in profiles],
        ctx_partial=per_ctx["partial"] if np.any(per_ctx["partial"]) else None,
        partial_beyond=per_ctx["beyond"],
    )


def _judge_label(
    store: Store, run_id: int, judge_id: int | None
) -> tuple[str, JudgeCoverage | None]:
    """How the cube names its judge (id, name, model, share of the run judged) and that coverage;
    refuses a judge of another run, whose verdicts would be matched to the wrong messages."""
    if judge_id is None:
        return "none", None
    info = store.judge_info(judge_id)
    if info.run_id != run_id:
        raise CimemError(f"judge {judge_id} belongs to run {info.run_id}, not run {run_id}")
    judge = f"{info.judge_id}: {info.name}" + (f" ({info.model})" if info.model else "")
    coverage = next(c for c in store.judge_coverage(run_id) if c.judge_id == judge_id)
    return judge + f", {coverage.describe()}", coverage


def _check_trials_fit(store: Store, run_id: int) -> None:
    """Refuse a run whose trial numbers do not fit the cube's 64-bit trial masks."""
    top = store.max_trial(run_id)
    if top is not None and top >= MAX_TRIALS:
        raise CimemError(f"run {run_id} has trial {top}; cimem's metrics handle trials 0..63")


_SLOT_MASKS = ("trials", "valid", "unparsed", "judge_error", "failed", "unjudged", "partial")


def _stored_context_masks(masks: TrialMasks, ctx_pos: dict[tuple[int, int], int]) -> dict:
    """The store's per-(profile, context) slot masks as arrays over the cube's contexts (a
    context without a row, no message at all, has every mask empty), and ``beyond``: the
    partial-memory trials that did not fit."""
    per_ctx: dict = {k: np.zeros(len(ctx_pos), np.uint64) for k in _SLOT_MASKS}
    if len(masks["profile_id"]):
        where = np.fromiter(
            (ctx_pos[(int(p), int(c))] for p, c in zip(masks["profile_id"], masks["ctx_idx"])),
            dtype=np.int32,
            count=len(masks["profile_id"]),
        )
        for k in _SLOT_MASKS:
            per_ctx[k][where] = np.asarray(masks[k], dtype=np.uint64)
    per_ctx["beyond"] = int(np.asarray(masks["beyond"], np.int64).sum())
    return per_ctx


def _stored_pair_contexts(
    pairs: LeakPairs, pid_pos: dict[int, int], ctx_pos: dict[tuple[int, int], int]
) -> np.ndarray:
    """The cube context of every labelled pair. Contexts are stored per profile in order, so a
    pair's context is its profile's first context plus its index: a dense look-up, not a dict
    one per pair (runs hold millions of pairs)."""
    ctx_base = np.zeros(max(pid_pos, default=-1) + 2, np.int64)
    for (p, c), i in ctx_pos.items():
        if c == 0:
            ctx_base[p] = i
    return (
        ctx_base[np.asarray(pairs["profile_id"], np.int64)] + np.asarray(pairs["ctx_idx"], np.int64)
    ).astype(np.int32)


def _stored_pair_attributes(pairs: LeakPairs, attr_pos: dict[int, int]) -> np.ndarray:
    """The cube attribute of every labelled pair, through a dense attr_id -> position table."""
    attr_dense = np.full(max(attr_pos, default=-1) + 1, -1, np.int64)
    attr_dense[list(attr_pos)] = list(attr_pos.values())
    return attr_dense[np.asarray(pairs["attr_id"], np.int64)].astype(np.int32)


def context_keys(cube: LeakCube) -> list[tuple[str, str, str]]:
    """(profile, recipient, task) of every context, the key that matches contexts across runs:
    the same task of another person is another context (other memories, other labels). Case
    and surrounding spaces are ignored: the release on Hugging Face writes "bank loan officer"
    where the run output writes "Bank Loan Officer".

    >>> same_text("  Bank Loan Officer "), same_text("bank loan officer")
    ('bank loan officer', 'bank loan officer')
    """
    names = [same_text(cube.profile_names[p]) for p in cube.ctx_profile]
    return list(zip(names, map(same_text, cube.ctx_recipient), map(same_text, cube.ctx_task)))


def same_text(text: str) -> str:
    """Text as contexts are matched across runs: case and outer spaces ignored."""
    return text.strip().casefold()


def restrict_contexts(cube: LeakCube, keep: set[tuple[str, str, str]]) -> LeakCube:
    """The same cube with only the contexts whose (profile, recipient, task) is in ``keep``."""
    ctx_ok = np.array([k in keep for k in context_keys(cube)], bool)
    pairs = ctx_ok[cube.pair_ctx] if len(cube.pair_ctx) else np.zeros(0, bool)
    zero = np.uint64(0)
    return replace(
        cube,
        pair_ctx=cube.pair_ctx[pairs],
        pair_attr=cube.pair_attr[pairs],
        pair_necessary=cube.pair_necessary[pairs],
        pair_private=cube.pair_private[pairs],
        pair_hard=cube.pair_hard[pairs],
        pair_mask=cube.pair_mask[pairs],
        ctx_trials=np.where(ctx_ok, cube.ctx_trials, zero),
        ctx_valid=np.where(ctx_ok, cube.ctx_valid, zero),
        ctx_unparsed=np.where(ctx_ok, cube.ctx_unparsed, zero),
        ctx_judge_error=np.where(ctx_ok, cube.ctx_judge_error, zero),
        ctx_failed=np.where(ctx_ok, cube.ctx_failed, zero),
        ctx_unjudged=np.where(ctx_ok, cube.ctx_unjudged, zero),
        ctx_partial=None if cube.ctx_partial is None else np.where(ctx_ok, cube.ctx_partial, zero),
        info=replace(cube.info, restricted_to=len(keep)),
    )


def drop_samples(cube: LeakCube, ctx: np.ndarray, trial: np.ndarray) -> LeakCube:
    """The same cube with the messages of (context ``ctx[i]``, trial ``trial[i]``) dropped as a
    failed generation is: the slot stays (``ctx_trials``), it is counted with the failed
    generations and is no sample of either metric, and its verdicts are forgotten. A context
    whose every sample is dropped is then "not sampled", never "nothing revealed"."""
    drop = np.zeros(len(cube.ctx_profile), np.uint64)
    bits = np.left_shift(np.uint64(1), np.asarray(trial, np.uint64))
    np.bitwise_or.at(drop, np.asarray(ctx, np.int64), bits)
    keep = ~drop
    pair_keep = keep[cube.pair_ctx] if len(cube.pair_ctx) else np.zeros(0, np.uint64)
    return replace(
        cube,
        pair_mask=cube.pair_mask & pair_keep,
        ctx_valid=cube.ctx_valid & keep,
        ctx_unparsed=cube.ctx_unparsed & keep,
        ctx_judge_error=cube.ctx_judge_error & keep,
        ctx_unjudged=cube.ctx_unjudged & keep,
        ctx_failed=cube.ctx_failed | (drop & cube.ctx_trials),
    )
