"""Commands signed by Countersign's own TypeScript (sign_commands.ts, run once per test process with
the repo's tsx), and request proofs signed here with the same key, for the executor tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
import warnings
from pathlib import Path
from typing import Any, Dict, Optional

from joserfc import jws
from joserfc.jwk import OKPKey

from countersign.verify import body_sha256

REPO = Path(__file__).resolve().parents[3]
#: The instant the fixtures are signed for. The tests pass it as `now` wherever they can; it is the
#: clock's time at start so that examples/refund_executor.py, which reads the clock, accepts them.
NOW = int(time.time())

_signed: Optional[Dict[str, Any]] = None


def signed() -> Dict[str, Any]:
    """{now, issuer, jwks, signingJwk, commands: [{name, scope, jws, code, claims?}]}."""
    global _signed
    if _signed is None:
        tsx = REPO / "node_modules" / ".bin" / "tsx"
        if not tsx.exists() or shutil.which("node") is None:
            raise RuntimeError("the executor tests sign commands with the repo's TypeScript: run `npm ci` and put Node on PATH")
        done = subprocess.run(
            [str(tsx), "clients/python/tests/sign_commands.ts", str(NOW)],
            cwd=REPO,
            capture_output=True,
            check=False,
            env={**os.environ, "NODE_ENV": "test"},
        )
        if done.returncode != 0:
            raise RuntimeError(f"sign_commands.ts failed: {done.stderr.decode(errors='replace')[-2000:]}")
        _signed = json.loads(done.stdout)
    return _signed


def command(name: str) -> Dict[str, Any]:
    return next(found for found in signed()["commands"] if found["name"] == name)


def sign_proof(
    url: str,
    method: str = "POST",
    body: bytes = b"",
    *,
    header: Optional[Dict[str, Any]] = None,
    key: Optional[OKPKey] = None,
    **overrides: Any,
) -> str:
    """A request proof as the protocol defines it, signed with the JWKS's first key."""
    fixture = signed()
    signing = fixture["signingJwk"]
    claims = {
        "iss": fixture["issuer"],
        "aud": url,
        "htm": method,
        "bodySha256": body_sha256(body),
        "iat": NOW,
        "exp": NOW + 60,
        "jti": uuid.uuid4().hex,
        **overrides,
    }
    protected = header or {"alg": "EdDSA", "kid": signing["kid"], "typ": "countersign-request+jwt"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # joserfc prefers "Ed25519"; Countersign's proofs say "EdDSA"
        return jws.serialize_compact(
            protected,
            json.dumps(claims).encode(),
            key or OKPKey.import_key(signing),
            algorithms=[protected["alg"]],
        )
