"""examples/refund_executor.py (Flask) over real HTTP, with Countersign's JWKS fetched from a URL:
a command signed by lib/commands runs once, its replay answers the same receipt, the resolver
answers the order's facts."""

from __future__ import annotations

import importlib.util
import json
import threading
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Tuple
from wsgiref.simple_server import WSGIRequestHandler, make_server

from executor_fixtures import command, sign_proof, signed

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "refund_executor.py"


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("refund_executor", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Jwks(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = json.dumps(signed()["jwks"]).encode()
        self.send_response(200 if self.path == "/.well-known/jwks.json" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _serve(server: Any, case: unittest.TestCase) -> None:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    case.addCleanup(thread.join)
    case.addCleanup(server.server_close)
    case.addCleanup(server.shutdown)


class RefundExecutorExampleTest(unittest.TestCase):
    def setUp(self) -> None:
        keys = ThreadingHTTPServer(("127.0.0.1", 0), _Jwks)
        _serve(keys, self)
        self.example = _load_example()
        holder = {}
        server = make_server("127.0.0.1", 0, lambda env, start: holder["app"](env, start), handler_class=_Quiet)
        self.base = f"http://127.0.0.1:{server.server_address[1]}"
        app = self.example.create_app(signed()["issuer"], self.base, jwks=f"http://127.0.0.1:{keys.server_address[1]}/.well-known/jwks.json")
        holder["app"] = app.wsgi_app
        _serve(server, self)

    def post(self, path: str, body: bytes) -> Tuple[int, Any]:
        url = self.base + path
        request = urllib.request.Request(url, data=body, method="POST", headers={"Countersign-Signature": sign_proof(url, "POST", body)})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def test_executes_a_signed_command_once(self) -> None:
        jws = command("valid payments command")["jws"].encode()
        first = self.post("/actions/refund/execute", jws)
        self.assertEqual(first[0], 200)
        self.assertEqual(first[1]["receipt"]["amountMinor"], 1200)
        self.assertEqual(self.post("/actions/refund/execute", jws), first)
        self.assertEqual(self.example.ORDERS["ord_1842"]["refundableMinor"], 3800)

    def test_resolves_the_order_for_its_tenant_only(self) -> None:
        asked = {"tenant": "acme", "action": "issue_refund", "contractVersion": 2, "args": {"orderId": "ord_1842"}}
        status, body = self.post("/actions/refund/resolve", json.dumps(asked).encode())
        self.assertEqual((status, body["facts"]), (200, {"refundableMinor": 5000, "currency": "EUR"}))
        status, _ = self.post("/actions/refund/resolve", json.dumps({**asked, "tenant": "globex"}).encode())
        self.assertEqual(status, 404)


if __name__ == "__main__":
    unittest.main()
