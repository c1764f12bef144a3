"""The client against a running Countersign seeded with the demo world (scripts/python-client.ts
starts one): propose, read, a person approves through the operator API, the waits end as
documented; the refusals carry their codes, issues and repair advice; a retry is the same proposal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional

from countersign import (
    AuthenticationError,
    Client,
    ContractVersionUnknownError,
    DeadlineExceededError,
    IdempotencyConflictError,
    NotFoundError,
    Proposal,
    ValidationError,
    new_request_id,
)
from live_support import LiveSettings, Operator, live_settings

# The demo keeps ord_ex001 (acme, USD, 500.00 charged) for the examples: small refunds leave room
# for many runs, and each stays within the one-approver bound of the demo policy.
ORDER = "ord_ex001"
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "refund.py")
# A safety net for a server that never answers, not a measurement: nothing here asserts on time.
PATIENCE_S = 180

settings: LiveSettings
operator: Operator


def setUpModule() -> None:
    global settings, operator
    settings = live_settings()
    operator = Operator(settings)


def refund(amount_minor: int, **changes: Any) -> Dict[str, Any]:
    return {"orderId": ORDER, "amountMinor": amount_minor, "currency": "USD", "reason": "Python client test", **changes}


def agent() -> Client:
    return Client(settings.url, settings.agent_key)


class LifecycleTest(unittest.TestCase):
    def test_propose_read_approve_then_decided_then_final(self) -> None:
        client = agent()
        proposal = client.propose("issue_refund", refund(150), evidence_refs=["ticket_message_73"])
        self.assertTrue(proposal.created)
        self.assertEqual((proposal.status, proposal.action, proposal.contract_version), ("pending_approval", "issue_refund", 1))
        self.assertRegex(proposal.request_id or "", r"^py_[0-9a-f]{32}$")
        self.assertRegex(proposal.payload_hash, r"^sha256:[0-9a-f]{64}$")
        self.assertTrue(proposal.review_url.endswith(f"/proposals/{proposal.id}"))

        read = client.get(proposal.id)
        self.assertEqual((read.id, read.status, read.payload_hash, read.request_id), (proposal.id, "pending_approval", proposal.payload_hash, proposal.request_id))
        self.assertEqual(read.decisions, ())
        self.assertIsNone(read.execution)
        self.assertEqual(read.raw["payload"]["evidenceRefs"], ["ticket_message_73"])

        # The wait is under way (it has read the proposal pending) before the person approves.
        seen: List[Proposal] = []
        first_read = threading.Event()

        def note(state: Proposal) -> None:
            seen.append(state)
            first_read.set()

        with ThreadPoolExecutor(max_workers=1) as pool:
            waiting = pool.submit(client.wait_for_decision, proposal.id, "decided", PATIENCE_S, initial_delay_s=0.2, max_delay_s=1.0, on_state=note)
            self.assertTrue(first_read.wait(PATIENCE_S), "the wait never read the proposal")
            operator.approve(proposal.id)
            decided = waiting.result(timeout=PATIENCE_S)
        self.assertEqual(seen[0].status, "pending_approval")
        # The in-process worker may run the command between two reads: decided is anything past pending.
        self.assertIn(decided.status, ("approved", "executing", "succeeded"))
        self.assertEqual([decision.decision for decision in decided.decisions], ["approve"])

        final = client.wait_for_decision(proposal.id, until="final", deadline_s=PATIENCE_S, initial_delay_s=0.2, max_delay_s=1.0)
        self.assertEqual(final.status, "succeeded")
        self.assertTrue(final.is_final)
        assert final.execution is not None
        self.assertEqual(final.execution["status"], "succeeded")
        self.assertEqual(final.execution["receipt"]["amountMinor"], 150)

    def test_the_deadline_ends_a_wait_nobody_answers(self) -> None:
        client = agent()
        proposal = client.propose("issue_refund", refund(110))
        with self.assertRaises(DeadlineExceededError) as raised:
            client.wait_for_decision(proposal.id, deadline_s=1, initial_delay_s=0.2)
        last = raised.exception.last
        assert last is not None
        self.assertEqual((last.id, last.status), (proposal.id, "pending_approval"))


class RetryTest(unittest.TestCase):
    def test_the_same_request_id_and_payload_is_the_same_proposal(self) -> None:
        client = agent()
        request_id = new_request_id()
        first = client.propose("issue_refund", refund(120), request_id=request_id, contract_version=1)
        again = client.propose("issue_refund", refund(120), request_id=request_id, contract_version=1)
        self.assertEqual((first.created, again.created), (True, False))
        self.assertEqual((again.id, again.payload_hash, again.status, again.request_id), (first.id, first.payload_hash, first.status, request_id))

    def test_the_same_request_id_with_another_payload_is_a_conflict(self) -> None:
        client = agent()
        request_id = new_request_id()
        client.propose("issue_refund", refund(125), request_id=request_id)
        with self.assertRaises(IdempotencyConflictError) as raised:
            client.propose("issue_refund", refund(126), request_id=request_id)
        self.assertEqual((raised.exception.status, raised.exception.kind, raised.exception.code), (409, "idempotency", "idempotency_conflict"))
        self.assertEqual(raised.exception.request_id, request_id)


class RefusalTest(unittest.TestCase):
    def test_an_unknown_field_names_the_field_and_a_repair_follows(self) -> None:
        client = agent()
        with self.assertRaises(ValidationError) as raised:
            client.propose("issue_refund", refund(130, note="please hurry"))
        error = raised.exception
        self.assertEqual((error.status, error.kind, error.code), (422, "schema", "contract_violation"))
        self.assertEqual([(issue.field, issue.code) for issue in error.issues], [("note", "unknown_field")])
        self.assertIn("note", error.issues[0].message)
        assert error.repair is not None
        self.assertTrue(error.repair.allowed)
        self.assertIsInstance(error.repair.attempts_left, int)
        refused_id = error.request_id
        assert refused_id is not None

        repaired = client.propose("issue_refund", refund(130), repair_of=refused_id)
        self.assertEqual((repaired.created, repaired.status), (True, "pending_approval"))
        self.assertNotEqual(repaired.request_id, refused_id, "a repair is a new request that names the refused one")

    def test_a_business_rule_has_its_own_code(self) -> None:
        with self.assertRaises(ValidationError) as raised:
            agent().propose("issue_refund", refund(140, currency="EUR"))
        self.assertEqual((raised.exception.kind, raised.exception.code, raised.exception.issues), ("business_rule", "currency_mismatch", ()))

    def test_a_bad_agent_key_is_refused_and_never_repeated(self) -> None:
        wrong = "cs_agent_" + "0" * 40
        client = Client(settings.url, wrong)
        calls: List[Callable[[], Proposal]] = [lambda: client.propose("issue_refund", refund(100), contract_version=1), lambda: client.get("prp_anything")]
        for call in calls:
            with self.assertRaises(AuthenticationError) as raised:
                call()
            self.assertEqual((raised.exception.status, raised.exception.kind, raised.exception.code), (401, "authentication", "unauthenticated"))
            self.assertNotIn(wrong, str(raised.exception))

    def test_an_unknown_proposal_is_not_found_and_ends_a_wait_at_once(self) -> None:
        client = agent()
        with self.assertRaises(NotFoundError) as raised:
            client.get("prp_doesnotexist0000000")
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "not_found"))
        with self.assertRaises(NotFoundError):
            client.wait_for_decision("prp_doesnotexist0000000", deadline_s=PATIENCE_S)

    def test_an_action_without_a_current_contract_is_refused_before_proposing(self) -> None:
        with self.assertRaises(ContractVersionUnknownError) as raised:
            agent().propose("wire_money", {"amountMinor": 1})
        self.assertEqual(raised.exception.code, "unknown_action")


class ExampleTest(unittest.TestCase):
    def test_examples_refund_py_proposes_waits_and_prints_the_outcome(self) -> None:
        env = {**os.environ, "COUNTERSIGN_URL": settings.url, "COUNTERSIGN_AGENT_KEY": settings.agent_key}
        run = subprocess.Popen(
            [sys.executable, "-u", EXAMPLE, "--amount-minor", "135", "--evidence", "ticket_message_73", "--deadline-seconds", str(PATIENCE_S)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.addCleanup(run.kill)
        assert run.stdout is not None
        printed: List[str] = []
        proposal_id: Optional[str] = None
        # As a person would: read what it prints, approve the proposal it names in the dashboard.
        for line in run.stdout:
            printed.append(line)
            match = re.search(r"proposal (prp_\w+): pending_approval", line)
            if match:
                proposal_id = match.group(1)
                break
        self.assertIsNotNone(proposal_id, "".join(printed))
        assert proposal_id is not None
        operator.approve(proposal_id)
        rest, _ = run.communicate(timeout=PATIENCE_S)
        output = "".join(printed) + rest
        self.assertEqual(run.returncode, 0, output)
        self.assertRegex(output, r"(?m)^Decided: (approved|executing|succeeded) \(approved\)$")
        self.assertRegex(output, r'(?m)^Outcome: succeeded \(approved\); receipt \{.*"amountMinor": 135')


if __name__ == "__main__":
    unittest.main()
