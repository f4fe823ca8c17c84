"""Start the app as the README says (`bash scripts/app`: `python -m webapp.startup.serve`, which is
`streamlit run app.py` with the libraries imported first, from the repository, so
.streamlit/config.toml applies) on a free local port, and a small logging HTTP server: the
browser tests' shared pieces."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(env: dict[str, str], *args: str) -> Iterator[str]:
    """The app as `bash scripts/app` starts it, with ``env`` added; yields the base URL."""
    with _serving(["-m", "webapp.startup.serve", "--server.headless", "true", *args], env) as base:
        yield base


PAGES = {
    "": "Overview",
    "leaks": "Leaks",
    "growth": "Growth",
    "audit": "Audit",
    "labels": "Labels",
    "learn": "Learn the metrics",
    "data": "Data",
}
"""The app's pages a browser test opens: path -> heading (Review needs a reviewer first)."""
LOCAL_ONLY = ("--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")


@contextmanager
def serving(db: Path | str) -> Iterator[str]:
    """The app serving the database ``db`` on this machine only; yields the base URL."""
    with running_app({"CIMEM_DB": str(db)}, *LOCAL_ONLY) as base:
        yield base


@contextmanager
def running_script(script: Path) -> Iterator[str]:
    """``streamlit run script`` from the repository (so its ``webapp`` is imported) on a free
    local port; yields the base URL."""
    command = ["-m", "streamlit", "run", str(script), "--server.headless", "true", *LOCAL_ONLY]
    with _serving(command, {"PYTHONPATH": str(REPO)}) as base:
        yield base


@contextmanager
def _serving(command: list[str], env: dict[str, str]) -> Iterator[str]:
    """``python command --server.port P`` from the repository, once its health check answers;
    yields the base URL and stops the server after."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, *command, "--server.port", str(port)],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    if not answers(base, proc, seconds=60):
        proc.kill()
        pytest.fail(
            "streamlit did not start: " + proc.stdout.read().decode(errors="replace")[-2000:]
        )
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def answers(base: str, proc: subprocess.Popen, seconds: float) -> bool:
    """Whether the app at ``base`` answers its health check within ``seconds``; false at once
    when its process ``proc`` has ended (so a failed start is said, not waited out)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{base}/_stcore/health", timeout=2)
            return True
        except OSError:
            if proc.poll() is not None:
                return False
            time.sleep(0.5)
    return False


class RequestLog:
    """Every request a logging HTTP server on 127.0.0.1 received: (method, path, headers with
    lower-case names, body)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.lock = threading.Lock()

    def add(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        with self.lock:
            self.requests.append((method, path, headers, body))

    def text(self) -> str:
        """Everything received, as one string (to search for a key)."""
        with self.lock:
            return "\n".join(
                f"{m} {p} {h} {b.decode(errors='replace')}" for m, p, h, b in self.requests
            )


COMPLETION = json.dumps(
    {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "{}"},
                "finish_reason": "stop",
            }
        ],
    }
).encode()


@contextmanager
def logging_server(reply: bytes = COMPLETION) -> Iterator[tuple[str, RequestLog]]:
    """An HTTP server on 127.0.0.1 that logs every request and answers ``reply`` as JSON (by
    default a chat completion, so an OpenAI client accepts it)."""
    log = RequestLog()

    class Handler(http.server.BaseHTTPRequestHandler):
        def _any(self) -> None:
            n = int(self.headers.get("content-length") or 0)
            headers = {k.lower(): v for k, v in self.headers.items()}
            log.add(self.command, self.path, headers, self.rfile.read(n) if n else b"")
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_GET = do_POST = do_PUT = do_HEAD = _any

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", log
    finally:
        srv.shutdown()
        srv.server_close()


def chromium_or_skip() -> list:
    """pytest marks for a browser test: skipped with a reason when chromium is absent (an
    error in CI, which installs it)."""
    if Path(CHROMIUM).exists():
        return [pytest.mark.browser]
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing in CI: .ci/run must install Debian's chromium")
    return [
        pytest.mark.browser,
        pytest.mark.skip(
            reason="Debian's chromium is not installed (apt-get install chromium); .ci/run installs it"
        ),
    ]


@contextmanager
def chromium() -> Iterator:
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def click_until(target, effect, tries: int = 6, timeout: int = 10000) -> None:
    """Click ``target`` until ``effect`` (a locator) is there: on a busy machine a click that
    reaches a page still redrawing is lost without a word, and the test would go on as if it
    had landed."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        target.click()
        try:
            effect.first.wait_for(timeout=timeout)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"{tries} clicks on {target} never showed {effect}")
