"""A scripted OpenAI-compatible Chat Completions server for tests and benchmarks (runs in a thread,
or as its own process: `python tests/chat_server.py --delay 0.1` prints its URL).

Per episode (keyed by the first user message) the replies go: a call of an unknown tool, a
call with malformed JSON arguments, a valid call of the first offered tool, a final answer.
On top: request numbers in `fail_once` get a 500, those in `stall_once` a reply slower than
the client's timeout, and episodes whose user message contains `always_fail` always get 500.
`status` answers every request with that HTTP error status (401, 404, ...); `body` answers
every request (or, with `body_for`, only episodes whose user message contains that text)
with status 200 and these raw bytes (a non-JSON page, JSON that is no completion).
"""

from __future__ import annotations

import argparse
import http.server
import json
import threading
import time
from collections import Counter
from typing import Any


class ScriptedChatServer:
    def __init__(self, fail_once: set[int] | None = None, stall_once: set[int] | None = None,
                 always_fail: str | None = None, stall_seconds: float = 3.0, delay: float = 0.0,
                 status: int | None = None, body: bytes | None = None, body_for: str | None = None,
                 port: int = 0) -> None:
        self.fail_once, self.stall_once = fail_once or set(), stall_once or set()
        self.always_fail, self.stall_seconds, self.delay = always_fail, stall_seconds, delay
        self.status, self.body, self.body_for = status, body, body_for
        self.count = 0
        self.per_episode: Counter[str] = Counter()
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, body = outer.answer(request)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json" if body is not outer.body else "text/html")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port: int = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def answer(self, request: dict[str, Any]) -> tuple[int, dict[str, Any] | bytes]:
        messages = request["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        with self.lock:
            self.count += 1
            number = self.count
            self.per_episode[user] += 1
        if self.delay:
            time.sleep(self.delay)
        if number in self.stall_once:
            time.sleep(self.stall_seconds)
        if self.status is not None:
            return self.status, {"error": {"message": f"scripted status {self.status}", "type": "invalid_request_error"}}
        if self.body is not None and (self.body_for is None or self.body_for in user):
            return 200, self.body
        if number in self.fail_once or (self.always_fail and self.always_fail in user):
            return 500, {"error": {"message": "scripted failure", "type": "server_error"}}
        step = sum(1 for m in messages if m["role"] == "assistant")
        tools = [t["function"]["name"] for t in request.get("tools") or []]
        if step == 0:
            message = self.call("no_such_tool", "{}")
        elif step == 1 and tools:
            message = self.call(tools[0], "{not json")
        elif step == 2 and tools:
            message = self.call(tools[0], "{}")
        else:
            message = {"role": "assistant", "content": "I could not find it."}
        return 200, {
            "id": f"cmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": request["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        }

    def call(self, name: str, arguments: str) -> dict[str, Any]:
        with self.lock:
            ident = f"call_{self.count}"
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}]}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the scripted chat endpoint until killed; prints its URL.")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each reply waits")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ScriptedChatServer(delay=args.delay, port=args.port)
    print(server.url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
