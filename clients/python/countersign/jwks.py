"""Countersign's public keys (``/.well-known/jwks.json``), by kid: the only keys a command or a
request proof is verified with. Only Ed25519 keys are kept; anything else in the set is ignored."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, Union

from ._jose import OKPKey, import_public_key

JwksLike = Union[str, Mapping[str, Any], "Jwks"]

#: How long a fetched key set is used before it is fetched again.
REFRESH_SECONDS = 300.0
#: An unknown kid fetches the set again (a rotation), but not more often than this.
UNKNOWN_KID_REFETCH_SECONDS = 30.0
_MAX_JWKS_BYTES = 256 * 1024


def _keys_of(document: Any) -> Dict[str, OKPKey]:
    if not isinstance(document, Mapping) or not isinstance(document.get("keys"), list):
        raise ValueError("a JWKS is an object with a list of keys")
    keys: Dict[str, OKPKey] = {}
    for jwk in document["keys"]:
        if not isinstance(jwk, Mapping) or not isinstance(jwk.get("kid"), str):
            continue
        # The same keys as lib/agent-client/key-set.ts keeps, so both helpers know the same kids.
        if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(jwk.get("x"), str):
            continue
        if jwk.get("use", "sig") != "sig":
            continue
        if "d" in jwk:
            raise ValueError(f"the JWKS holds a private key ({jwk['kid']}): publish public keys only")
        try:
            keys[jwk["kid"]] = import_public_key(jwk)
        except (ValueError, TypeError):
            continue  # a key that does not import verifies nothing: its kid stays unknown
    return keys


def _fetch(url: str, timeout_s: float) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as answer:  # noqa: S310 - the operator's own URL
        return json.loads(answer.read(_MAX_JWKS_BYTES + 1)[:_MAX_JWKS_BYTES])


class Jwks:
    """A key set from a dict (``{"keys": [...]}``) or a URL, fetched with urllib, kept for
    ``REFRESH_SECONDS`` and fetched again when a token names a kid it does not hold."""

    def __init__(
        self,
        source: Union[str, Mapping[str, Any]],
        *,
        timeout_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._url = source if isinstance(source, str) else None
        self._timeout_s = timeout_s
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: Dict[str, OKPKey] = {} if self._url else _keys_of(source)
        self._fetched_at: Optional[float] = None

    def get(self, kid: str) -> Optional[OKPKey]:
        """The public key named ``kid``, or ``None``. Fetching failures propagate (OSError, ValueError)."""
        if self._url is None:
            return self._keys.get(kid)
        with self._lock:
            age = None if self._fetched_at is None else self._clock() - self._fetched_at
            stale = age is None or age >= REFRESH_SECONDS
            if stale or (kid not in self._keys and age >= UNKNOWN_KID_REFETCH_SECONDS):
                self._keys = _keys_of(_fetch(self._url, self._timeout_s))
                self._fetched_at = self._clock()
            return self._keys.get(kid)


_by_url: Dict[str, Jwks] = {}
_by_url_lock = threading.Lock()


def as_jwks(value: JwksLike) -> Jwks:
    """A ``Jwks`` as given; one per URL for the process (so a URL is not fetched for every token)."""
    if isinstance(value, Jwks):
        return value
    if not isinstance(value, str):
        return Jwks(value)
    with _by_url_lock:
        return _by_url.setdefault(value, Jwks(value))
