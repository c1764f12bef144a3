"""A team's resolver and executor behind one small handler (docs/actions.md): every request's proof
is verified, the executor verifies the command, runs the effect once per idempotency key and
answers the same receipt to a replay, and answers reconciliation (``GET <executor>/<commandId>``).

Framework-free: :meth:`ActionService.handle` takes a method, a path, headers and the body and
answers ``(status, headers, body)``; :meth:`ActionService.wsgi` is a WSGI app (Flask's
``app.wsgi_app``, gunicorn, wsgiref) and :meth:`ActionService.asgi` an ASGI app (FastAPI's or
Starlette's ``app.mount``, uvicorn).
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.parse
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from .jwks import JwksLike, as_jwks
from .verify import CommandRejected, Now, RequestRejected, SeenJti, verify_command, verify_request

Answer = Tuple[int, List[Tuple[str, str]], bytes]
MAX_BODY_BYTES = 1024 * 1024
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
            413: "Payload Too Large", 422: "Unprocessable Entity", 500: "Internal Server Error",
            503: "Service Unavailable"}


class Refusal(Exception):
    """Raised by ``execute`` (or ``resolve``) for a business refusal: nothing was done. Answered as
    ``422 {"error": {"code", "message"}}``; ``code`` is lower snake case."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _json(status: int, value: Any) -> Answer:
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body


def _error(status: int, code: str, message: str) -> Answer:
    return _json(status, {"error": {"code": code, "message": message}})


class _Receipts:
    """Receipts by idempotency key, and which command ids carried each key: the memory that makes a
    replay answer the same receipt. A real service keeps this in its own database, written in the
    same transaction as the effect, so a restart does not forget what was done."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key_locks: Dict[str, threading.Lock] = {}
        self._by_key: Dict[str, Any] = {}
        self._key_of_command: Dict[str, str] = {}

    def lock_for(self, key: str) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def get(self, key: str) -> Any:
        return self._by_key.get(key)

    def put(self, key: str, command_id: str, receipt: Any) -> None:
        with self._lock:
            self._by_key[key] = receipt
            self._key_of_command[command_id] = key

    def seen_command(self, key: str, command_id: str) -> None:
        with self._lock:
            self._key_of_command[command_id] = key

    def by_command(self, command_id: str) -> Any:
        with self._lock:
            key = self._key_of_command.get(command_id)
            return None if key is None else self._by_key.get(key)


class ActionService:
    """One action's resolver and executor.

    ``resolver_url`` and ``executor_url`` are the URLs exactly as the action's definition names
    them: each request's proof must be addressed to them (reconciliation: ``executor_url`` +
    ``/<commandId>``); requests are routed by their path. ``resolve(request)`` gets
    ``{tenant, action, contractVersion, args}`` and answers ``{resourceKey, facts, detail}``
    (``tenant`` is added when missing) or ``None`` (404: missing or another tenant's).
    ``execute(claims)`` gets the verified command's claims, performs the effect keyed by
    ``claims["idempotencyKey"]`` and answers the receipt (a JSON object), or raises
    :class:`Refusal`. ``lookup(command_id)`` answers the receipt of an executed command or
    ``None``; by default the receipts this process remembers.

    ``evidence_url`` with ``find_evidence(request)`` is the tenant's evidence resolver:
    ``request`` is ``{tenant, ref}``, the answer ``{id, kind, text}`` (``tenant`` is added when
    missing) or ``None`` (404: missing or another tenant's). ``scope`` is needed with an executor only.
    """

    def __init__(
        self,
        *,
        jwks: JwksLike,
        issuer: str,
        scope: Optional[str] = None,
        executor_url: Optional[str] = None,
        execute: Optional[Callable[[Dict[str, Any]], Any]] = None,
        resolver_url: Optional[str] = None,
        resolve: Optional[Callable[[Dict[str, Any]], Optional[Mapping[str, Any]]]] = None,
        lookup: Optional[Callable[[str], Any]] = None,
        evidence_url: Optional[str] = None,
        find_evidence: Optional[Callable[[Dict[str, Any]], Optional[Mapping[str, Any]]]] = None,
        clock: Optional[Callable[[], float]] = None,
    ) -> None:
        if (
            (executor_url is None) != (execute is None)
            or (resolver_url is None) != (resolve is None)
            or (evidence_url is None) != (find_evidence is None)
        ):
            raise ValueError("give executor_url with execute, resolver_url with resolve, evidence_url with find_evidence")
        if executor_url is not None and not scope:
            raise ValueError("an executor needs the scope its commands name")
        self.jwks = as_jwks(jwks)
        self.issuer = issuer
        self.scope = scope
        self.executor_url = executor_url
        self.resolver_url = resolver_url
        self._execute = execute
        self._resolve = resolve
        self.evidence_url = evidence_url
        self._find_evidence = find_evidence
        self._receipts = _Receipts()
        self._lookup = lookup or self._receipts.by_command
        self._seen = SeenJti()
        self._clock = clock

    def _now(self) -> Now:
        return None if self._clock is None else self._clock()

    def handle(self, method: str, path: str, headers: Any, body: bytes) -> Answer:
        """Answers one request: ``(status, [(header, value)], body bytes)``."""
        method = method.upper()
        executor_path = _path_of(self.executor_url)
        if self.resolver_url is not None and path == _path_of(self.resolver_url):
            if method != "POST":
                return _error(405, "method_not_allowed", "The resolver answers POST only.")
            return self._guarded(method, self.resolver_url, headers, body, self._resolve_request)
        if self.evidence_url is not None and path == _path_of(self.evidence_url):
            if method != "POST":
                return _error(405, "method_not_allowed", "The evidence resolver answers POST only.")
            return self._guarded(method, self.evidence_url, headers, body, self._evidence_request)
        if self.executor_url is not None and path == executor_path:
            if method != "POST":
                return _error(405, "method_not_allowed", "The executor answers POST only.")
            return self._guarded(method, self.executor_url, headers, body, self._execute_command)
        if self.executor_url is not None and path.startswith(executor_path + "/"):
            command_id = path[len(executor_path) + 1 :]
            if method != "GET" or not command_id or "/" in command_id:
                return _error(405, "method_not_allowed", "Reconciliation is GET <executor>/<commandId>.")
            url = f"{self.executor_url}/{command_id}"
            return self._guarded(method, url, headers, body, lambda _body: self._reconcile(command_id))
        return _error(404, "not_found", "No such route.")

    def _guarded(self, method: str, url: str, headers: Any, body: bytes, then: Callable[[bytes], Answer]) -> Answer:
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "body_too_large", "The body is too large.")
        try:
            verify_request(method, url, body, headers, self.jwks, self.issuer, url, now=self._now(), seen=self._seen)
        except RequestRejected as rejected:
            return _error(401, rejected.code, rejected.message)
        except (OSError, ValueError):
            return _error(503, "keys_unavailable", "Countersign's key set could not be read.")
        return then(body)

    def _execute_command(self, body: bytes) -> Answer:
        assert self._execute is not None
        try:
            assert self.scope is not None
            claims = verify_command(body.decode("ascii"), self.jwks, self.scope, self.issuer, self._now())
        except UnicodeDecodeError:
            return _error(422, "malformed", "The body is not a compact JWS.")
        except CommandRejected as rejected:
            return _error(422, rejected.code, rejected.message)
        except (OSError, ValueError):
            return _error(503, "keys_unavailable", "Countersign's key set could not be read.")
        key = claims["idempotencyKey"]
        # One effect per idempotency key, even for concurrent deliveries of the same command.
        with self._receipts.lock_for(key):
            done = self._receipts.get(key)
            if done is not None:
                self._receipts.seen_command(key, claims["jti"])
                return _json(200, {"receipt": done})
            try:
                receipt = self._execute(claims)
            except Refusal as refusal:
                return _error(422, refusal.code, refusal.message)
            if not isinstance(receipt, Mapping):
                raise TypeError("execute must answer the receipt as a dict, or raise Refusal")
            self._receipts.put(key, claims["jti"], receipt)
        return _json(200, {"receipt": receipt})

    def _reconcile(self, command_id: str) -> Answer:
        receipt = self._lookup(urllib.parse.unquote(command_id))
        if receipt is None:
            return _error(404, "not_found", "No command with this id was executed.")
        return _json(200, {"receipt": receipt})

    def _resolve_request(self, body: bytes) -> Answer:
        assert self._resolve is not None
        try:
            request = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _error(400, "malformed_request", "The body is not JSON.")
        if not isinstance(request, dict) or not isinstance(request.get("tenant"), str):
            return _error(400, "malformed_request", "The body must be {tenant, action, contractVersion, args}.")
        try:
            found = self._resolve(request)
        except Refusal as refusal:
            return _error(422, refusal.code, refusal.message)
        if found is None:
            return _error(404, "not_found", "No such resource for this tenant.")
        return _json(200, {"tenant": request["tenant"], **found})

    def _evidence_request(self, body: bytes) -> Answer:
        assert self._find_evidence is not None
        try:
            request = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _error(400, "malformed_request", "The body is not JSON.")
        if not isinstance(request, dict) or not isinstance(request.get("tenant"), str) or not isinstance(request.get("ref"), str):
            return _error(400, "malformed_request", "The body must be {tenant, ref}.")
        found = self._find_evidence({"tenant": request["tenant"], "ref": request["ref"]})
        if found is None:
            return _error(404, "not_found", "No such evidence for this tenant.")
        return _json(200, {"tenant": request["tenant"], **found})

    async def asgi(self, scope: Dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        """An ASGI app: ``app.mount("/actions", service.asgi)`` with FastAPI or Starlette, or any
        ASGI server. Routes by the full path (``root_path`` + ``path``)."""
        await _asgi(self, scope, receive, send)

    def wsgi(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """A WSGI app: ``app.wsgi_app = DispatcherMiddleware(app.wsgi_app, {"/actions": service.wsgi})``
        with Flask, or any WSGI server. Routes by SCRIPT_NAME + PATH_INFO."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            status, headers, body = _error(413, "body_too_large", "The body is too large.")
        else:
            body_in = environ["wsgi.input"].read(length) if length > 0 else b""
            path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
            request_headers = [
                (name[5:].replace("_", "-"), value) for name, value in environ.items() if name.startswith("HTTP_")
            ]
            status, headers, body = self.handle(environ.get("REQUEST_METHOD", "GET"), path, request_headers, body_in)
        start_response(f"{status} {_REASONS.get(status, 'Unknown')}", headers)
        return [body]


async def _asgi(service: "ActionService", scope: Dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    if scope["type"] != "http":
        return  # lifespan and websockets: nothing to set up
    chunks: List[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_BODY_BYTES:
            chunks.append(chunk)
        more = message.get("more_body", False)
    # Starlette's Mount keeps the full path in "path" (root_path is its prefix); a bare server may not.
    root, path = scope.get("root_path", ""), scope["path"]
    full = path if path.startswith(root) else root + path
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope.get("headers", [])]
    if size > MAX_BODY_BYTES:
        status, answer_headers, body = _error(413, "body_too_large", "The body is too large.")
    else:
        loop = asyncio.get_running_loop()
        # handle() blocks (the JWKS fetch, the team's own execute): off the event loop.
        status, answer_headers, body = await loop.run_in_executor(
            None, service.handle, scope["method"], full, headers, b"".join(chunks)
        )
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in answer_headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _path_of(url: Optional[str]) -> str:
    return urllib.parse.urlsplit(url or "").path.rstrip("/") or "/"
