"""What the live tests need besides the client: where Countersign runs, its agent key, and an
operator who decides through the operator API (docs/design.md §12) as the dashboard would.

Settings come from the environment (scripts/python-client.ts sets them): COUNTERSIGN_URL,
COUNTERSIGN_AGENT_KEY, COUNTERSIGN_OPERATOR_EMAIL and COUNTERSIGN_OPERATOR_PASSWORD (an approver of
the key's tenant). Against `npm run demo`, what is missing is read from the demo's
`<COUNTERSIGN_DATA_DIR or .data>/demo-credentials.json` (the acme key and an acme approver).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

TIMEOUT_S = 30


@dataclass(frozen=True)
class LiveSettings:
    url: str
    agent_key: str
    operator_email: str
    operator_password: str


def _demo_credentials() -> Dict[str, Any]:
    path = os.path.join(os.environ.get("COUNTERSIGN_DATA_DIR", ".data"), "demo-credentials.json")
    try:
        with open(path, encoding="utf-8") as file:
            credentials: Dict[str, Any] = json.load(file)
            return credentials
    except FileNotFoundError:
        return {}


def live_settings() -> LiveSettings:
    """The settings, or an error naming what is missing (the live tests fail rather than skip)."""
    demo = _demo_credentials()
    agent: Dict[str, Any] = next((a for a in demo.get("agents", []) if a.get("tenant") == "acme"), {})
    approver: Dict[str, Any] = next((p for p in demo.get("people", []) if p.get("tenant") == "acme" and p.get("role") == "approver"), {})
    values = {
        "COUNTERSIGN_URL": os.environ.get("COUNTERSIGN_URL") or demo.get("url"),
        "COUNTERSIGN_AGENT_KEY": os.environ.get("COUNTERSIGN_AGENT_KEY") or agent.get("key"),
        "COUNTERSIGN_OPERATOR_EMAIL": os.environ.get("COUNTERSIGN_OPERATOR_EMAIL") or approver.get("email"),
        "COUNTERSIGN_OPERATOR_PASSWORD": os.environ.get("COUNTERSIGN_OPERATOR_PASSWORD") or approver.get("password"),
    }
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise RuntimeError(
            f"the live tests need a running Countersign: set {', '.join(missing)} "
            "(`npm run test:python` starts one and sets them; or start `npm run demo` and run from the repository's root)"
        )
    return LiveSettings(*(str(value) for value in values.values()))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


_opener = urllib.request.build_opener(_NoRedirects())


def _send(request: urllib.request.Request) -> Any:
    """The answer, whatever its status (an HTTPError is an answer too)."""
    try:
        return _opener.open(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as answered:
        return answered


def _cookies(response: Any) -> List[str]:
    return [header.split(";", 1)[0] for header in response.headers.get_all("Set-Cookie") or []]


class Operator:
    """A person signed in without a browser: next-auth's csrf, then the credentials callback."""

    def __init__(self, settings: LiveSettings) -> None:
        self.url = settings.url.rstrip("/")
        with _send(urllib.request.Request(f"{self.url}/api/auth/csrf")) as csrf:
            jar = "; ".join(_cookies(csrf))
            token = json.load(csrf)["csrfToken"]
        form = urllib.parse.urlencode({"csrfToken": token, "email": settings.operator_email, "password": settings.operator_password, "callbackUrl": "/"})
        request = urllib.request.Request(
            f"{self.url}/api/auth/callback/credentials",
            data=form.encode("ascii"),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": jar},
            method="POST",
        )
        with _send(request) as signed_in:
            session = next((cookie for cookie in _cookies(signed_in) if cookie.startswith("authjs.session-token=")), None)
        if session is None:
            raise RuntimeError(f"{settings.operator_email} could not sign in")
        self._cookie = session

    def _json(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        headers = {"Cookie": self._cookie, "Accept": "application/json"}
        data = None
        if body is not None:
            # The operator API takes changes only from its own origin (docs/design.md §12).
            headers.update({"Content-Type": "application/json", "Origin": self.url})
            data = json.dumps(body).encode("utf-8")
        with _send(urllib.request.Request(f"{self.url}{path}", data=data, headers=headers, method=method)) as response:
            answer = json.load(response)
            if response.status != 200:
                raise AssertionError(f"{method} {path}: HTTP {response.status} {answer}")
            return answer

    def approve(self, proposal_id: str) -> Any:
        """Approves with the payload hash the operator's own read shows, as the dashboard does."""
        seen = self._json("GET", f"/api/v1/proposals/{proposal_id}")
        return self._json("POST", f"/api/v1/proposals/{proposal_id}/decisions", {"decision": "approve", "payloadHash": seen["payloadHash"]})
