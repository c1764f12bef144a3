"""The JOSE and JCS libraries the executor helpers use, imported in one place so the base client
keeps working without them (``pip install 'countersign[executor]'`` brings them)."""

from __future__ import annotations

import hashlib
import warnings
from typing import Any, Dict, Mapping

try:
    import rfc8785
    from joserfc import jws
    from joserfc.errors import JoseError
    from joserfc.jwk import OKPKey
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "countersign's executor helpers need joserfc, cryptography and rfc8785: "
        "pip install 'countersign[executor]'"
    ) from error

__all__ = ["JoseError", "OKPKey", "canonical_json", "extract_header", "payload_hash", "verify_eddsa"]


def canonical_json(value: Any) -> bytes:
    """RFC 8785 (JCS) bytes of a JSON value, as lib/payload-hash.ts computes them."""
    return rfc8785.dumps(value)


def payload_hash(value: Any) -> str:
    """docs/design.md §5: ``"sha256:"`` + hex SHA-256 of the JCS text."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def extract_header(token: str) -> Dict[str, Any]:
    """The protected header of a compact JWS, unverified. Raises JoseError or ValueError."""
    return dict(jws.extract_compact(token.encode("ascii")).protected)


def import_public_key(jwk: Mapping[str, Any]) -> OKPKey:
    return OKPKey.import_key({"kty": "OKP", "crv": "Ed25519", "x": jwk["x"]})


def verify_eddsa(token: str, key: OKPKey) -> bytes:
    """The payload of a compact JWS whose Ed25519 signature ``key`` verifies; raises JoseError."""
    with warnings.catch_warnings():
        # RFC 9864 prefers "Ed25519" as the name, but Countersign signs with "EdDSA" (the same algorithm).
        warnings.simplefilter("ignore")
        return jws.deserialize_compact(token, key, algorithms=["EdDSA"]).payload
