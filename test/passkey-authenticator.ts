import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests: an ES256 (P-256) key made with node:crypto that
 * answers registration and authentication options with exactly the bytes a browser and an
 * authenticator would send — authenticator data, client data JSON, a "none" attestation object, a
 * DER ECDSA signature over authenticatorData ‖ SHA-256(clientDataJSON) — as
 * @simplewebauthn/browser hands them to the server (base64url JSON).
 */

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The CBOR head of a byte or text string of `length` (major type 2 or 3). */
function cborHead(major: 2 | 3 | 5, length: number): Buffer {
  const type = major << 5;
  if (length < 24) return Buffer.from([type | length]);
  if (length < 256) return Buffer.from([type | 24, length]);
  return Buffer.from([type | 25, length >> 8, length & 0xff]);
}
const cborText = (text: string) => Buffer.concat([cborHead(3, Buffer.byteLength(text)), Buffer.from(text)]);
const cborBytes = (bytes: Uint8Array) => Buffer.concat([cborHead(2, bytes.length), bytes]);

/** The COSE_Key of a P-256 public key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  return Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21]),
    cborBytes(x),
    Buffer.from([0x22]),
    cborBytes(y),
  ]);
}

const FLAGS = { userPresent: 0x01, userVerified: 0x04, attested: 0x40 };

export type AssertionOptions = { challenge: string; rpId?: string };

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  /** The signature counter: each assertion counts it up first. */
  counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The COSE public key, base64url, as the server stores it. */
  get publicKey(): string {
    return b64url(coseKey(this.keys.publicKey));
  }

  private authenticatorData(flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** A credential as @simplewebauthn/browser hands it to the server, around `response`, with the extension outputs. */
  private credential<R, E extends object>(response: R, clientExtensionResults: E) {
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults,
      authenticatorAttachment: 'platform' as const,
      response,
    };
  }

  /**
   * The browser's answer to registration options: a "none" attestation of this key, with what a
   * Level 3 browser adds beside it (the authenticator data, the SPKI public key and its algorithm)
   * and the `credProps` output the options ask for.
   */
  register(options: { challenge: string }, verified = true) {
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, coseKey(this.keys.publicKey)]);
    const flags = FLAGS.userPresent | FLAGS.attested | (verified ? FLAGS.userVerified : 0);
    const authData = this.authenticatorData(flags, this.counter, attested);
    const attestationObject = Buffer.concat([
      Buffer.from([0xa3]),
      cborText('fmt'),
      cborText('none'),
      cborText('attStmt'),
      Buffer.from([0xa0]),
      cborText('authData'),
      cborBytes(authData),
    ]);
    return this.credential(
      {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
        authenticatorData: b64url(authData),
        publicKey: b64url(this.keys.publicKey.export({ type: 'spki', format: 'der' })),
        publicKeyAlgorithm: -7,
      },
      { credProps: { rk: true } },
    );
  }

  /**
   * The browser's answer to authentication options: a signed assertion. `counter` overrides the
   * next count (a cloned key replaying an old one); `origin` and `verified` make bad ones.
   */
  assert(options: AssertionOptions, override: { counter?: number; origin?: string; verified?: boolean } = {}) {
    this.counter = override.counter ?? this.counter + 1;
    const flags = FLAGS.userPresent | (override.verified === false ? 0 : FLAGS.userVerified);
    const authData = this.authenticatorData(flags, this.counter);
    const clientData = this.clientData('webauthn.get', options.challenge, override.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), {
      key: this.keys.privateKey,
      dsaEncoding: 'der',
    });
    return this.credential(
      { clientDataJSON: b64url(clientData), authenticatorData: b64url(authData), signature: b64url(signature) },
      {},
    );
  }
}
