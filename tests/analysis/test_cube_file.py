"""A results file read by several processes at once: the same cube as one process reads, byte for
byte, and an error in any part names the file's own line number."""

from __future__ import annotations

import gzip
import pickle

import numpy as np
import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.errors import InputError
from cimem.ingest.files import iter_span_lines, lines_before, spans

from fixtures import small_profile, write_jsonl

ARRAYS = (
    "ctx_profile",
    "attr_profile",
    "pair_ctx",
    "pair_attr",
    "pair_necessary",
    "pair_private",
    "pair_mask",
    "ctx_trials",
    "ctx_valid",
    "ctx_unparsed",
    "ctx_failed",
    "ctx_unjudged",
)


@pytest.fixture
def seven(tmp_path):
    people = [small_profile(f"P{i}") for i in range(7)]
    return write_jsonl(tmp_path / "seven.jsonl", people)


@pytest.mark.parametrize("readers", [2, 3, 7])
def test_parts_read_apart_make_the_same_cube(seven, readers):
    alone, apart = cube_from_official(seven, readers=1), cube_from_official(seven, readers)
    for name in ARRAYS:
        assert np.array_equal(getattr(alone, name), getattr(apart, name)), name
    for name in ("profile_names", "ctx_recipient", "ctx_task", "attr_key", "n_trials"):
        assert getattr(alone, name) == getattr(apart, name), name


def test_spans_cut_on_line_boundaries_and_count_their_lines(seven):
    cut = spans(seven, 3)
    assert len(cut) == 3 and cut[0].start == 0 and cut[-1].end == seven.stat().st_size
    numbers = [
        lines_before(seven, span.start) + n
        for span in cut
        for n, _line, _at, _nul in iter_span_lines(seven, span, b"\\u0000")
    ]
    assert numbers == list(range(1, 8))
    gz = seven.with_suffix(".jsonl.gz")
    gz.write_bytes(gzip.compress(seven.read_bytes()))
    assert spans(gz, 3) == [] and cube_from_official(gz, readers=3).profile_names[0] == "P0"


def test_an_error_in_a_later_part_names_its_line_in_the_file(seven):
    lines = seven.read_bytes().splitlines(keepends=True)
    lines[5] = b'{"bio": 3}\n'
    seven.write_bytes(b"".join(lines))
    with pytest.raises(InputError, match=r"seven\.jsonl: line 6: ") as caught:
        cube_from_official(seven, readers=3)
    again = pickle.loads(pickle.dumps(caught.value))  # as it crosses from the reading process
    assert str(again) == str(caught.value) and again.place == "line 6"


def test_an_empty_file_is_refused_however_many_read_it(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n\n")
    for readers in (1, 2):
        with pytest.raises(InputError, match="at least one JSON line"):
            cube_from_official(empty, readers=readers)
