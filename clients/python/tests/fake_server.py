"""A tiny stand-in for Countersign's HTTP API: canned answers, in order, and a record of every request."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional


@dataclass
class Canned:
    status: int
    body: bytes
    headers: Dict[str, str]
    hold: Optional[threading.Event] = None
    cut_short: bool = False


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass
class _State:
    answers: List[Canned] = field(default_factory=list)
    requests: List[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        state = self.server.state
        with state.lock:
            state.requests.append(Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            canned = state.answers.pop(0) if state.answers else Canned(500, b'{"error":{"kind":"internal","code":"no_canned_answer","message":"the test gave no answer for this request"}}', {})
        if canned.hold is not None:
            canned.hold.wait()
        self.send_response(canned.status)
        headers = {"Content-Type": "application/json", **canned.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        # Cut short: promise more than is sent, then hang up (a connection lost mid-answer).
        self.send_header("Content-Length", str(len(canned.body) + (100 if canned.cut_short else 0)))
        self.end_headers()
        self.wfile.write(canned.body)
        if canned.cut_short:
            self.close_connection = True

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test) leaves a broken pipe behind: expected, not news.
        pass


class FakeCountersign:
    """Start it in setUp, ``close()`` it in a cleanup; queue answers with ``answer`` before the call."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = _State()
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_port}"

    def answer(self, status: int, body: Any = None, *, headers: Optional[Dict[str, str]] = None, raw: Optional[bytes] = None, hold: Optional[threading.Event] = None, cut_short: bool = False) -> "FakeCountersign":
        data = raw if raw is not None else json.dumps(body).encode("utf-8")
        with self._server.state.lock:
            self._server.state.answers.append(Canned(status, data, headers or {}, hold, cut_short))
        return self

    @property
    def requests(self) -> List[Received]:
        with self._server.state.lock:
            return list(self._server.state.requests)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def proposal_json(status: str = "pending_approval", *, id: str = "prp_fake1", **extra: Any) -> Dict[str, Any]:
    """A proposal as the API describes it (the agent view's common fields)."""
    return {
        "id": id,
        "status": status,
        "action": "issue_refund",
        "contractVersion": 1,
        "payloadHash": "sha256:" + "a" * 64,
        "createdAt": "2026-12-02T10:00:00.000Z",
        "expiresAt": "2026-12-03T10:00:00.000Z",
        "links": {"self": f"http://fake/api/v1/proposals/{id}", "review": f"http://fake/proposals/{id}"},
        **extra,
    }


def error_json(kind: str, code: str, message: str = "refused", **extra: Any) -> Dict[str, Any]:
    return {"error": {"kind": kind, "code": code, "message": message, **extra}}
