"""Verifying what Countersign sends a team's service (docs/actions.md): the signed command an
executor receives, and the request proof (``Countersign-Signature``) on every request to a
resolver or an executor. Keys come only from Countersign's JWKS; the algorithm is pinned to EdDSA."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from datetime import datetime
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from ._jose import SAFE_INTEGER, OKPKey, extract_header, payload_hash, read_json, verify_eddsa
from .jwks import JwksLike, as_jwks

COMMAND_TYP = "countersign-command+jwt"
REQUEST_TYP = "countersign-request+jwt"
SIGNATURE_HEADER = "Countersign-Signature"
#: Allowed clock difference between Countersign and the service, each way.
CLOCK_SKEW_SECONDS = 30
COMMAND_LIFETIME_SECONDS = 300
REQUEST_LIFETIME_SECONDS = 60

_COMPACT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
#: Headers that would let a token choose its own verification key.
_KEY_HEADERS = ("jku", "jwk", "x5u", "x5c", "x5t", "x5t#S256")

Now = Union[None, float, int, datetime]


class Rejected(Exception):
    """A token that does not verify. ``code`` is stable for programs; ``message`` is for people
    and never contains the token or its claims."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class CommandRejected(Rejected):
    """The command is refused: nothing may be done. Codes: ``malformed``, ``alg_not_allowed``,
    ``unknown_kid``, ``bad_signature``, ``wrong_type``, ``wrong_issuer``, ``wrong_audience``,
    ``expired``, ``not_yet_valid``, ``hash_mismatch``."""


class RequestRejected(Rejected):
    """The request proof is refused (answer 401). Codes: ``missing_signature``, ``bad_signature``,
    ``unknown_kid``, ``alg_not_allowed``, ``wrong_type``, ``wrong_issuer``, ``wrong_audience``,
    ``wrong_method``, ``body_mismatch``, ``expired``, ``replayed_jti``."""


def _seconds(now: Now) -> int:
    if now is None:
        return int(time.time())
    if isinstance(now, datetime):
        return int(now.timestamp())
    return int(now)


def _verified_payload(token: str, jwks: JwksLike, typ: str, error: Callable[[str, str], Rejected]) -> Dict[str, Any]:
    """Compact form, header (alg EdDSA, no key-carrying header, kid of the set), the signature,
    typ, and JSON claims, in that order."""
    if not isinstance(token, str) or not _COMPACT.fullmatch(token):
        raise error("malformed", "The token is not a compact JWS (three base64url parts).")
    try:
        header = extract_header(token)
    except ValueError:
        raise error("malformed", "The JWS protected header is not valid base64url JSON.") from None
    if header.get("alg") != "EdDSA":
        raise error("alg_not_allowed", "Only EdDSA-signed tokens are accepted.")
    if any(name in header for name in _KEY_HEADERS):
        raise error("unknown_kid", "The token may not name or carry its own key (jku, jwk, x5u, x5c).")
    kid = header.get("kid")
    key: Optional[OKPKey] = as_jwks(jwks).get(kid) if isinstance(kid, str) else None
    if key is None:
        raise error("unknown_kid", "The token names no key of Countersign's key set.")
    try:
        payload = verify_eddsa(token, header, key)
    except ValueError:
        raise error("bad_signature", "The signature does not verify.") from None
    if header.get("typ") != typ:
        raise error("wrong_type", f"The token type must be {typ}.")
    try:
        claims = read_json(payload)
    except ValueError:
        raise error("malformed", "The claims are not JSON.") from None
    if not isinstance(claims, dict):
        raise error("malformed", "The claims are not a JSON object.")
    return claims


def _is_int(value: Any) -> bool:
    """Number.isSafeInteger: 2 and 2.0 alike (JSON does not tell them apart)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return float(value).is_integer() and abs(value) <= SAFE_INTEGER


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


_COMMAND_CLAIMS: Dict[str, Callable[[Any], bool]] = {
    "iss": _is_text,
    "aud": _is_text,
    "sub": _is_text,
    "jti": _is_text,
    "iat": _is_int,
    "nbf": _is_int,
    "exp": _is_int,
    "tenant": _is_text,
    "action": _is_text,
    "contractVersion": _is_int,
    "args": lambda v: isinstance(v, dict),
    "evidenceRefs": lambda v: isinstance(v, list) and all(isinstance(ref, str) for ref in v),
    "payloadHash": _is_text,
    "idempotencyKey": _is_text,
}


def verify_command(
    jws: str,
    jwks: JwksLike,
    scope: str,
    issuer: Optional[str] = None,
    now: Now = None,
) -> Dict[str, Any]:
    """Verifies a command as docs/design.md §7 and lib/commands/verify.ts do, and answers its
    claims; raises :class:`CommandRejected` with the first check that failed.

    ``jwks`` is ``{"keys": [...]}``, the URL of Countersign's ``/.well-known/jwks.json`` or a
    :class:`~countersign.jwks.Jwks`. ``scope`` is this executor's scope (the audience must be
    ``executor:<scope>``). ``issuer`` is Countersign's issuer (its ``APP_URL``); ``None`` skips
    that check, so pass it. ``now`` (epoch seconds or a datetime) defaults to the clock. A key set
    that cannot be fetched raises ``OSError`` or ``ValueError``, not a rejection: nothing was judged.
    """
    claims = _verified_payload(jws, jwks, COMMAND_TYP, CommandRejected)
    for name, valid in _COMMAND_CLAIMS.items():
        if not valid(claims.get(name)):
            raise CommandRejected("malformed", f"The claim {name} is missing or of the wrong type.")
    if issuer is not None and claims["iss"] != issuer:
        raise CommandRejected("wrong_issuer", "The command was issued by someone else.")
    if claims["aud"] != f"executor:{scope}":
        raise CommandRejected("wrong_audience", f"The command is not addressed to executor:{scope}.")
    seconds = _seconds(now)
    lifetime = max(claims["exp"] - claims["nbf"], claims["exp"] - claims["iat"])
    if lifetime > COMMAND_LIFETIME_SECONDS:
        raise CommandRejected("expired", "The command claims a lifetime longer than allowed.")
    if seconds > claims["exp"] + CLOCK_SKEW_SECONDS:
        raise CommandRejected("expired", "The command has expired.")
    if seconds + CLOCK_SKEW_SECONDS < max(claims["nbf"], claims["iat"]):
        raise CommandRejected("not_yet_valid", "The command is not valid yet.")
    try:
        recomputed = payload_hash(
            {
                "action": claims["action"],
                "contractVersion": claims["contractVersion"],
                "tenantId": claims["tenant"],
                "args": claims["args"],
                "evidenceRefs": claims["evidenceRefs"],
            }
        )
    except ValueError:  # rfc8785's errors (a number JCS cannot represent) are ValueErrors
        raise CommandRejected("malformed", "The command payload cannot be canonicalized.") from None
    if recomputed != claims["payloadHash"]:
        raise CommandRejected("hash_mismatch", "The command payload does not hash to its payloadHash.")
    return claims


class SeenJti:
    """The request proofs' ids already accepted, each kept until its ``exp`` plus the skew (after
    that the proof is refused as expired anyway). In memory: one process's replays only."""

    def __init__(self) -> None:
        self._until: Dict[str, int] = {}
        self._lock = threading.Lock()

    def first_use(self, jti: str, exp: int, now: int) -> bool:
        with self._lock:
            for old in [seen for seen, until in self._until.items() if until < now]:
                del self._until[old]
            if jti in self._until:
                return False
            self._until[jti] = exp + CLOCK_SKEW_SECONDS
            return True


_SEEN = SeenJti()


def _header(headers: Any, name: str) -> Optional[str]:
    if headers is None:
        return None
    lower = name.lower()
    for key, value in (headers.items() if hasattr(headers, "items") else headers):
        if key.lower() == lower:
            return value
    return None


def body_sha256(body: bytes) -> str:
    """base64url (no padding) of SHA-256 of the exact body bytes, as the ``bodySha256`` claim."""
    return base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode("ascii")


_REQUEST_CLAIMS: Tuple[Tuple[str, Callable[[Any], bool]], ...] = (
    ("iss", _is_text),
    ("aud", _is_text),
    ("htm", _is_text),
    ("bodySha256", _is_text),
    ("iat", _is_int),
    ("exp", _is_int),
    ("jti", _is_text),
)


def verify_request(
    method: str,
    url: str,
    body_bytes: bytes,
    headers: Union[Mapping[str, str], Any],
    jwks: JwksLike,
    issuer: str,
    expected_url: Optional[str] = None,
    *,
    now: Now = None,
    seen: Optional[SeenJti] = None,
) -> Dict[str, Any]:
    """Verifies the ``Countersign-Signature`` request proof and answers its claims; raises
    :class:`RequestRejected` (answer 401 with its code).

    ``expected_url`` is the URL this request must be addressed to, as the action's definition
    names it (for reconciliation, the executor URL + ``/`` + the command id); without it, ``url``
    is used. Take it from your configuration, not from the request's Host header. ``headers`` is
    any mapping or list of pairs (names compared without case). Each proof's ``jti`` is accepted
    once (``seen``, by default one set for the process).
    """
    token = _header(headers, SIGNATURE_HEADER)
    if not token:
        raise RequestRejected("missing_signature", f"The request has no {SIGNATURE_HEADER} header.")

    def error(code: str, message: str) -> RequestRejected:
        # The request codes have no "malformed": an unreadable proof is a signature that does not verify.
        return RequestRejected("bad_signature" if code == "malformed" else code, message)

    claims = _verified_payload(token.strip(), jwks, REQUEST_TYP, error)
    for name, valid in _REQUEST_CLAIMS:
        if not valid(claims.get(name)):
            raise RequestRejected("bad_signature", f"The claim {name} is missing or of the wrong type.")
    if claims["iss"] != issuer:
        raise RequestRejected("wrong_issuer", "The request was signed for another issuer.")
    if claims["aud"] != (expected_url if expected_url is not None else url):
        raise RequestRejected("wrong_audience", "The request was signed for another URL.")
    if claims["htm"] != method.upper():
        raise RequestRejected("wrong_method", "The request was signed for another method.")
    if claims["bodySha256"] != body_sha256(body_bytes or b""):
        raise RequestRejected("body_mismatch", "The body is not the one signed.")
    seconds = _seconds(now)
    too_long = claims["exp"] - claims["iat"] > REQUEST_LIFETIME_SECONDS
    if too_long or seconds > claims["exp"] + CLOCK_SKEW_SECONDS or seconds < claims["iat"] - CLOCK_SKEW_SECONDS:
        raise RequestRejected("expired", "The request proof is outside its time window.")
    if not 1 <= len(claims["jti"]) <= 128:
        raise RequestRejected("bad_signature", "The request proof id is empty or too long.")
    if not (seen or _SEEN).first_use(claims["jti"], claims["exp"], seconds):
        raise RequestRejected("replayed_jti", "This request proof was already used.")
    return claims
