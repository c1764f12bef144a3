"""The errors the client raises.

Every error is a :class:`CountersignError`. When the API answered with its error body
(``{"error": {"kind", "code", "message", ...}}``, docs/design.md §4) the error carries the HTTP
``status``, the ``kind`` (the family), the specific ``code``, the ``issues`` (one per field that
failed the contract) and the ``repair`` advice. Errors the client makes itself (no answer, an answer
that is not the API's JSON, a deadline) have ``status`` ``None`` or the status that came, and a
``code`` of their own (``network_error``, ``malformed_response``, ``deadline_exceeded``, …).

Messages never include the agent key or the request body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple, Type

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .models import Proposal


@dataclass(frozen=True)
class Issue:
    """One problem with one field of a refused request (a ``422`` of kind ``schema``)."""

    field: str
    """The argument's own dotted name (``amountMinor``, ``items.2.sku``)."""
    code: str
    """``unknown_field``, ``invalid_type``, ``too_big``, …"""
    expected: str
    received: str
    message: str


@dataclass(frozen=True)
class Repair:
    """Whether a corrected request may follow, naming the refused one in ``repair_of``."""

    allowed: bool
    attempts_left: Optional[int] = None
    max_repairs: Optional[int] = None


class CountersignError(Exception):
    """Anything that kept a call from answering what it promises."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: Optional[int] = None,
        kind: Optional[str] = None,
        issues: Tuple[Issue, ...] = (),
        repair: Optional[Repair] = None,
        retry_after: Optional[float] = None,
        request_id: Optional[str] = None,
        details: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        """The specific reason, stable for programs (``contract_violation``, ``rate_limited``, …)."""
        self.status = status
        """The HTTP status, or ``None`` when no answer came."""
        self.kind = kind
        """The API's error family (``schema``, ``business_rule``, ``authorization``, …), or ``None``."""
        self.issues: Tuple[Issue, ...] = tuple(issues)
        self.repair = repair
        self.retry_after = retry_after
        """Seconds to wait before asking again (``Retry-After``), when the server said so."""
        self.request_id = request_id
        """For ``propose``: the request id that was sent, to retry with (a retry of the same payload is safe)."""
        self.details: Mapping[str, Any] = dict(details or {})
        """Any other field of the error body (``supportedVersions``, …), as sent."""

    def __str__(self) -> str:
        where = f"HTTP {self.status} " if self.status is not None else ""
        lines = [f"{where}{self.code}: {self.message}"]
        lines.extend(f"  {issue.field}: {issue.message}" for issue in self.issues)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class MalformedRequestError(CountersignError):
    """400, 413, 415: the body could not be read (not JSON, too large, too deep, …)."""


class AuthenticationError(CountersignError):
    """401: the agent key is missing, unknown or revoked."""


class AuthorizationError(CountersignError):
    """403: the key may not use this action or resource (missing and foreign alike), or the policy denies it."""


class NotFoundError(CountersignError):
    """404: no such proposal for this key's tenant (another tenant's id reads the same)."""


class IdempotencyConflictError(CountersignError):
    """409: the request id was already used for a different payload; use a new one."""


class ValidationError(CountersignError):
    """422: the contract (kind ``schema``, with ``issues``) or a business rule (kind ``business_rule``) refused the request."""


class RateLimitedError(CountersignError):
    """429: the key used its budget for now; ``retry_after`` says when to ask again."""


class UnavailableError(CountersignError):
    """503: a system of record could not be reached; nothing was changed. Retry after ``retry_after``."""


class ServerError(CountersignError):
    """Any other error status (``500 internal_error``: nothing was changed)."""


class ConnectionFailedError(CountersignError):
    """No answer: the server could not be reached, or the request timed out."""


class MalformedResponseError(CountersignError):
    """An answer that is not the API's JSON (a proxy's error page, a redirect, a truncated body)."""


class ContractVersionUnknownError(CountersignError):
    """``propose`` without ``contract_version``: the contracts name no current version of this action for the key's tenant."""


class DeadlineExceededError(CountersignError):
    """``wait_for_decision`` ran out of time; ``last`` is the proposal as last read (``None`` if never read)."""

    def __init__(self, message: str, *, last: Optional["Proposal"] = None) -> None:
        super().__init__(message, code="deadline_exceeded")
        self.last = last


_BY_STATUS: Dict[int, Type[CountersignError]] = {
    400: MalformedRequestError,
    401: AuthenticationError,
    403: AuthorizationError,
    404: NotFoundError,
    409: IdempotencyConflictError,
    413: MalformedRequestError,
    415: MalformedRequestError,
    422: ValidationError,
    429: RateLimitedError,
    503: UnavailableError,
}

_KNOWN_FIELDS = {"kind", "code", "message", "issues", "repair", "retryAfterSeconds"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _issues_of(value: Any) -> Tuple[Issue, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        Issue(
            field=_text(item.get("field")),
            code=_text(item.get("code")),
            expected=_text(item.get("expected")),
            received=_text(item.get("received")),
            message=_text(item.get("message")),
        )
        for item in value
        if isinstance(item, dict)
    )


def _optional_int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _repair_of(value: Any) -> Optional[Repair]:
    if not isinstance(value, dict) or not isinstance(value.get("allowed"), bool):
        return None
    return Repair(
        allowed=value["allowed"],
        attempts_left=_optional_int(value.get("attemptsLeft")),
        max_repairs=_optional_int(value.get("maxRepairs")),
    )


def error_from_body(
    status: int,
    body: Any,
    *,
    retry_after: Optional[float],
    request_id: Optional[str] = None,
) -> CountersignError:
    """The error an answer with a non-success ``status`` and the JSON ``body`` stands for."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return MalformedResponseError(
            f"HTTP {status} without the API's error body",
            code="malformed_response",
            status=status,
            request_id=request_id,
        )
    if retry_after is None:
        seconds = error.get("retryAfterSeconds")
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0:
            retry_after = float(seconds)
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else CountersignError)
    details: List[Tuple[str, Any]] = [(key, value) for key, value in error.items() if key not in _KNOWN_FIELDS]
    return cls(
        _text(error.get("message")) or f"HTTP {status}",
        code=error["code"],
        status=status,
        kind=_text(error.get("kind")) or None,
        issues=_issues_of(error.get("issues")),
        repair=_repair_of(error.get("repair")),
        retry_after=retry_after,
        request_id=request_id,
        details=dict(details),
    )
