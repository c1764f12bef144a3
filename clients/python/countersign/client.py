"""The agent API client (docs/design.md §4): propose, read, and wait for a decision."""

from __future__ import annotations

import json
import random
import secrets
import time
import urllib.parse
from typing import Any, Callable, Dict, Iterable, List, Literal, Mapping, Optional

from ._http import NOT_JSON, Answer, exchange
from ._version import __version__
from .backoff import Backoff, parse_retry_after
from .errors import (
    ConnectionFailedError,
    ContractVersionUnknownError,
    CountersignError,
    DeadlineExceededError,
    MalformedResponseError,
    RateLimitedError,
    UnavailableError,
    error_from_body,
)
from .models import Proposal, proposal_from

Until = Literal["decided", "final"]
"""What ``wait_for_decision`` waits for."""
UNTIL = ("decided", "final")
GATEWAY_STATUSES = (502, 503, 504)


def new_request_id() -> str:
    """A random request id (``py_`` and 32 hex digits). Keep it to retry the same proposal safely."""
    return f"py_{secrets.token_hex(16)}"


class Client:
    """A client for one agent key.

    ``base_url`` is where Countersign answers (``http://127.0.0.1:3000``); ``agent_key`` the key an
    admin created (``cs_agent_…``). ``timeout_s`` bounds every request. ``sleep``, ``clock`` and
    ``rand`` are what ``wait_for_decision`` pauses, tells time and draws jitter with (for tests, or
    to run inside something that is not a plain thread).
    """

    def __init__(
        self,
        base_url: str,
        agent_key: str,
        *,
        timeout_s: float = 15.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rand: Callable[[], float] = random.random,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("base_url must be an http:// or https:// URL, e.g. http://127.0.0.1:3000")
        if not agent_key or any(char in agent_key for char in "\r\n"):
            raise ValueError("agent_key must be a non-empty key on one line")
        if not timeout_s > 0:
            raise ValueError("timeout_s must be more than 0")
        self.base_url = base_url.rstrip("/")
        self._agent_key = agent_key
        self._timeout_s = timeout_s
        self._sleep = sleep
        self._clock = clock
        self._rand = rand
        self._current_versions: Dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, agent_key='…')"

    # -- requests ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, payload: Optional[Mapping[str, Any]] = None, *, request_id: Optional[str] = None) -> Answer:
        headers = {
            "Authorization": f"Bearer {self._agent_key}",
            "Accept": "application/json",
            "User-Agent": f"countersign-python/{__version__}",
        }
        body = None
        if payload is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        answer = exchange(method, f"{self.base_url}{path}", headers, body=body, timeout_s=self._timeout_s, request_id=request_id)
        if 300 <= answer.status < 400:
            raise MalformedResponseError(
                f"HTTP {answer.status}: a redirect, not followed (the agent key goes to base_url only); check base_url",
                code="malformed_response",
                status=answer.status,
                request_id=request_id,
            )
        retry_after = parse_retry_after(answer.headers.get("Retry-After"))
        if answer.body is NOT_JSON:
            raise MalformedResponseError(
                f"HTTP {answer.status} with a body that is not JSON",
                code="malformed_response",
                status=answer.status,
                retry_after=retry_after,
                request_id=request_id,
            )
        if not 200 <= answer.status < 300:
            raise error_from_body(answer.status, answer.body, retry_after=retry_after, request_id=request_id)
        return answer

    @staticmethod
    def _unexpected(answer: Answer, what: str, request_id: Optional[str] = None) -> MalformedResponseError:
        return MalformedResponseError(
            f"HTTP {answer.status} without {what}",
            code="malformed_response",
            status=answer.status,
            request_id=request_id,
        )

    # -- the agent API ----------------------------------------------------------------------

    def propose(
        self,
        action: str,
        args: Mapping[str, Any],
        *,
        request_id: Optional[str] = None,
        contract_version: Optional[int] = None,
        evidence_refs: Iterable[str] = (),
        repair_of: Optional[str] = None,
    ) -> Proposal:
        """Proposes ``action`` with ``args`` and answers the proposal (``created`` says whether it is new).

        Without ``request_id`` a random one is made; pass your own (and keep it) to retry safely: the
        same id with the same payload answers the same proposal, never a second one. Every error
        raised here carries the ``request_id`` that was sent. Without ``contract_version`` the
        action's current version for the key's tenant is read from ``GET /api/v1/contracts`` (once per
        client). ``repair_of`` names a refused request this one corrects.
        """
        if isinstance(evidence_refs, str):
            raise TypeError("evidence_refs must be a list of ids, not one string")
        rid = request_id if request_id is not None else new_request_id()
        try:
            version = contract_version if contract_version is not None else self.current_contract_version(action)
        except CountersignError as failure:
            failure.request_id = rid
            raise
        envelope: Dict[str, Any] = {
            "requestId": rid,
            "action": action,
            "contractVersion": version,
            "args": dict(args),
            "evidenceRefs": list(evidence_refs),
        }
        if repair_of is not None:
            envelope["repairOf"] = repair_of
        answer = self._call("POST", "/api/v1/proposals", envelope, request_id=rid)
        body = answer.body.get("proposal") if isinstance(answer.body, dict) else None
        proposal = proposal_from(body, request_id=rid, created=answer.status == 201) if isinstance(body, dict) else None
        if proposal is None:
            raise self._unexpected(answer, "a proposal", rid)
        return proposal

    def get(self, proposal_id: str) -> Proposal:
        """The proposal with its decisions and execution; another tenant's id is a ``NotFoundError``."""
        answer = self._call("GET", f"/api/v1/proposals/{urllib.parse.quote(proposal_id, safe='')}")
        proposal = proposal_from(answer.body) if isinstance(answer.body, dict) else None
        if proposal is None:
            raise self._unexpected(answer, "a proposal")
        return proposal

    def contracts(self) -> Dict[str, Any]:
        """``GET /api/v1/contracts``: every action's versions, their JSON Schemas and this tenant's statuses."""
        answer = self._call("GET", "/api/v1/contracts")
        if not isinstance(answer.body, dict) or not isinstance(answer.body.get("actions"), list):
            raise self._unexpected(answer, "the contracts")
        return answer.body

    def current_contract_version(self, action: str) -> int:
        """The version of ``action`` the key's tenant marks ``current`` (read once, then remembered)."""
        if action in self._current_versions:
            return self._current_versions[action]
        entry = next((item for item in self.contracts()["actions"] if isinstance(item, dict) and item.get("action") == action), None)
        if entry is None:
            raise ContractVersionUnknownError(f"the contracts name no action {action!r}", code="unknown_action")
        current: List[int] = [
            version["version"]
            for version in entry.get("versions") or []
            if isinstance(version, dict) and version.get("status") == "current" and isinstance(version.get("version"), int)
        ]
        if not current:
            raise ContractVersionUnknownError(f"no version of {action!r} is current for this tenant; pass contract_version", code="no_current_version")
        self._current_versions[action] = current[0]
        return current[0]

    def wait_for_decision(
        self,
        proposal_id: str,
        until: Until = "decided",
        deadline_s: float = 600.0,
        *,
        initial_delay_s: float = 0.5,
        max_delay_s: float = 10.0,
        on_state: Optional[Callable[[Proposal], None]] = None,
    ) -> Proposal:
        """Reads the proposal until it is decided (``until="decided"``) or final (``until="final"``).

        *decided* is any status but ``pending_approval``; *final* is one of ``FINAL_STATUSES``
        (``outcome_unknown`` is not: reconciliation settles it). Between reads it pauses with capped
        exponential backoff and jitter (``initial_delay_s`` doubling up to ``max_delay_s``), never
        less than a ``429``/``503`` answer's ``Retry-After``; a request that got no answer, or a
        proxy's ``502``/``503``/``504`` page, is read again the same way. Any other error ends the
        wait at once. When ``deadline_s`` passes it
        raises ``DeadlineExceededError`` with the last state read; when the server asks to wait past
        the deadline it raises at once rather than ask too early.
        """
        if until not in UNTIL:
            raise ValueError(f"until must be 'decided' or 'final', not {until!r}")
        if deadline_s < 0:
            raise ValueError("deadline_s must be 0 or more")
        def done(state: Proposal) -> bool:
            return state.is_final if until == "final" else state.is_decided

        deadline = self._clock() + deadline_s
        backoff = Backoff(initial_delay_s, max_delay_s, rand=self._rand)
        last: Optional[Proposal] = None
        last_failure: Optional[CountersignError] = None
        while True:
            at_least = 0.0
            try:
                state = self.get(proposal_id)
            except (RateLimitedError, UnavailableError) as failure:
                last_failure = failure
                at_least = failure.retry_after or 0.0
            except MalformedResponseError as failure:
                # A proxy's page for a server that is restarting or overloaded: worth another read.
                if failure.status not in GATEWAY_STATUSES:
                    raise
                last_failure = failure
                at_least = failure.retry_after or 0.0
            except ConnectionFailedError as failure:
                last_failure = failure
            else:
                last = state
                if on_state is not None:
                    on_state(state)
                if done(state):
                    return state
            left = deadline - self._clock()
            if left <= 0 or at_least > left:
                seen = f" (last status: {last.status})" if last is not None else ""
                why = f"the server asked to wait {at_least:g} s, past the deadline" if left > 0 else f"not {until} within {deadline_s:g} s"
                raise DeadlineExceededError(f"{proposal_id}: {why}{seen}", last=last) from last_failure
            self._sleep(min(left, max(backoff.next(), at_least)))
