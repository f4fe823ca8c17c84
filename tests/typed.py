"""The command blocks of the README and docs/, read from the files and run as a user types them.

A block is found by the heading it sits under (or the first block of a file); its lines are joined
where they end in a backslash, comments and blank lines dropped. Each command runs in bash from a
working folder of the test's (where the documented file names, ``my.duckdb``, ``results.jsonl``,
``sample.csv``, are the test's files, and ``../shared/cimemories`` is the benchmark's folder), with
the project's ``python`` first on the PATH. Only what no test machine has is replaced: an
endpoint's address (``http://localhost:8000/v1`` and ``--base-url URL`` become the tests' scripted
server, which also stands for OpenAI's endpoint through ``OPENAI_BASE_URL``) and an API key's
placeholder.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from conftest import REPO, SHARED

FENCE = re.compile(r"^```(?:bash|sh)?\n(.*?)^```", re.S | re.M)
OPTIONAL = re.compile(r" \[[^\]]*\]")  # a usage line's optional part: "[--run N ...]"
ENDPOINT = "http://localhost:8000/v1"


def block(doc: str, heading: str | None = None, index: int = 0) -> list[str]:
    """The commands of the ``index``-th shell block under ``heading`` in ``doc`` (a path from the
    repository's root), as a user types them: a usage line's optional parts (``[--run N]``) left
    out, comments after a command dropped."""
    text = (REPO / doc).read_text(encoding="utf-8")
    if heading is not None:
        text = _section(text, heading)
    body = FENCE.findall(text)[index]
    commands = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            line = OPTIONAL.sub("", line.split(" # ")[0])
            commands.append(re.sub(r"\s+", " ", line).strip())
    return commands


def _section(text: str, heading: str) -> str:
    """The lines under ``heading`` up to the next heading (a ``#`` line inside a code block is a
    shell comment, no heading)."""
    lines = text.splitlines(keepends=True)
    start = lines.index(heading + "\n") + 1
    fenced = False
    for i in range(start, len(lines)):
        fenced ^= lines[i].startswith("```")
        if not fenced and re.match(r"#{1,6} ", lines[i]):
            return "".join(lines[start:i])
    return "".join(lines[start:])


@dataclass
class Typed:
    """A user's shell: a working folder, the environment, the endpoint the tests serve."""

    cwd: Path
    endpoint: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    log: list[tuple[str, int, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.endpoint is not None:  # what the default endpoint (OpenAI's) is on this machine
            self.env.setdefault("OPENAI_BASE_URL", self.endpoint)
        shared = self.cwd.parent / "shared"
        if not shared.exists() and SHARED.exists():
            shared.mkdir()
            (shared / "cimemories").symlink_to(SHARED)

    def run(self, command: str, *, ok: tuple[int, ...] = (0,)) -> str:
        """Run one documented command; its standard output (it must exit with a status in
        ``ok``)."""
        command = self._here(command)
        if command.startswith("source ") or command.startswith("export "):
            self._export(command)
            return ""
        done = subprocess.run(
            ["bash", "-c", command], cwd=self.cwd, env=self._env(), capture_output=True, text=True
        )
        self.log.append((command, done.returncode, done.stdout, done.stderr))
        assert done.returncode in ok, f"{command}\nexit {done.returncode}\n{done.stderr[-3000:]}"
        return done.stdout

    def start(self, command: str) -> subprocess.Popen:
        """Start a documented command in a process group of its own and return at once (stop it
        with :meth:`stop`, as Ctrl-C or a crash would)."""
        return subprocess.Popen(
            ["bash", "-c", self._here(command)],
            cwd=self.cwd,
            env=self._env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    @staticmethod
    def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
        """Send ``sig`` to the command and whatever it started, and wait for it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        proc.wait(timeout=60)

    def _here(self, command: str) -> str:
        """The command with this machine's endpoint for the documented ones."""
        if self.endpoint is None:
            return command
        command = command.replace(ENDPOINT, self.endpoint)
        return re.sub(r"(--base-url) URL\d*\b", rf"\1 {self.endpoint}", command)

    def _env(self) -> dict[str, str]:
        env = os.environ | self.env
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        return env

    def _export(self, command: str) -> None:
        """``export NAME=...`` sets a variable for the commands after it (a placeholder value
        becomes a test key, ``"$(command)"`` what the command prints); ``source
        .venv/bin/activate`` is what the PATH already does."""
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            value = value.split(" #")[0].strip()
            found = re.fullmatch(r'"\$\((.*)\)"', value)
            if found:  # export NAME="$(command)": what the command prints
                value = self.run(found.group(1)).strip()
            self.env[name] = "sk-test-not-a-real-key" if value == "..." else value

    def run_all(self, commands: list[str]) -> list[str]:
        return [self.run(c) for c in commands]
