"""The client against a stand-in server (tests/fake_server.py): what it sends, and how it reads
each kind of answer. The live tests (test_live.py) run the same calls against Countersign itself."""

from __future__ import annotations

import re
import socket
import threading
import unittest
from typing import List

from countersign import Client, Issue, Repair, errors
from fake_server import FakeCountersign, error_json, proposal_json

KEY = "cs_agent_fake_key_0123456789"
REFUND = {"orderId": "ord_1842", "amountMinor": 4999, "currency": "USD", "reason": "Customer requested a full refund"}
CONTRACTS = {
    "envelope": {},
    "actions": [
        {"action": "hold_stock", "title": "Hold stock", "scope": "inventory", "versions": [{"version": 1, "status": "current"}]},
        {
            "action": "issue_refund",
            "title": "Issue a refund",
            "scope": "payments",
            "versions": [{"version": 1, "status": "supported"}, {"version": 2, "status": "current"}, {"version": 3, "status": "shadow"}],
        },
    ],
}


class FakeTime:
    """A clock that moves only when the client pauses, and a record of the pauses."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: List[float] = []

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


class FakeServerCase(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCountersign()
        self.addCleanup(self.fake.close)
        self.time = FakeTime()
        self.client = Client(self.fake.url + "/", KEY, timeout_s=5, sleep=self.time.sleep, clock=self.time.clock, rand=lambda: 1.0)


class ProposeTest(FakeServerCase):
    def test_sends_the_envelope_with_a_random_request_id_and_the_key(self) -> None:
        self.fake.answer(201, {"proposal": proposal_json()}).answer(201, {"proposal": proposal_json(id="prp_fake2")})
        first = self.client.propose("issue_refund", REFUND, contract_version=1, evidence_refs=["ticket_message_73"])
        second = self.client.propose("issue_refund", REFUND, contract_version=1)
        sent, again = self.fake.requests
        self.assertEqual((sent.method, sent.path), ("POST", "/api/v1/proposals"))
        self.assertEqual(sent.headers["authorization"], f"Bearer {KEY}")
        self.assertEqual(sent.headers["content-type"], "application/json")
        self.assertRegex(sent.json["requestId"], r"^py_[0-9a-f]{32}$")
        self.assertEqual(
            sent.json,
            {"requestId": sent.json["requestId"], "action": "issue_refund", "contractVersion": 1, "args": REFUND, "evidenceRefs": ["ticket_message_73"]},
        )
        self.assertEqual(again.json["evidenceRefs"], [])
        self.assertNotEqual(sent.json["requestId"], again.json["requestId"])
        self.assertEqual(first.request_id, sent.json["requestId"])
        self.assertEqual((first.id, first.status, first.created, first.contract_version), ("prp_fake1", "pending_approval", True, 1))
        self.assertEqual(first.review_url, "http://fake/proposals/prp_fake1")
        self.assertEqual(second.id, "prp_fake2")

    def test_a_given_request_id_and_repair_of_are_sent_as_given(self) -> None:
        self.fake.answer(200, {"proposal": proposal_json()})
        proposal = self.client.propose("issue_refund", REFUND, request_id="req_42", contract_version=1, repair_of="req_41")
        self.assertEqual(self.fake.requests[0].json["requestId"], "req_42")
        self.assertEqual(self.fake.requests[0].json["repairOf"], "req_41")
        self.assertFalse(proposal.created, "a 200 is a retry of the same payload")
        self.assertEqual(proposal.request_id, "req_42")

    def test_without_a_version_uses_the_tenants_current_one_read_once(self) -> None:
        self.fake.answer(200, CONTRACTS).answer(201, {"proposal": proposal_json()}).answer(201, {"proposal": proposal_json()})
        self.client.propose("issue_refund", REFUND)
        self.client.propose("issue_refund", REFUND)
        paths = [(request.method, request.path) for request in self.fake.requests]
        self.assertEqual(paths, [("GET", "/api/v1/contracts"), ("POST", "/api/v1/proposals"), ("POST", "/api/v1/proposals")])
        self.assertEqual([request.json["contractVersion"] for request in self.fake.requests[1:]], [2, 2])

    def test_an_action_the_contracts_do_not_name_is_refused_before_proposing(self) -> None:
        self.fake.answer(200, CONTRACTS)
        with self.assertRaises(errors.ContractVersionUnknownError) as raised:
            self.client.propose("wire_money", {}, request_id="req_w")
        self.assertEqual(raised.exception.request_id, "req_w")
        self.assertEqual(len(self.fake.requests), 1)

    def test_one_string_of_evidence_is_refused(self) -> None:
        with self.assertRaises(TypeError):
            self.client.propose("issue_refund", REFUND, contract_version=1, evidence_refs="ticket_message_73")
        self.assertEqual(self.fake.requests, [])


class ErrorsTest(FakeServerCase):
    def test_a_contract_violation_carries_code_issues_repair_and_the_request_id(self) -> None:
        issue = {"field": "note", "code": "unknown_field", "expected": "no such field", "received": "string of 5 characters", "message": "note is not a field of issue_refund v1."}
        self.fake.answer(422, error_json("schema", "contract_violation", "The arguments do not match the contract.", issues=[issue], repair={"allowed": True, "attemptsLeft": 3, "maxRepairs": 3}))
        with self.assertRaises(errors.ValidationError) as raised:
            self.client.propose("issue_refund", {**REFUND, "note": "hello"}, request_id="req_bad", contract_version=1)
        error = raised.exception
        self.assertEqual((error.status, error.kind, error.code), (422, "schema", "contract_violation"))
        self.assertEqual(error.issues, (Issue("note", "unknown_field", "no such field", "string of 5 characters", "note is not a field of issue_refund v1."),))
        self.assertEqual(error.repair, Repair(allowed=True, attempts_left=3, max_repairs=3))
        self.assertEqual(error.request_id, "req_bad")
        self.assertIn("note: note is not a field", str(error))

    def test_each_status_is_its_own_class(self) -> None:
        cases = [
            (401, error_json("authentication", "unauthenticated"), errors.AuthenticationError),
            (404, error_json("not_found", "not_found"), errors.NotFoundError),
            (409, error_json("idempotency", "idempotency_conflict"), errors.IdempotencyConflictError),
            (500, error_json("internal", "internal_error"), errors.ServerError),
        ]
        for status, body, cls in cases:
            with self.subTest(status=status):
                self.fake.answer(status, body)
                with self.assertRaises(cls) as raised:
                    self.client.get("prp_x")
                self.assertEqual((raised.exception.status, raised.exception.code), (status, body["error"]["code"]))

    def test_a_rate_limit_says_when_to_retry(self) -> None:
        self.fake.answer(429, error_json("rate_limit", "rate_limited", retryAfterSeconds=7), headers={"Retry-After": "7"})
        self.fake.answer(503, error_json("unavailable", "systems_unavailable"), headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
        self.fake.answer(429, error_json("rate_limit", "rate_limited", retryAfterSeconds=9))
        with self.assertRaises(errors.RateLimitedError) as limited:
            self.client.get("prp_x")
        self.assertEqual(limited.exception.retry_after, 7.0)
        with self.assertRaises(errors.UnavailableError) as unavailable:
            self.client.get("prp_x")
        self.assertEqual(unavailable.exception.retry_after, 0.0, "a date in the past")
        with self.assertRaises(errors.RateLimitedError) as from_body:
            self.client.get("prp_x")
        self.assertEqual(from_body.exception.retry_after, 9.0, "without the header, the body's retryAfterSeconds")

    def test_an_answer_that_is_not_the_apis_json_is_a_malformed_response(self) -> None:
        self.fake.answer(502, raw=b"<html>Bad gateway</html>", headers={"Content-Type": "text/html"})
        self.fake.answer(400, {"message": "no error object"})
        self.fake.answer(200, {"unexpected": True})
        for expected_status in (502, 400, 200):
            with self.subTest(status=expected_status):
                with self.assertRaises(errors.MalformedResponseError) as raised:
                    self.client.get("prp_x")
                self.assertEqual(raised.exception.status, expected_status)

    def test_a_redirect_is_not_followed_so_the_key_stays_here(self) -> None:
        elsewhere = FakeCountersign()
        self.addCleanup(elsewhere.close)
        self.fake.answer(302, raw=b"", headers={"Location": f"{elsewhere.url}/api/v1/proposals/prp_x"})
        with self.assertRaises(errors.MalformedResponseError) as raised:
            self.client.get("prp_x")
        self.assertEqual(raised.exception.status, 302)
        self.assertIn("redirect", raised.exception.message)
        self.assertEqual(elsewhere.requests, [])

    def test_the_id_is_one_path_segment(self) -> None:
        self.fake.answer(404, error_json("not_found", "not_found"))
        with self.assertRaises(errors.NotFoundError):
            self.client.get("../admin?x=1")
        self.assertEqual(self.fake.requests[0].path, "/api/v1/proposals/..%2Fadmin%3Fx%3D1")

    def test_no_server_is_a_connection_failure_carrying_the_request_id(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = Client(f"http://127.0.0.1:{port}", KEY, timeout_s=5)
        with self.assertRaises(errors.ConnectionFailedError) as raised:
            client.propose("issue_refund", REFUND, request_id="req_net", contract_version=1)
        self.assertEqual((raised.exception.code, raised.exception.request_id, raised.exception.status), ("network_error", "req_net", None))
        self.assertNotIn(KEY, str(raised.exception))

    def test_an_answer_that_never_comes_times_out(self) -> None:
        never = threading.Event()
        self.addCleanup(never.set)
        self.fake.answer(200, proposal_json(), hold=never)
        client = Client(self.fake.url, KEY, timeout_s=0.2)
        with self.assertRaises(errors.ConnectionFailedError) as raised:
            client.get("prp_x")
        self.assertIn("timed out", str(raised.exception))

    def test_the_key_never_shows(self) -> None:
        self.assertNotIn(KEY, repr(self.client))
        self.fake.answer(401, error_json("authentication", "unauthenticated", "Send a valid agent key."))
        with self.assertRaises(errors.AuthenticationError) as raised:
            self.client.get("prp_x")
        self.assertNotIn(KEY, str(raised.exception) + repr(raised.exception))

    def test_settings_are_checked(self) -> None:
        for base_url, key in (("ftp://host", KEY), ("127.0.0.1:3000", KEY), ("http://host", ""), ("http://host", "a\r\nX-Evil: 1")):
            with self.subTest(base_url=base_url, key=key):
                with self.assertRaises(ValueError):
                    Client(base_url, key)


class WaitTest(FakeServerCase):
    def test_backs_off_honours_retry_after_and_returns_the_decision(self) -> None:
        self.fake.answer(200, proposal_json())
        self.fake.answer(200, proposal_json())
        self.fake.answer(429, error_json("rate_limit", "rate_limited"), headers={"Retry-After": "6"})
        self.fake.answer(503, error_json("unavailable", "systems_unavailable"), headers={"Retry-After": "1"})
        self.fake.answer(200, proposal_json())
        self.fake.answer(200, proposal_json("approved", decisions=[{"decision": "approve", "reason": None, "at": "2026-12-02T10:01:00.000Z"}]))
        seen: List[str] = []
        state = self.client.wait_for_decision("prp_fake1", deadline_s=600, initial_delay_s=0.5, max_delay_s=4, on_state=lambda s: seen.append(s.status))
        self.assertEqual(state.status, "approved")
        self.assertEqual(state.decisions[0].decision, "approve")
        self.assertEqual(seen, ["pending_approval", "pending_approval", "pending_approval", "approved"])
        # Steps 0.5, 1, 2, 4, 4 (rand 1.0 is the top of each step); the 429 asked for 6 s, the 503 for 1 s.
        self.assertEqual(self.time.pauses, [0.5, 1.0, 6.0, 4.0, 4.0])
        self.assertTrue(all(request.path == "/api/v1/proposals/prp_fake1" for request in self.fake.requests))

    def test_final_waits_past_approved_and_executing_and_outcome_unknown(self) -> None:
        for status in ("approved", "executing", "outcome_unknown", "succeeded"):
            self.fake.answer(200, proposal_json(status))
        state = self.client.wait_for_decision("prp_fake1", until="final")
        self.assertEqual(state.status, "succeeded")
        self.assertEqual(len(self.time.pauses), 3)

    def test_decided_includes_every_status_but_pending(self) -> None:
        self.fake.answer(200, proposal_json("expired"))
        self.assertEqual(self.client.wait_for_decision("prp_fake1").status, "expired")
        self.assertEqual(self.time.pauses, [])

    def test_a_connection_failure_is_retried(self) -> None:
        self.fake.answer(200, raw=b'{"id":', cut_short=True).answer(200, proposal_json("rejected"))
        # The first answer promises more than it sends and hangs up: the read fails, the wait goes on.
        state = self.client.wait_for_decision("prp_fake1")
        self.assertEqual(state.status, "rejected")

    def test_a_proxys_gateway_page_is_read_again(self) -> None:
        self.fake.answer(502, raw=b"<html>Bad gateway</html>", headers={"Content-Type": "text/html"})
        self.fake.answer(504, raw=b"<html>Gateway timeout</html>", headers={"Content-Type": "text/html", "Retry-After": "3"})
        self.fake.answer(200, proposal_json("approved"))
        self.assertEqual(self.client.wait_for_decision("prp_fake1").status, "approved")
        self.assertEqual(self.time.pauses, [0.5, 3.0])

    def test_another_page_that_is_not_the_apis_ends_the_wait(self) -> None:
        self.fake.answer(200, raw=b"<html>Sign in to the corporate proxy</html>", headers={"Content-Type": "text/html"})
        with self.assertRaises(errors.MalformedResponseError):
            self.client.wait_for_decision("prp_fake1")
        self.assertEqual(self.time.pauses, [])

    def test_the_deadline_ends_the_wait_with_the_last_state_and_never_spins(self) -> None:
        for _ in range(40):
            self.fake.answer(200, proposal_json())
        with self.assertRaises(errors.DeadlineExceededError) as raised:
            self.client.wait_for_decision("prp_fake1", deadline_s=30, initial_delay_s=1, max_delay_s=8)
        error = raised.exception
        self.assertEqual(error.code, "deadline_exceeded")
        self.assertIsNotNone(error.last)
        assert error.last is not None
        self.assertEqual(error.last.status, "pending_approval")
        self.assertEqual(self.time.pauses, [1.0, 2.0, 4.0, 8.0, 8.0, 7.0], "the last pause ends at the deadline")
        self.assertEqual(len(self.fake.requests), 7, "one read per pause, and one at the deadline")

    def test_a_retry_after_past_the_deadline_ends_the_wait_at_once(self) -> None:
        self.fake.answer(429, error_json("rate_limit", "rate_limited"), headers={"Retry-After": "60"})
        with self.assertRaises(errors.DeadlineExceededError) as raised:
            self.client.wait_for_decision("prp_fake1", deadline_s=10)
        self.assertEqual(self.time.pauses, [])
        self.assertIsNone(raised.exception.last)
        self.assertIsInstance(raised.exception.__cause__, errors.RateLimitedError)

    def test_an_error_waiting_cannot_fix_ends_the_wait_at_once(self) -> None:
        self.fake.answer(404, error_json("not_found", "not_found"))
        with self.assertRaises(errors.NotFoundError):
            self.client.wait_for_decision("prp_gone")
        self.assertEqual(len(self.fake.requests), 1)
        self.assertEqual(self.time.pauses, [])

    def test_bad_arguments_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.client.wait_for_decision("prp_x", until="approved")  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            self.client.wait_for_decision("prp_x", deadline_s=-1)
        with self.assertRaises(ValueError):
            self.client.wait_for_decision("prp_x", initial_delay_s=0)
        self.assertEqual(self.fake.requests, [])


if __name__ == "__main__":
    unittest.main()
