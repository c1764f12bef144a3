"""The JOSE libraries the executor helpers use, imported in one place so the base client keeps
working without them (``pip install 'countersign[executor]'`` brings them). JCS is the vendored
rfc8785 (``_vendor/``), so it needs no install."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Dict, Mapping, Union

from ._vendor import rfc8785

try:
    from cryptography.exceptions import InvalidSignature
    from joserfc.jwk import OKPKey
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "countersign's executor helpers need joserfc and cryptography: "
        "pip install 'countersign[executor]'"
    ) from error

__all__ = ["SAFE_INTEGER", "OKPKey", "canonical_json", "extract_header", "import_public_key", "payload_hash", "read_json", "verify_eddsa"]

SAFE_INTEGER = 2**53 - 1


def canonical_json(value: Any) -> bytes:
    """RFC 8785 (JCS) bytes of a JSON value, as lib/payload-hash.ts computes them."""
    return rfc8785.dumps(value)


def payload_hash(value: Any) -> str:
    """docs/design.md §5: ``"sha256:"`` + hex SHA-256 of the JCS text."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def _js_int(text: str) -> Union[int, float]:
    number = int(text)
    return number if abs(number) <= SAFE_INTEGER else float(number)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_json(data: bytes) -> Any:
    """JSON read as JavaScript reads it (lib/agent-client/signed.ts), so that both helpers judge a
    token alike: strict UTF-8; every number a double, so an integer past 2^53 is a float (and
    hashes as the server hashed it); NaN and Infinity are not JSON. Raises ValueError."""
    return json.loads(data.decode("utf-8"), parse_int=_js_int, parse_constant=_no_constant)


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def extract_header(token: str) -> Dict[str, Any]:
    """The protected header of a compact JWS, unverified. Raises ValueError (binascii.Error and
    UnicodeDecodeError are ValueErrors)."""
    header = read_json(_b64url(token.split(".")[0]))
    if not isinstance(header, dict):
        raise ValueError("the protected header is not an object")
    return header


def import_public_key(jwk: Mapping[str, Any]) -> OKPKey:
    return OKPKey.import_key({"kty": "OKP", "crv": "Ed25519", "x": jwk["x"]})


def verify_eddsa(token: str, header: Mapping[str, Any], key: OKPKey) -> bytes:
    """The payload of a compact JWS whose Ed25519 signature ``key`` verifies; raises ValueError.
    Done with cryptography directly rather than joserfc's deserializer, which also judges the
    header's fields (a non-string ``typ`` would fail as a signature): the TypeScript verifier
    (lib/agent-client/signed.ts) judges those separately, and the codes must be the same."""
    if "crit" in header:
        # Countersign never sets crit; jose refuses every extension it does not know.
        raise ValueError("crit is not supported")
    protected, payload, signature = token.split(".")
    try:
        key.public_key.verify(_b64url(signature), f"{protected}.{payload}".encode("ascii"))
    except InvalidSignature:
        raise ValueError("the signature does not verify") from None
    return _b64url(payload)
