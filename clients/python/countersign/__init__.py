"""Countersign's agent API client: propose an action, read it, wait for a person's decision.
And, for a team's own resolver and executor, ``verify_command``, ``verify_request`` and
``ActionService`` (``pip install 'countersign[executor]'``: joserfc, cryptography, rfc8785).

The client is standard library only (Python 3.9+). See clients/python/README.md.
"""

from ._version import __version__
from .backoff import Backoff, parse_retry_after
from .client import Client, new_request_id
from .errors import (
    AuthenticationError,
    AuthorizationError,
    ConnectionFailedError,
    ContractVersionUnknownError,
    CountersignError,
    DeadlineExceededError,
    IdempotencyConflictError,
    Issue,
    MalformedRequestError,
    MalformedResponseError,
    NotFoundError,
    RateLimitedError,
    Repair,
    ServerError,
    UnavailableError,
    ValidationError,
)
from .models import FINAL_STATUSES, STATUSES, Decision, Proposal

# The executor helpers need the `executor` extra; they are imported on first use so the client
# works without it.
_EXECUTOR_NAMES = {
    "ActionService": "service",
    "CommandRejected": "verify",
    "Jwks": "jwks",
    "Refusal": "service",
    "Rejected": "verify",
    "RequestRejected": "verify",
    "SeenJti": "verify",
    "verify_command": "verify",
    "verify_request": "verify",
}


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    module = _EXECUTOR_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'countersign' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)


__all__ = [
    "__version__",
    "ActionService",
    "CommandRejected",
    "Jwks",
    "Refusal",
    "Rejected",
    "RequestRejected",
    "SeenJti",
    "verify_command",
    "verify_request",
    "AuthenticationError",
    "AuthorizationError",
    "Backoff",
    "Client",
    "ConnectionFailedError",
    "ContractVersionUnknownError",
    "CountersignError",
    "DeadlineExceededError",
    "Decision",
    "FINAL_STATUSES",
    "IdempotencyConflictError",
    "Issue",
    "MalformedRequestError",
    "MalformedResponseError",
    "NotFoundError",
    "Proposal",
    "RateLimitedError",
    "Repair",
    "STATUSES",
    "ServerError",
    "UnavailableError",
    "ValidationError",
    "new_request_id",
    "parse_retry_after",
]
