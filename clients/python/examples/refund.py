"""Propose a refund, wait for a person to decide, then for the executor's outcome.

    COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_AGENT_KEY=cs_agent_… python3 clients/python/examples/refund.py

Needs a running Countersign (`npm run demo` prints the URL and the acme agent key, and writes both to
`.data/demo-credentials.json`, which this script reads when the variables are not set). Approve
the refund in the dashboard while it waits. Exit code 0 when the proposal reached a final outcome,
1 when it was refused or the deadline passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # the package beside this folder, uninstalled

from countersign import Client, CountersignError, DeadlineExceededError, Proposal  # noqa: E402


def settings() -> Tuple[str, str]:
    """COUNTERSIGN_URL and COUNTERSIGN_AGENT_KEY, else the demo's credentials file (the acme key)."""
    path = os.path.join(os.environ.get("COUNTERSIGN_DATA_DIR", ".data"), "demo-credentials.json")
    demo = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            demo = json.load(file)
    url = os.environ.get("COUNTERSIGN_URL") or demo.get("url") or "http://localhost:3000"
    key = os.environ.get("COUNTERSIGN_AGENT_KEY") or next((a["key"] for a in demo.get("agents", []) if a.get("tenant") == "acme"), None)
    if not key:
        sys.exit(f"Set COUNTERSIGN_AGENT_KEY, or start the demo (npm run demo) so {path} holds its agent keys.")
    return url, key


def describe(state: Proposal) -> str:
    decision = state.decisions[-1] if state.decisions else None
    who = f" ({'approved' if decision.decision == 'approve' else 'rejected'}{f': {decision.reason}' if decision.reason else ''})" if decision else ""
    why = f" — {state.status_reason}" if state.status_reason else ""
    return f"{state.status}{who}{why}"


def main() -> int:
    parser = argparse.ArgumentParser(description="Propose a refund and wait for the decision and the outcome.")
    parser.add_argument("--order", default="ord_ex001")
    parser.add_argument("--amount-minor", type=int, default=1200)
    parser.add_argument("--currency", default="USD")
    parser.add_argument("--reason", default="Customer requested a partial refund for a damaged filter")
    parser.add_argument("--evidence", action="append", default=[], help="an evidence ref, e.g. ticket_message_73 (repeatable)")
    parser.add_argument("--request-id", help="your own request id, to retry the same proposal safely")
    parser.add_argument("--deadline-seconds", type=float, default=600)
    options = parser.parse_args()

    url, key = settings()
    client = Client(url, key)
    args = {"orderId": options.order, "amountMinor": options.amount_minor, "currency": options.currency, "reason": options.reason}
    print(f"▸ Proposing issue_refund of {options.amount_minor} minor units {options.currency} on {options.order}", flush=True)
    try:
        proposal = client.propose("issue_refund", args, request_id=options.request_id, evidence_refs=options.evidence)
    except CountersignError as error:
        print(f"Refused: {error}", file=sys.stderr)
        if error.repair is not None and error.repair.allowed:
            print(f"  fix it and send it again with repair_of={error.request_id!r} ({error.repair.attempts_left} repairs left)", file=sys.stderr)
        return 1
    print(f"  proposal {proposal.id}: {proposal.status} (request id {proposal.request_id}); review it at {proposal.review_url}", flush=True)

    seen: Optional[str] = proposal.status

    def progress(state: Proposal) -> None:
        nonlocal seen
        if state.status != seen:
            print(f"  now {state.status}", flush=True)
            seen = state.status

    try:
        print("▸ Waiting for a person to decide…", flush=True)
        decided = client.wait_for_decision(proposal.id, until="decided", deadline_s=options.deadline_seconds, on_state=progress)
        print(f"Decided: {describe(decided)}", flush=True)
        final = decided if decided.is_final else client.wait_for_decision(proposal.id, until="final", deadline_s=options.deadline_seconds, on_state=progress)
    except DeadlineExceededError as error:
        print(f"No outcome: {error.message}", file=sys.stderr)
        return 1
    except CountersignError as error:
        print(f"No outcome: {error}", file=sys.stderr)
        return 1
    receipt = (final.execution or {}).get("receipt")
    print(f"Outcome: {describe(final)}{f'; receipt {json.dumps(receipt)}' if receipt else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
