"""The leak cube numbers each profile's contexts, attributes and pairs after the profiles before
it, the same way whether it is read from a file or from the store."""

from __future__ import annotations

import numpy as np
import pytest

from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.cube_file import cube_from_official
from cimem.errors import CimemError
from cimem.ingest import ingest_file

from fixtures import small_profile, write_jsonl


def _pairs(cube: LeakCube) -> dict[tuple[int, int], tuple[float, float, int]]:
    """(context, attribute) -> (necessary, private, revealed-trials mask) of every pair."""
    return {
        (int(c), int(a)): (float(n), float(p), int(m))
        for c, a, n, p, m in zip(
            cube.pair_ctx, cube.pair_attr, cube.pair_necessary, cube.pair_private, cube.pair_mask
        )
    }


def test_second_profile_is_numbered_after_the_first(tmp_path):
    path = write_jsonl(tmp_path / "two.jsonl", [small_profile("Ada"), small_profile("Bea")])
    cube = cube_from_official(path)
    assert cube.profile_names == ["Ada", "Bea"]
    assert cube.ctx_profile.tolist() == [0, 0, 1, 1]
    assert cube.attr_profile.tolist() == [0, 0, 0, 1, 1, 1]
    assert cube.attr_key[3:] == ["name", "annual_income", "diagnosis"]
    pairs = _pairs(cube)
    assert len(pairs) == 12
    # Bea's loan context is context 2, her income attribute 4: revealed in trials 0 and 1
    assert pairs[(2, 4)] == (1.0, 0.0, 0b11)
    # her check-up (context 3) reveals her name (attribute 3) in trial 1 only
    assert pairs[(3, 3)] == (1.0, 0.0, 0b10)
    assert pairs[(3, 5)] == (0.5, 0.3, 0)
    assert cube.n_trials == 2
    assert cube.ctx_trials.tolist() == [0b11] * 4
    # the check-up's trial 0 reveals nothing and explains nothing: read as a parse failure
    assert cube.ctx_valid.tolist() == [0b11, 0b10] * 2
    assert cube.ctx_unparsed.tolist() == [0, 0b01] * 2
    assert not cube.ctx_judge_error.any()


def test_store_and_file_build_the_same_cube(tmp_path, store):
    path = write_jsonl(tmp_path / "two.jsonl", [small_profile("Ada"), small_profile("Bea")])
    from_file = cube_from_official(path)
    from_store = cube_from_store(store, ingest_file(store, path).run_id)
    assert _pairs(from_store) == _pairs(from_file)
    assert from_store.profile_names == from_file.profile_names
    assert from_store.attr_key == from_file.attr_key
    for name in ("ctx_profile", "attr_profile", "ctx_trials", "ctx_valid", "ctx_unparsed"):
        np.testing.assert_array_equal(getattr(from_store, name), getattr(from_file, name))
    assert from_store.ctx_local is not None and from_store.ctx_local.tolist() == [0, 1, 0, 1]
    assert from_store.judge.startswith(f"{from_store.info.judge_id}: ")


def test_a_judge_of_another_run_is_refused(tmp_path, store):
    first = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada")]))
    second = ingest_file(store, write_jsonl(tmp_path / "b.jsonl", [small_profile("Bea")]))
    judge_of_first = store.find_default_judge(first.run_id)
    with pytest.raises(CimemError, match=f"belongs to run {first.run_id}, not run {second.run_id}"):
        cube_from_store(store, second.run_id, judge_of_first)
