"""What the agent API answers about a proposal (docs/design.md §4), as typed values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

PENDING_STATUS = "pending_approval"

FINAL_STATUSES = frozenset({"succeeded", "failed", "rejected", "expired", "stale", "cancelled"})
"""Statuses a proposal never leaves. ``outcome_unknown`` is not one: reconciliation settles it."""

STATUSES = frozenset(
    {
        "pending_approval",
        "approved",
        "executing",
        "succeeded",
        "failed",
        "outcome_unknown",
        "rejected",
        "expired",
        "stale",
        "cancelled",
    }
)


@dataclass(frozen=True)
class Decision:
    """One person's approve or reject of the proposal."""

    decision: str
    """``approve`` or ``reject``."""
    reason: Optional[str]
    at: str


@dataclass(frozen=True)
class Proposal:
    """A proposal as the API last described it.

    ``propose`` answers the short form (the fields down to ``self_url``); ``get`` and
    ``wait_for_decision`` also fill in the decisions, the execution and the status reason. Everything
    the API sent, including fields this class does not name, is in ``raw``.
    """

    id: str
    status: str
    action: str
    contract_version: int
    payload_hash: str
    created_at: str
    expires_at: str
    review_url: str
    """The proposal's page in the dashboard, for a person."""
    self_url: str
    request_id: Optional[str] = None
    """The request id that made it (``propose`` fills in the one it sent)."""
    created: Optional[bool] = None
    """``propose`` only: ``True`` for a new proposal, ``False`` when the request id was a retry of the same payload."""
    summary: Optional[str] = None
    status_reason: Optional[str] = None
    decided_at: Optional[str] = None
    decisions: Tuple[Decision, ...] = ()
    execution: Optional[Mapping[str, Any]] = None
    """The executor's record (``status``, ``attempts``, ``receipt``, ``errorCode``, …) once it ran."""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_decided(self) -> bool:
        """Anything but ``pending_approval``: a person (or the policy, or time) decided."""
        return self.status != PENDING_STATUS

    @property
    def is_final(self) -> bool:
        """The status will not change again (see ``FINAL_STATUSES``)."""
        return self.status in FINAL_STATUSES


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _decisions_of(value: Any) -> Tuple[Decision, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        Decision(decision=item.get("decision", ""), reason=_text(item.get("reason")), at=item.get("at", ""))
        for item in value
        if isinstance(item, dict)
    )


def proposal_from(
    body: Mapping[str, Any],
    *,
    request_id: Optional[str] = None,
    created: Optional[bool] = None,
) -> Optional[Proposal]:
    """The proposal a JSON object describes, or ``None`` when it lacks the fields every proposal has."""
    if not isinstance(body.get("id"), str) or not isinstance(body.get("status"), str):
        return None
    links: Dict[str, Any] = body["links"] if isinstance(body.get("links"), dict) else {}
    version = body.get("contractVersion")
    execution = body.get("execution")
    return Proposal(
        id=body["id"],
        status=body["status"],
        action=_text(body.get("action")) or "",
        contract_version=version if isinstance(version, int) and not isinstance(version, bool) else 0,
        payload_hash=_text(body.get("payloadHash")) or "",
        created_at=_text(body.get("createdAt")) or "",
        expires_at=_text(body.get("expiresAt")) or "",
        review_url=_text(links.get("review")) or "",
        self_url=_text(links.get("self")) or "",
        request_id=_text(body.get("requestId")) or request_id,
        created=created,
        summary=_text(body.get("summary")),
        status_reason=_text(body.get("statusReason")),
        decided_at=_text(body.get("decidedAt")),
        decisions=_decisions_of(body.get("decisions")),
        execution=execution if isinstance(execution, dict) else None,
        raw=dict(body),
    )
