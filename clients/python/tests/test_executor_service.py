"""ActionService over real HTTP (wsgiref on 127.0.0.1, port 0): the executor runs a command once
and answers replays with the same receipt, refuses bad proofs (401) and bad commands or business
refusals (422), answers reconciliation, and the resolver answers facts or 404."""

from __future__ import annotations

import asyncio
import json
import threading
import unittest
import urllib.error
import urllib.request
from socketserver import ThreadingMixIn
from typing import Any, Dict, List, Optional, Tuple
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from countersign import ActionService, Refusal
from executor_fixtures import NOW, command, sign_proof, signed



class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class ServiceOverHttpTest(unittest.TestCase):
    def setUp(self) -> None:
        self.effects: List[Dict[str, Any]] = []
        self.refuse: Optional[Refusal] = None
        holder: Dict[str, ActionService] = {}
        self.server = make_server("127.0.0.1", 0, lambda env, start: holder["service"].wsgi(env, start),
                                  server_class=_ThreadingServer, handler_class=_Quiet)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.executor_url = f"{self.base}/actions/refund/execute"
        self.resolver_url = f"{self.base}/actions/refund/resolve"
        self.evidence_url = f"{self.base}/evidence"
        fixture = signed()
        self.service = holder["service"] = ActionService(
            jwks=fixture["jwks"],
            issuer=fixture["issuer"],
            scope="payments",
            executor_url=self.executor_url,
            execute=self.execute,
            resolver_url=self.resolver_url,
            resolve=self.resolve,
            evidence_url=self.evidence_url,
            find_evidence=self.find_evidence,
            clock=lambda: NOW,
        )
        thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def execute(self, claims: Dict[str, Any]) -> Dict[str, Any]:
        if self.refuse:
            raise self.refuse
        self.effects.append(claims)
        return {"id": f"re_{len(self.effects)}", "orderId": claims["args"]["orderId"], "amountMinor": claims["args"]["amountMinor"]}

    def resolve(self, request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if request["tenant"] != "acme" or request["args"].get("orderId") != "ord_1842":
            return None
        return {"resourceKey": "order:ord_1842", "facts": {"refundableMinor": 5000, "currency": "EUR"}, "detail": "Order ord_1842"}

    def find_evidence(self, request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if request != {"tenant": "acme", "ref": "tkt_1"}:
            return None
        return {"id": "tkt_1", "kind": "ticket", "text": "Please refund."}

    def send(self, method: str, url: str, body: bytes = b"", proof: Optional[str] = "sign", content_type: str = "application/jose") -> Tuple[int, Any]:
        headers = {"Content-Type": content_type}
        if proof == "sign":
            proof = sign_proof(url, method, body)
        if proof is not None:
            headers["Countersign-Signature"] = proof
        request = urllib.request.Request(url, data=body if method == "POST" else None, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def deliver(self, name: str = "valid payments command") -> Tuple[int, Any]:
        return self.send("POST", self.executor_url, command(name)["jws"].encode())

    def test_executes_once_and_answers_replays_with_the_same_receipt(self) -> None:
        first = self.deliver()
        again = self.deliver()
        self.assertEqual(first, (200, {"receipt": {"id": "re_1", "orderId": "ord_1842", "amountMinor": 1200}}))
        self.assertEqual(again, first)
        self.assertEqual(len(self.effects), 1)
        self.assertEqual(self.effects[0]["idempotencyKey"], "cs.prp_python_fixture")

    def test_a_re_minted_command_with_the_same_idempotency_key_is_a_replay(self) -> None:
        first = self.deliver()
        remint = self.deliver("expired within the skew")  # another jti, same proposal and idempotency key
        self.assertEqual(remint, first)
        self.assertEqual(len(self.effects), 1)
        remint_id = json.loads(_claims_of(command("expired within the skew")["jws"]))["jti"]
        self.assertEqual(self.send("GET", f"{self.executor_url}/{remint_id}"), first)

    def test_concurrent_deliveries_make_one_effect(self) -> None:
        jws = command("valid payments command")["jws"].encode()
        barrier = threading.Barrier(6)
        answers: List[Tuple[int, List[Tuple[str, str]], bytes]] = []

        def deliver() -> None:
            proof = sign_proof(self.executor_url, "POST", jws)
            barrier.wait()
            answers.append(self.service.handle("POST", "/actions/refund/execute", {"Countersign-Signature": proof}, jws))

        threads = [threading.Thread(target=deliver) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(self.effects), 1)
        self.assertEqual({(status, body) for status, _, body in answers}, {(answers[0][0], answers[0][2])})
        self.assertEqual(answers[0][0], 200)

    def test_request_proof_refusals_are_401_and_do_nothing(self) -> None:
        jws = command("valid payments command")["jws"].encode()
        cases = [
            ("no proof", None, "missing_signature"),
            ("a proof for the resolver", sign_proof(self.resolver_url, "POST", jws), "wrong_audience"),
            ("a proof for another body", sign_proof(self.executor_url, "POST", b"other"), "body_mismatch"),
            ("the command itself as the proof", jws.decode(), "wrong_type"),
        ]
        for name, proof, code in cases:
            with self.subTest(name):
                status, body = self.send("POST", self.executor_url, jws, proof=proof)
                self.assertEqual((status, body["error"]["code"]), (401, code))
        reused = sign_proof(self.executor_url, "POST", jws)
        self.assertEqual(self.send("POST", self.executor_url, jws, proof=reused)[0], 200)
        status, body = self.send("POST", self.executor_url, jws, proof=reused)
        self.assertEqual((status, body["error"]["code"]), (401, "replayed_jti"))
        self.assertEqual(len(self.effects), 1)

    def test_command_refusals_are_422_and_do_nothing(self) -> None:
        for name, code in (
            ("another executor", "wrong_audience"),
            ("arguments changed after hashing", "hash_mismatch"),
            ("a jku header", "unknown_kid"),
            ("expired beyond the skew", "expired"),
        ):
            with self.subTest(name):
                status, body = self.deliver(name)
                self.assertEqual((status, body["error"]["code"]), (422, code))
        status, body = self.send("POST", self.executor_url, "not ascii é".encode())
        self.assertEqual((status, body["error"]["code"]), (422, "malformed"))
        self.assertEqual(self.effects, [])

    def test_a_business_refusal_is_422_and_is_not_remembered(self) -> None:
        self.refuse = Refusal("insufficient_balance", "The order has 0.00 EUR left to refund.")
        status, body = self.deliver()
        self.assertEqual((status, body["error"]), (422, {"code": "insufficient_balance", "message": "The order has 0.00 EUR left to refund."}))
        self.assertEqual(self.send("GET", f"{self.executor_url}/{command('valid payments command')['claims']['jti']}")[0], 404)
        self.refuse = None
        self.assertEqual(self.deliver()[0], 200)

    def test_reconciliation_answers_the_receipt_or_404(self) -> None:
        jti = command("valid payments command")["claims"]["jti"]
        self.assertEqual(self.send("GET", f"{self.executor_url}/{jti}"), (404, {"error": {"code": "not_found", "message": "No command with this id was executed."}}))
        first = self.deliver()
        self.assertEqual(self.send("GET", f"{self.executor_url}/{jti}"), first)
        status, body = self.send("GET", f"{self.executor_url}/{jti}", proof=sign_proof(self.executor_url, "GET"))
        self.assertEqual((status, body["error"]["code"]), (401, "wrong_audience"))

    def test_the_resolver_answers_facts_or_404(self) -> None:
        asked = json.dumps({"tenant": "acme", "action": "issue_refund", "contractVersion": 2, "args": {"orderId": "ord_1842"}}).encode()
        status, body = self.send("POST", self.resolver_url, asked, content_type="application/json")
        self.assertEqual((status, body), (200, {"tenant": "acme", "resourceKey": "order:ord_1842",
                                                "facts": {"refundableMinor": 5000, "currency": "EUR"}, "detail": "Order ord_1842"}))
        foreign = json.dumps({"tenant": "globex", "action": "issue_refund", "contractVersion": 2, "args": {"orderId": "ord_1842"}}).encode()
        self.assertEqual(self.send("POST", self.resolver_url, foreign, content_type="application/json")[0], 404)
        status, body = self.send("POST", self.resolver_url, asked, proof=None, content_type="application/json")
        self.assertEqual((status, body["error"]["code"]), (401, "missing_signature"))

    def test_the_evidence_resolver_answers_the_record_or_404(self) -> None:
        asked = json.dumps({"tenant": "acme", "ref": "tkt_1"}).encode()
        status, body = self.send("POST", self.evidence_url, asked, content_type="application/json")
        self.assertEqual((status, body), (200, {"tenant": "acme", "id": "tkt_1", "kind": "ticket", "text": "Please refund."}))
        foreign = json.dumps({"tenant": "globex", "ref": "tkt_1"}).encode()
        self.assertEqual(self.send("POST", self.evidence_url, foreign, content_type="application/json")[0], 404)
        status, body = self.send("POST", self.evidence_url, b'{"tenant": "acme"}', content_type="application/json")
        self.assertEqual((status, body["error"]["code"]), (400, "malformed_request"))
        status, body = self.send("POST", self.evidence_url, asked, proof=sign_proof(self.resolver_url, "POST", asked),
                                 content_type="application/json")
        self.assertEqual((status, body["error"]["code"]), (401, "wrong_audience"))
        self.assertEqual(self.send("GET", self.evidence_url)[0], 405)

    def test_other_routes_and_methods(self) -> None:
        self.assertEqual(self.send("GET", f"{self.base}/elsewhere")[0], 404)
        self.assertEqual(self.send("GET", self.executor_url)[0], 405)
        self.assertEqual(self.send("GET", self.resolver_url)[0], 405)


class AsgiTest(unittest.TestCase):
    """ActionService.asgi as FastAPI's or Starlette's ``app.mount("/actions", service.asgi)`` calls it."""

    URL = "https://payments.test/actions/refund/execute"

    def call(self, path: str, root_path: str, body: bytes, proof: str) -> Tuple[int, Any]:
        fixture = signed()
        effects: List[str] = []

        def execute(claims: Dict[str, Any]) -> Dict[str, Any]:
            effects.append(claims["jti"])
            return {"id": "re_1"}

        service = ActionService(jwks=fixture["jwks"], issuer=fixture["issuer"], scope="payments",
                                executor_url=self.URL, execute=execute, clock=lambda: NOW)
        incoming = [{"type": "http.request", "body": body[:10], "more_body": True},
                    {"type": "http.request", "body": body[10:], "more_body": False}]
        sent: List[Dict[str, Any]] = []

        async def receive() -> Dict[str, Any]:
            return incoming.pop(0)

        async def send(message: Dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": path, "root_path": root_path,
                 "headers": [(b"content-type", b"application/jose"), (b"countersign-signature", proof.encode())]}
        asyncio.run(service.asgi(scope, receive, send))
        start, answer = sent
        self.assertIn((b"content-type", b"application/json"), start["headers"])
        return start["status"], json.loads(answer["body"])

    def test_a_mounted_app_sees_its_full_path_either_way(self) -> None:
        jws = command("valid payments command")["jws"].encode()
        for path, root_path in (("/actions/refund/execute", "/actions"), ("/refund/execute", "/actions")):
            with self.subTest(path=path):
                status, body = self.call(path, root_path, jws, sign_proof(self.URL, "POST", jws))
                self.assertEqual((status, body), (200, {"receipt": {"id": "re_1"}}))

    def test_a_refusal_comes_back_through_asgi(self) -> None:
        jws = command("another executor")["jws"].encode()
        status, body = self.call("/actions/refund/execute", "", jws, sign_proof(self.URL, "POST", jws))
        self.assertEqual((status, body["error"]["code"]), (422, "wrong_audience"))


def _claims_of(jws: str) -> str:
    import base64

    payload = jws.split(".")[1]
    return base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()


if __name__ == "__main__":
    unittest.main()
