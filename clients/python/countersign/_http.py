"""One HTTP exchange over urllib: no redirects followed (the agent key never leaves for another
address), a timeout on every request, and every failure to get an answer as ConnectionFailedError."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Mapping, Optional

from .errors import ConnectionFailedError

MAX_BODY_BYTES = 16 * 1024 * 1024


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A 3xx comes back as it is: following it would send the Authorization header elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Message
    body: Any
    """The parsed JSON, or ``NOT_JSON``."""


NOT_JSON: Any = object()

_opener = urllib.request.build_opener(_NoRedirects())


def _body_of(stream: Any, headers: Message) -> Any:
    """The JSON an answer carries, or ``NOT_JSON``; an answer cut short raises IncompleteRead."""
    data = stream.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        return NOT_JSON
    promised = headers.get("Content-Length")
    if promised is not None and promised.strip().isdigit() and len(data) < int(promised):
        raise http.client.IncompleteRead(data, int(promised) - len(data))
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return NOT_JSON


def exchange(
    method: str,
    url: str,
    headers: Mapping[str, str],
    *,
    body: Optional[bytes] = None,
    timeout_s: float,
    request_id: Optional[str] = None,
) -> Answer:
    """Sends one request and reads the whole answer (any status)."""
    request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
    try:
        try:
            with _opener.open(request, timeout=timeout_s) as response:
                return Answer(response.status, response.headers, _body_of(response, response.headers))
        except urllib.error.HTTPError as answered:
            with answered:
                return Answer(answered.code, answered.headers, _body_of(answered, answered.headers))
    except (OSError, http.client.HTTPException) as failure:
        reason = getattr(failure, "reason", None) or failure
        raise ConnectionFailedError(
            f"{method} {urllib.parse.urlsplit(url).path} got no answer: {type(reason).__name__}: {reason}",
            code="network_error",
            request_id=request_id,
        ) from failure
