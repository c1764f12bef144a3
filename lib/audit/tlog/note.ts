import { createHash, createPublicKey, verify, webcrypto } from 'node:crypto';
import type { PublicJwk, SigningKey } from '@/lib/signing/keys';
import { HASH_SIZE, type Hash } from './merkle';

/**
 * Signed notes (C2SP signed-note) and the checkpoints written in them (C2SP tlog-checkpoint):
 * docs/evidence.md, "The log format". A checkpoint is the note text
 *
 *     <origin>\n<tree size>\n<base64 root hash>\n
 *
 * signed with Ed25519 by the server's command signing key under the key name <origin>. Only
 * Ed25519 (signature type 0x01) is written or read here.
 */

/** The signed-note signature type of Ed25519. */
const ED25519 = 0x01;
/** The most signature lines read from one note (signed-note asks verifiers to accept at least 16). */
const MAX_SIGNATURES = 16;
const MAX_NOTE_BYTES = 8_192;

/** A key a note's signature can be checked with: its name, its 4-byte id and its Ed25519 public key. */
export type NoteVerifier = { name: string; id: number; publicKey: Uint8Array };

/** What a verified checkpoint says: the log, its size, its root, and which trusted key signed it. */
export type TreeHead = { origin: string; size: number; rootHash: Hash };
export type VerifiedCheckpoint = TreeHead & { kid?: string };

export class NoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoteError';
  }
}

/** signed-note: key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte Ed25519 public key)[:4], big-endian. */
export function noteKeyId(name: string, publicKey: Uint8Array): number {
  return createHash('sha256')
    .update(name, 'utf8')
    .update(Uint8Array.of(0x0a, ED25519))
    .update(publicKey)
    .digest()
    .readUInt32BE(0);
}

function checkKeyName(name: string): void {
  if (name.length === 0 || /[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name)) {
    throw new NoteError(`a key name must be non-empty, without spaces or "+": ${JSON.stringify(name)}`);
  }
}

/** A public JWK (the JWKS the server publishes) as a note verifier under `name`. */
export function jwkVerifier(name: string, jwk: Pick<PublicJwk, 'x'>): NoteVerifier {
  checkKeyName(name);
  const publicKey = Buffer.from(jwk.x, 'base64url');
  if (publicKey.length !== 32) throw new NoteError('an Ed25519 public key is 32 bytes');
  return { name, id: noteKeyId(name, publicKey), publicKey };
}

/**
 * signed-note's verifier key text, `<name>+<hex id>+<base64(0x01 || public key)>`, for tools that take one (Go's
 * golang.org/x/mod/sumdb/note).
 */
export function verifierKeyText(verifier: NoteVerifier): string {
  const key = Buffer.concat([Uint8Array.of(ED25519), verifier.publicKey]).toString('base64');
  return `${verifier.name}+${verifier.id.toString(16).padStart(8, '0')}+${key}`;
}

/** Parses a verifier key text; refuses any other signature type, a malformed key, or an id that is not the key's. */
export function parseVerifierKey(text: string): NoteVerifier {
  const [name, hexId, key, ...rest] = text.split('+');
  if (rest.length > 0 || !name || !hexId || !key || !/^[0-9a-f]{8}$/.test(hexId))
    throw new NoteError('a verifier key is <name>+<8 hex digits>+<base64 key>');
  const bytes = Buffer.from(key, 'base64');
  if (bytes.toString('base64') !== key || bytes.length !== 33 || bytes[0] !== ED25519)
    throw new NoteError('only Ed25519 verifier keys (type 0x01, 32 bytes) are read');
  const verifier = { name, id: Number.parseInt(hexId, 16), publicKey: bytes.subarray(1) };
  checkKeyName(name);
  if (noteKeyId(name, verifier.publicKey) !== verifier.id)
    throw new NoteError(`the verifier key's id ${hexId} is not the id of its name and key`);
  return verifier;
}

/**
 * Signs a note's text (ending in a newline) with an Ed25519 key under `name`: the text, a blank line, one signature
 * line.
 */
export async function signNote(
  text: string,
  name: string,
  key: SigningKey,
  publicJwk: Pick<PublicJwk, 'x'>,
): Promise<string> {
  checkText(text);
  const verifier = jwkVerifier(name, publicJwk);
  // The key is the WebCrypto key the commands sign with (lib/commands/keys.ts), never exported.
  const signature = new Uint8Array(await webcrypto.subtle.sign('Ed25519', key.key, Buffer.from(text, 'utf8')));
  const id = Buffer.alloc(4);
  id.writeUInt32BE(verifier.id);
  return `${text}\n— ${name} ${Buffer.concat([id, signature]).toString('base64')}\n`;
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw new NoteError('a note text ends with a newline');
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/u.test(text))
    throw new NoteError('a note has no control characters but newlines');
}

/**
 * signed-note verification: answers the note's text when at least one signature of a trusted key
 * (same name and id) verifies and none fails; signatures of unknown keys are ignored, as the
 * format requires. Throws NoteError otherwise.
 */
export function verifyNote(
  note: string,
  verifiers: readonly NoteVerifier[],
): { text: string; signedBy: NoteVerifier[] } {
  if (Buffer.byteLength(note, 'utf8') > MAX_NOTE_BYTES)
    throw new NoteError(`a note is at most ${MAX_NOTE_BYTES} bytes`);
  if (note.isWellFormed?.() === false) throw new NoteError('a note is UTF-8 text');
  checkText(note);
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('a note is its text, a blank line and its signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteError(`a note has at most ${MAX_SIGNATURES} signatures here`);
  const signedBy: NoteVerifier[] = [];
  for (const line of lines) {
    const match = /^— (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    if (!match) throw new NoteError('a signature line is "— <key name> <base64 signature>"');
    const [, name, encoded] = match as unknown as [string, string, string];
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.length < 5 || bytes.toString('base64') !== encoded)
      throw new NoteError('a signature is base64 of a 4-byte key id and the signature');
    const id = bytes.readUInt32BE(0);
    const known = verifiers.find((verifier) => verifier.name === name && verifier.id === id);
    if (!known) continue;
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(known.publicKey).toString('base64url') },
      format: 'jwk',
    });
    if (!verify(null, Buffer.from(text, 'utf8'), publicKey, bytes.subarray(4)))
      throw new NoteError(`the signature of trusted key ${name} does not verify`);
    signedBy.push(known);
  }
  if (signedBy.length === 0) throw new NoteError('the note is signed by none of the trusted keys');
  return { text, signedBy };
}

/** The checkpoint's note text: origin, tree size, base64 root hash, each on its own line. */
export function checkpointText({ origin, size, rootHash }: TreeHead): string {
  checkKeyName(origin);
  if (!Number.isSafeInteger(size) || size < 0) throw new NoteError('a tree size is a whole number, 0 or more');
  if (rootHash.length !== HASH_SIZE) throw new NoteError('a root hash is 32 bytes');
  return `${origin}\n${size}\n${Buffer.from(rootHash).toString('base64')}\n`;
}

/** Parses a checkpoint's text; refuses extension lines (Countersign writes none) and any other form. */
export function parseCheckpointText(text: string): TreeHead {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[3] !== '')
    throw new NoteError('a checkpoint is three lines: origin, tree size, root hash');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  checkKeyName(origin);
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    throw new NoteError('a tree size is decimal, without leading zeros');
  const rootHash = Buffer.from(rootText, 'base64');
  if (rootHash.length !== HASH_SIZE || rootHash.toString('base64') !== rootText)
    throw new NoteError('a root hash is the base64 of 32 bytes');
  return { origin, size: Number(sizeText), rootHash };
}

/** Signs a tree head as a checkpoint: the key name is the origin (tlog-checkpoint asks for that). */
export function signCheckpointNote(head: TreeHead, key: SigningKey, publicJwk: Pick<PublicJwk, 'x'>): Promise<string> {
  return signNote(checkpointText(head), head.origin, key, publicJwk);
}

/**
 * Verifies a checkpoint against public keys the verifier trusts (the server's JWKS), offline and
 * whatever the date: a signature line named by the checkpoint's origin, whose id is one of the
 * keys' ids under that name, must verify. `origin`, when given, must be the checkpoint's.
 */
export function verifyCheckpoint(note: string, keys: readonly PublicJwk[], origin?: string): VerifiedCheckpoint {
  const firstLine = note.slice(0, note.indexOf('\n'));
  if (origin !== undefined && firstLine !== origin)
    throw new NoteError(`the checkpoint is of log ${JSON.stringify(firstLine)}, not ${JSON.stringify(origin)}`);
  checkKeyName(firstLine);
  const verifiers = keys.map((key) => ({ ...jwkVerifier(firstLine, key), kid: key.kid }));
  const { text, signedBy } = verifyNote(note, verifiers);
  const head = parseCheckpointText(text);
  return { ...head, kid: verifiers.find((verifier) => verifier.id === signedBy[0]!.id)?.kid };
}
