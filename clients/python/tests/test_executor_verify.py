"""verify_command against commands signed by Countersign's own code (sign_commands.ts), every
refusal code; verify_request against request proofs; the payload hash is RFC 8785."""

from __future__ import annotations

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc.jwk import OKPKey

from countersign import CommandRejected, Jwks, RequestRejected, SeenJti, verify_command, verify_request
from countersign._vendor import rfc8785
from executor_fixtures import NOW, REPO, command, sign_proof, signed

URL = "https://svc.test/actions/refund/execute"


class VerifyCommandTest(unittest.TestCase):
    def test_each_command_verifies_or_is_refused_with_its_code(self) -> None:
        fixture = signed()
        codes = {entry["code"] for entry in fixture["commands"]}
        # Every code of the contract is exercised by at least one command.
        self.assertEqual(
            codes - {None},
            {"malformed", "alg_not_allowed", "unknown_kid", "bad_signature", "wrong_type", "wrong_issuer",
             "wrong_audience", "expired", "not_yet_valid", "hash_mismatch"},
        )
        for entry in fixture["commands"]:
            with self.subTest(entry["name"]):
                if entry["code"] is None:
                    claims = verify_command(entry["jws"], fixture["jwks"], entry["scope"], fixture["issuer"], NOW)
                    self.assertEqual(claims["aud"], f"executor:{entry['scope']}")
                    continue
                with self.assertRaises(CommandRejected) as raised:
                    verify_command(entry["jws"], fixture["jwks"], entry["scope"], fixture["issuer"], NOW)
                self.assertEqual(raised.exception.code, entry["code"])
                self.assertNotIn(entry["jws"], str(raised.exception))

    def test_answers_the_claims_as_signed(self) -> None:
        fixture = signed()
        valid = command("valid payments command")
        claims = verify_command(valid["jws"], fixture["jwks"], "payments", fixture["issuer"], NOW)
        self.assertEqual(claims, valid["claims"])
        self.assertEqual(claims["idempotencyKey"], "cs.prp_python_fixture")

    def test_time_is_judged_against_now(self) -> None:
        fixture = signed()
        valid = command("valid payments command")
        exp = valid["claims"]["exp"]
        for now, code in ((exp + 30, None), (exp + 31, "expired")):
            with self.subTest(now=now):
                if code is None:
                    verify_command(valid["jws"], fixture["jwks"], "payments", fixture["issuer"], now)
                    continue
                with self.assertRaises(CommandRejected) as raised:
                    verify_command(valid["jws"], fixture["jwks"], "payments", fixture["issuer"], now)
                self.assertEqual(raised.exception.code, code)

    def test_an_issuer_of_none_skips_only_that_check(self) -> None:
        fixture = signed()
        other = command("another issuer")
        self.assertEqual(verify_command(other["jws"], fixture["jwks"], "payments", None, NOW)["iss"], "https://elsewhere.test")

    def test_a_trailing_newline_is_not_compact(self) -> None:
        fixture = signed()
        with self.assertRaises(CommandRejected) as raised:
            verify_command(command("valid payments command")["jws"] + "\n", fixture["jwks"], "payments", fixture["issuer"], NOW)
        self.assertEqual(raised.exception.code, "malformed")

    def test_a_jwks_with_a_private_key_is_refused(self) -> None:
        fixture = signed()
        with self.assertRaises(ValueError):
            Jwks({"keys": [fixture["signingJwk"]]})


class CanonicalJsonTest(unittest.TestCase):
    def test_the_vendored_rfc8785_matches_the_reference_vectors(self) -> None:
        folder = REPO / "test" / "vectors" / "rfc8785"
        names = sorted(path.name for path in (folder / "input").iterdir())
        self.assertGreaterEqual(len(names), 6)
        for name in names:
            with self.subTest(name):
                value = json.loads((folder / "input" / name).read_text(encoding="utf-8"))
                self.assertEqual(rfc8785.dumps(value), (folder / "output" / name).read_bytes())


class VerifyRequestTest(unittest.TestCase):
    def verify(self, token, method="POST", body=b"{}", url=URL, seen=None, now=NOW):  # type: ignore[no-untyped-def]
        fixture = signed()
        headers = {} if token is None else {"countersign-signature": token}
        return verify_request(method, url, body, headers, fixture["jwks"], fixture["issuer"], url, now=now,
                              seen=seen or SeenJti())

    def test_proofs_made_by_the_servers_signer_verify(self) -> None:
        for proof in signed()["proofs"]:
            with self.subTest(proof["method"]):
                claims = self.verify(proof["signature"], method=proof["method"], body=proof["body"].encode(),
                                     url=proof["url"])
                self.assertEqual((claims["aud"], claims["htm"]), (proof["url"], proof["method"]))
                self.assertEqual(claims["exp"] - claims["iat"], 60)

    def test_a_valid_proof_answers_its_claims(self) -> None:
        claims = self.verify(sign_proof(URL, body=b"{}"))
        self.assertEqual((claims["aud"], claims["htm"]), (URL, "POST"))

    def test_a_get_proof_hashes_the_empty_body(self) -> None:
        url = URL + "/cmd_123"
        self.assertEqual(self.verify(sign_proof(url, "GET"), method="GET", body=b"", url=url)["htm"], "GET")

    def test_each_refusal_has_its_code(self) -> None:
        fixture = signed()
        kid = fixture["signingJwk"]["kid"]
        stranger = OKPKey.generate_key("Ed25519", parameters={"kid": "key-stranger"})
        cases = [
            ("no header", None, {}, "missing_signature"),
            ("not a JWS", "nonsense", {}, "bad_signature"),
            ("alg HS256", sign_proof(URL, body=b"{}", header={"alg": "HS256", "kid": kid, "typ": "countersign-request+jwt"},
                                     key=_secret()), {}, "alg_not_allowed"),
            ("a jku header", sign_proof(URL, body=b"{}", header={"alg": "EdDSA", "kid": kid, "typ": "countersign-request+jwt",
                                                                 "jku": "https://attacker.test/jwks"}), {}, "unknown_kid"),
            ("an unknown kid", sign_proof(URL, body=b"{}", header={"alg": "EdDSA", "kid": "key-stranger",
                                                                   "typ": "countersign-request+jwt"}, key=stranger),
             {}, "unknown_kid"),
            ("signed by another key under our kid", sign_proof(URL, body=b"{}", key=stranger), {}, "bad_signature"),
            ("a command as a proof", command("valid payments command")["jws"], {}, "wrong_type"),
            ("another issuer", sign_proof(URL, body=b"{}", iss="https://elsewhere.test"), {}, "wrong_issuer"),
            ("another URL", sign_proof(URL + "/other", body=b"{}"), {}, "wrong_audience"),
            ("signed for GET, sent as POST", sign_proof(URL, "GET", body=b"{}"), {}, "wrong_method"),
            ("another body", sign_proof(URL, body=b'{"amountMinor":1}'), {}, "body_mismatch"),
            ("expired beyond the skew", sign_proof(URL, body=b"{}"), {"now": NOW + 91}, "expired"),
            ("issued in the future beyond the skew", sign_proof(URL, body=b"{}"), {"now": NOW - 31}, "expired"),
            ("a lifetime longer than a minute", sign_proof(URL, body=b"{}", exp=NOW + 600), {}, "expired"),
            ("a claim missing", sign_proof(URL, body=b"{}", jti=None), {}, "bad_signature"),
        ]
        for name, token, options, code in cases:
            with self.subTest(name):
                with self.assertRaises(RequestRejected) as raised:
                    self.verify(token, **options)
                self.assertEqual(raised.exception.code, code)

    def test_the_skew_edges_pass(self) -> None:
        for now in (NOW - 30, NOW + 90):
            with self.subTest(now=now):
                self.verify(sign_proof(URL, body=b"{}"), now=now)

    def test_a_proof_is_accepted_once(self) -> None:
        seen = SeenJti()
        token = sign_proof(URL, body=b"{}")
        self.verify(token, seen=seen)
        with self.assertRaises(RequestRejected) as raised:
            self.verify(token, seen=seen)
        self.assertEqual(raised.exception.code, "replayed_jti")

    def test_a_refused_proof_does_not_use_up_its_jti(self) -> None:
        seen = SeenJti()
        token = sign_proof(URL, body=b"{}")
        with self.assertRaises(RequestRejected):
            self.verify(token, seen=seen, body=b"other")
        self.verify(token, seen=seen)

    def test_seen_ids_are_forgotten_after_their_window(self) -> None:
        seen = SeenJti()
        self.assertTrue(seen.first_use("a", NOW + 60, NOW))
        self.assertFalse(seen.first_use("a", NOW + 60, NOW + 90))
        self.assertTrue(seen.first_use("a", NOW + 200, NOW + 91))


class JwksUrlTest(unittest.TestCase):
    """A key set from a URL (a real HTTP server on 127.0.0.1): kept, and fetched again for a rotation."""

    def setUp(self) -> None:
        fixture = signed()
        self.first, self.second = fixture["jwks"]["keys"]
        self.published = {"keys": [self.first]}
        self.fetches = 0
        case = self

        class Keys(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                case.fetches += 1
                body = json.dumps(case.published).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Keys)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.url = f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
        self.now = 0.0

    def test_fetches_once_then_again_for_an_unknown_kid_at_most_every_30_seconds(self) -> None:
        keys = Jwks(self.url, clock=lambda: self.now)
        self.assertIsNotNone(keys.get(self.first["kid"]))
        self.published = {"keys": [self.second, self.first]}  # rotated
        steps = [
            (10.0, self.first["kid"], True, 1),
            (20.0, self.second["kid"], False, 1),  # too soon after the last fetch
            (31.0, self.second["kid"], True, 2),
            (40.0, "key-nobody", False, 2),
            (331.0, self.first["kid"], True, 3),  # older than five minutes
        ]
        for now, kid, found, fetches in steps:
            with self.subTest(now=now, kid=kid):
                self.now = now
                self.assertEqual(keys.get(kid) is not None, found)
                self.assertEqual(self.fetches, fetches)

    def test_a_command_verifies_against_the_url(self) -> None:
        fixture = signed()
        valid = command("valid payments command")
        self.assertEqual(verify_command(valid["jws"], self.url, "payments", fixture["issuer"], NOW)["jti"], valid["claims"]["jti"])


def _secret():  # type: ignore[no-untyped-def]
    from joserfc.jwk import OctKey

    return OctKey.import_key(b"a shared secret of thirty-two bytes!")


if __name__ == "__main__":
    unittest.main()
