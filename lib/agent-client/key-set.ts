import { type CryptoKey, importJWK, type JWK } from 'jose';

/** A JSON Web Key Set as Countersign publishes it at /.well-known/jwks.json. */
export type Jwks = { keys: JWK[] };

/** Countersign's public keys by kid; `get` answers undefined for a kid it does not know. */
export type KeySet = { get(kid: string): Promise<CryptoKey | undefined> };

/** Where the keys come from: a JWKS object, the URL of /.well-known/jwks.json, or a key set. */
export type KeySource = Jwks | string | KeySet;

export type RemoteKeySetOptions = {
  /** Least time between two fetches an unknown kid causes (default 10 s): junk kids cannot make us hammer the JWKS. */
  cooldownMs?: number;
  /** Per fetch (default 5 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

const isKeySet = (source: KeySource): source is KeySet => typeof source === 'object' && 'get' in source;

/** Only Ed25519 signing keys are imported; anything else in the set is ignored. */
async function importKeys(jwks: unknown): Promise<Map<string, CryptoKey>> {
  const keys = new Map<string, CryptoKey>();
  const list = jwks && typeof jwks === 'object' && 'keys' in jwks && Array.isArray(jwks.keys) ? jwks.keys : [];
  for (const jwk of list as JWK[]) {
    if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.kid !== 'string' || typeof jwk.x !== 'string')
      continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    try {
      const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'EdDSA');
      if (!(key instanceof Uint8Array)) keys.set(jwk.kid, key);
    } catch {
      // A key that does not import verifies nothing: its kid stays unknown.
    }
  }
  return keys;
}

export function localKeySet(jwks: Jwks): KeySet {
  const imported = importKeys(jwks);
  return { get: async (kid) => (await imported).get(kid) };
}

/**
 * The keys at a JWKS URL, fetched on first use and cached; an unknown kid refetches once (a key
 * rotated in since), at most once per cooldown. A failed fetch throws (the caller cannot verify).
 */
export function remoteKeySet(url: string, options: RemoteKeySetOptions = {}): KeySet {
  const cooldownMs = options.cooldownMs ?? 10_000;
  let keys: Promise<Map<string, CryptoKey>> | undefined;
  let fetchedAt = 0;
  const load = () => {
    fetchedAt = Date.now();
    const doFetch = options.fetch ?? fetch;
    const loading = (async () => {
      const response = await doFetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      });
      if (!response.ok) throw new Error(`the JWKS at ${url} answered HTTP ${response.status}`);
      return importKeys(await response.json());
    })();
    // A failed fetch is not cached: the next verification tries again.
    loading.catch(() => {
      if (keys === loading) keys = undefined;
    });
    keys = loading;
    return loading;
  };
  return {
    async get(kid) {
      const current = keys ?? load();
      const known = (await current).get(kid);
      if (known) return known;
      // Another verification refetched meanwhile: its answer is the fresh one.
      if (keys && keys !== current) return (await keys).get(kid);
      if (Date.now() - fetchedAt < cooldownMs) return undefined;
      return (await load()).get(kid);
    },
  };
}

const remoteSets = new Map<string, KeySet>();

/** The key set of a source; one cached set per URL for the process. */
export function keySetOf(source: KeySource): KeySet {
  if (typeof source === 'string') {
    let set = remoteSets.get(source);
    if (!set) remoteSets.set(source, (set = remoteKeySet(source)));
    return set;
  }
  return isKeySet(source) ? source : localKeySet(source);
}
