"""An output is written whole, then renamed over its target: a target that is no regular file
(a pipe, a folder, a device such as /dev/null) is refused instead of replaced, and a regular
file is replaced whole."""

from __future__ import annotations

import os

import pytest

from cimem.cli.main import main
from cimem.paths import PathRefused, write_whole


def test_a_pipe_a_folder_and_a_link_to_them_are_refused(tmp_path):
    pipe, folder, link = tmp_path / "pipe", tmp_path / "folder", tmp_path / "link"
    os.mkfifo(pipe)
    folder.mkdir()
    link.symlink_to(pipe)
    for target in (pipe, folder, link):
        with pytest.raises(PathRefused, match="not a regular file"):
            write_whole(target, "text")
    assert pipe.is_fifo() and folder.is_dir() and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "link", "pipe"]


def test_a_regular_file_is_replaced_whole(tmp_path):
    out = tmp_path / "report.md"
    out.write_text("old")
    write_whole(out, "new")
    assert out.read_text() == "new"


def test_report_to_a_pipe_says_so(demo_db, tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert main(["report", "--db", demo_db, "--out", str(pipe), "--format", "md"]) != 0
    assert "not a regular file" in capsys.readouterr().err
    assert pipe.is_fifo()


def test_export_to_a_folder_says_so(demo_db, tmp_path, capsys):
    assert main(["export", "--db", demo_db, "--run", "1", "--out", str(tmp_path)]) != 0
    assert "not a regular file" in capsys.readouterr().err
    assert tmp_path.is_dir()
