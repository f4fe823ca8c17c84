"""The registry of readers covers every format detection can return, and nothing else: a format
added to :class:`SourceFormat` without its reader, description and recogniser fails here."""

from __future__ import annotations

import pytest

from cimem.errors import CimemError
from cimem.ingest import READERS, SourceFormat, open_reader
from cimem.ingest.formats import FORMAT_NAMES, KNOWN, source_format


def test_every_format_has_one_reader_a_description_and_a_way_to_be_recognised():
    assert set(READERS) == set(SourceFormat)
    assert set(FORMAT_NAMES) == set(SourceFormat)
    assert {k.format for k in KNOWN} == set(SourceFormat)


def test_an_unknown_format_is_refused_with_the_known_ones_listed(tmp_path):
    with pytest.raises(CimemError, match="unknown format 'csv'; choose one of official, profiles"):
        open_reader(tmp_path / "x.csv", "csv", None)
    assert source_format("persistbench") is SourceFormat.PERSISTBENCH
