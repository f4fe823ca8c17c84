"""The server's own first visit: as soon as a fresh server answers, one session opens every page
once with its defaults, so the page caches (a run's metrics, tables, curves, the review queue) are
filled before the first person arrives. Measured in a real browser on three 60-profile runs: a
fresh server's scripts took 0.4-1.7 s per page on the first visit and 0.1-0.2 s after it.

The visit speaks Streamlit's own protocol over the server's websocket (what a browser sends:
"run this page"), so it runs exactly the scripts a visitor would, widgets at their defaults and the
default database. The server is ready when those scripts have finished and the work they
started in the background is made. It is an optimisation: when it fails the server serves as
before, and the console says why. ``CIMEM_WARM_VISIT=0`` turns it off.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field

from streamlit import config, runtime
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from webapp.startup import prefetch

# The app's pages by URL path, the default page first (app.py's st.navigation).
PAGES = ("", "leaks", "growth", "audit", "learn", "data")
PAGE_TIMEOUT_S = 300.0


@dataclass
class VisitReport:
    """What the visit saw: each page's seconds, and the pages whose script showed an exception
    (with the exception's type; its message may quote data and stays off the console)."""

    seconds: dict[str, float] = field(default_factory=dict)
    exceptions: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        total = sum(self.seconds.values())
        text = f"{len(self.seconds)} pages opened once in {total:.1f} s"
        if self.exceptions:
            shown = ", ".join(f"{p or 'overview'} ({m})" for p, m in self.exceptions.items())
            text += f"; an exception on {shown}"
        return text


def visit(ws_url: str, pages: tuple[str, ...] = PAGES) -> VisitReport:
    """Open one session at ``ws_url`` (``ws://host:port/_stcore/stream``) and run each page's
    script with its defaults, one after the other, until each has finished."""
    done = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR}
    report = VisitReport()
    with connect(ws_url, max_size=None, open_timeout=30) as ws:
        for page in pages:
            start = time.monotonic()
            ask = BackMsg()
            ask.rerun_script.query_string = ""
            ask.rerun_script.page_name = page
            ws.send(ask.SerializeToString())
            while True:
                msg = ForwardMsg()
                msg.ParseFromString(ws.recv(timeout=PAGE_TIMEOUT_S))
                kind = msg.WhichOneof("type")
                if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    element = msg.delta.new_element
                    if element.WhichOneof("type") == "exception":
                        report.exceptions.setdefault(page, element.exception.type or "error")
                elif kind == "script_finished" and msg.script_finished in done:
                    break
            report.seconds[page] = time.monotonic() - start
    return report


def _server_urls() -> tuple[str, str] | None:
    """The running server's health and websocket URLs, from its options (None under TLS: the
    visit is skipped rather than trusting any certificate)."""
    if config.get_option("server.sslCertFile"):
        return None
    host = config.get_option("server.address") or "127.0.0.1"
    if host in ("0.0.0.0", "::"):  # listening everywhere: this machine is one of them
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    prefix = f"{host}:{config.get_option('server.port')}" + (f"/{base}" if base else "")
    return f"http://{prefix}/_stcore/health", f"ws://{prefix}/_stcore/stream"


def _wait_for_server(deadline: float) -> tuple[str, str] | None:
    """Wait until Streamlit's runtime exists (its options are then final) and the server
    answers its health check."""
    while not runtime.exists():
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)
    urls = _server_urls()
    while urls is not None:
        try:
            urllib.request.urlopen(urls[0], timeout=2)
            return urls
        except OSError:
            if time.monotonic() > deadline:
                return None
            time.sleep(0.1)
    return None


def _run() -> None:
    urls = _wait_for_server(time.monotonic() + 120)
    if urls is None:
        print("cimem: no warm visit (server not reachable or TLS)", file=sys.stderr, flush=True)
        return
    try:
        report = visit(urls[1])
    except Exception as exc:  # an optimisation: the server serves as before
        print(f"cimem: the warm visit failed ({type(exc).__name__})", file=sys.stderr, flush=True)
        return
    # the pages started work in the background (Growth's next slices, Leaks' other colouring):
    # ready when it is made
    if not prefetch.wait_for_prefetch(timeout=PAGE_TIMEOUT_S):
        print("cimem: background work still being made", file=sys.stderr, flush=True)
    print(f"cimem: ready: {report.summary()}", file=sys.stderr, flush=True)


def start() -> threading.Thread | None:
    """Start the visit in a daemon thread, to run once the server answers (unless
    ``CIMEM_WARM_VISIT=0``)."""
    if os.environ.get("CIMEM_WARM_VISIT", "1") == "0":
        return None
    thread = threading.Thread(target=_run, name="cimem-warm-visit", daemon=True)
    thread.start()
    return thread
