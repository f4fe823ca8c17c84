"""A small OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks: scripted replies,
errors and delays, and a log of every request with the status it got."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """What the server does with one request."""

    content: str | None = "{}"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reasoning: str | None = None
    body: str | None = None  # raw body instead of a completion
    hang: bool = False  # the client is expected to give up: logged as HUNG
    finish_reason: str = "stop"  # "length": the reply was cut at the token limit


class _Server(ThreadingHTTPServer):
    request_queue_size = 512  # many clients connect at once (the default is 5)


Script = Callable[[dict, int], Reply]  # (request JSON, request number) -> Reply
HUNG = 599  # logged status of a request the client gave up on


@dataclass
class LoggedRequest:
    body: dict
    status: int
    auth: str | None
    at: float = 0.0  # time.monotonic() when it arrived


class FakeLLM:
    def __init__(self, script: Script):
        self.script = script
        self.log: list[LoggedRequest] = []
        self.keep_log = True  # benchmarks turn it off: the log grows with every call
        self.count = 0  # requests received
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    n = outer.count
                    outer.count += 1
                    reply = outer.script(body, n)
                    if outer.keep_log:
                        outer.log.append(
                            LoggedRequest(
                                body,
                                HUNG if reply.hang else reply.status,
                                self.headers.get("Authorization"),
                                time.monotonic(),
                            )
                        )
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.body is not None:
                    payload = reply.body.encode()
                elif reply.status != 200:
                    payload = json.dumps(
                        {"error": {"message": f"scripted {reply.status}", "type": "test"}}
                    ).encode()
                else:
                    message = {"role": "assistant", "content": reply.content}
                    if reply.reasoning is not None:
                        message["reasoning_content"] = reply.reasoning
                    payload = json.dumps(
                        {
                            "id": f"chatcmpl-{n}",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model", "m"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": message,
                                    "finish_reason": reply.finish_reason,
                                }
                            ],
                            "usage": {
                                "prompt_tokens": 10,
                                "completion_tokens": 5,
                                "total_tokens": 15,
                            },
                        }
                    ).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to send

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def successes(self) -> list[dict]:
        return [r.body for r in self.log if r.status == 200]
