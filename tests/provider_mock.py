"""A tiny HTTP server on 127.0.0.1 (a free port) that answers the provider SDKs with canned
bodies and records what they sent: how the fixture scripts and tests drive the real ``openai``
and ``anthropic`` clients with no network.

``with MockProvider([body, ...]) as mock:`` answers each POST with the next body (a dict is
sent as JSON, bytes/str as an SSE stream) and keeps every request body in ``mock.requests``;
``mock.url`` is the base URL to give the client."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class MockProvider:
    def __init__(self, replies: Iterable[Any]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                mock.requests.append(json.loads(body or b"{}"))
                mock.paths.append(self.path)
                reply = mock.replies.pop(0) if mock.replies else {"error": {"message": "no more canned replies"}}
                if isinstance(reply, bytes | str):
                    data = reply.encode() if isinstance(reply, str) else reply
                    kind = "text/event-stream"
                else:
                    data, kind = json.dumps(reply).encode(), "application/json"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # quiet
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> MockProvider:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
