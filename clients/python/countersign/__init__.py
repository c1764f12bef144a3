"""Countersign's agent API client: propose an action, read it, wait for a person's decision.

Standard library only (Python 3.9+). See clients/python/README.md.
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

__all__ = [
    "__version__",
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
