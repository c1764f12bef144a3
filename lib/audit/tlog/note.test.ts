import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateSigningJwk, loadCommandKeys, publicJwk } from '@/lib/signing/keys';
import { leafHash } from './merkle';
import {
  checkpointText,
  jwkVerifier,
  NoteError,
  noteKeyId,
  parseVerifierKey,
  signCheckpointNote,
  verifierKeyText,
  verifyCheckpoint,
  verifyNote,
} from './note';
import { logOrigin } from './origin';

/** Signed notes and checkpoints (C2SP signed-note, tlog-checkpoint): the format's own example, then our checkpoints. */

afterEach(() => {
  vi.useRealTimers();
});

// c2sp.org/signed-note, "Example": this verifier key verifies this note.
const C2SP_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const C2SP_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

describe("signed-note's example", () => {
  it('computes the key id and verifies the note', () => {
    const verifier = parseVerifierKey(C2SP_VKEY);
    expect(verifier.id).toBe(0x530d903a);
    expect(noteKeyId(verifier.name, verifier.publicKey)).toBe(0x530d903a);
    expect(verifierKeyText(verifier)).toBe(C2SP_VKEY);
    expect(verifyNote(C2SP_NOTE, [verifier]).text).toBe('This is an example message.\n');
  });

  it('refuses the note with its text changed, and ignores an unknown key', () => {
    const verifier = parseVerifierKey(C2SP_VKEY);
    expect(() => verifyNote(C2SP_NOTE.replace('example message', 'example massage'), [verifier])).toThrow(
      'the signature of trusted key example.com/foo does not verify',
    );
    expect(() => verifyNote(C2SP_NOTE, [{ ...verifier, name: 'example.com/bar' }])).toThrow(
      'the note is signed by none of the trusted keys',
    );
    expect(() => verifyNote(C2SP_NOTE, [{ ...verifier, id: verifier.id + 1 }])).toThrow(
      'the note is signed by none of the trusted keys',
    );
  });

  it.each([
    ['another type', 'example.com/foo+530d903a+AuyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k', 'only Ed25519'],
    [
      'a wrong id',
      'example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
      'is not the id of its name and key',
    ],
    ['no id', 'example.com/foo+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k', 'a verifier key is'],
  ])('refuses a verifier key with %s', (_, vkey, message) => {
    expect(() => parseVerifierKey(vkey)).toThrow(message);
  });
});

async function serverKeys() {
  const older = await generateSigningJwk(new Date('2026-01-01T00:00:00Z'));
  const current = await generateSigningJwk();
  const keys = await loadCommandKeys([current, older]);
  return { keys, current, older, jwks: keys.jwks };
}

const head = {
  origin: logOrigin('acme', 'https://countersign.example.com:8443'),
  size: 42,
  rootHash: leafHash(Buffer.from('root')),
};

describe('checkpoints', () => {
  it('writes the origin, the size and the base64 root on three lines, signed under the origin', async () => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(head, keys.signing, jwks[0]!);
    const [origin, size, root, blank, signature, end] = note.split('\n');
    expect([origin, size, root, blank, end]).toEqual([
      'countersign.example.com:8443/countersign/acme',
      '42',
      Buffer.from(head.rootHash).toString('base64'),
      '',
      '',
    ]);
    expect(signature).toMatch(/^— countersign\.example\.com:8443\/countersign\/acme [A-Za-z0-9+/]{91}=$/);
    const id = Buffer.from(signature!.split(' ')[2]!, 'base64').readUInt32BE(0);
    expect(id).toBe(jwkVerifier(head.origin, jwks[0]!).id);
  });

  it('verifies with only the public keys, a year later, and names the key', async () => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(head, keys.signing, jwks[0]!);
    vi.useFakeTimers({ now: Date.now() + 366 * 24 * 3_600_000 });
    const verified = verifyCheckpoint(note, JSON.parse(JSON.stringify(jwks)), head.origin);
    expect(verified).toEqual({
      origin: head.origin,
      size: 42,
      rootHash: Buffer.from(head.rootHash),
      kid: jwks[0]!.kid,
    });
  });

  it('verifies a checkpoint signed by an older key that is still listed, and not one whose key is gone', async () => {
    const { older, jwks } = await serverKeys();
    const olderKeys = await loadCommandKeys([older]);
    const note = await signCheckpointNote(head, olderKeys.signing, publicJwk(older));
    expect(verifyCheckpoint(note, jwks).kid).toBe(older.kid);
    expect(() => verifyCheckpoint(note, [jwks[0]!])).toThrow('the note is signed by none of the trusted keys');
  });

  it('refuses a checkpoint of another log', async () => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(head, keys.signing, jwks[0]!);
    expect(() => verifyCheckpoint(note, jwks, logOrigin('other', 'https://countersign.example.com:8443'))).toThrow(
      'the checkpoint is of log',
    );
  });

  it('refuses every single-character change of a signed checkpoint', async () => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(head, keys.signing, jwks[0]!);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: note.length - 1 }),
        fc.constantFrom(...'0aA+/= \n—\u0000\u00e9'.split('')),
        (at, replacement) => {
          fc.pre(note[at] !== replacement);
          const changed = note.slice(0, at) + replacement + note.slice(at + 1);
          expect(() => verifyCheckpoint(changed, jwks)).toThrow(NoteError);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    [
      'an extension line',
      (root: string) => `countersign.test/countersign/acme\n42\n${root}\nextra\n`,
      'a checkpoint is three lines',
    ],
    [
      'a size with a leading zero',
      (root: string) => `countersign.test/countersign/acme\n042\n${root}\n`,
      'a tree size is decimal',
    ],
    ['a negative size', (root: string) => `countersign.test/countersign/acme\n-1\n${root}\n`, 'a tree size is decimal'],
    [
      'a size past 2^53',
      (root: string) => `countersign.test/countersign/acme\n9007199254740993\n${root}\n`,
      'a tree size is decimal',
    ],
    [
      'a short root',
      () => `countersign.test/countersign/acme\n42\n${Buffer.alloc(31).toString('base64')}\n`,
      'a root hash is the base64 of 32 bytes',
    ],
    [
      'a root without padding',
      (root: string) => `countersign.test/countersign/acme\n42\n${root.replace(/=+$/, '')}\n`,
      'a root hash is the base64 of 32 bytes',
    ],
  ])('refuses a signed checkpoint with %s', async (_, text, message) => {
    const { keys, jwks } = await serverKeys();
    const { signNote } = await import('./note');
    const note = await signNote(
      text(Buffer.from(head.rootHash).toString('base64')),
      'countersign.test/countersign/acme',
      keys.signing,
      jwks[0]!,
    );
    expect(() => verifyCheckpoint(note, jwks)).toThrow(message);
  });

  it.each([
    [
      'no blank line',
      (note: string) => note.replace('\n\n', '\n'),
      'a note is its text, a blank line and its signatures',
    ],
    ['a control character', (note: string) => note.replace('acme', 'ac\u0007me'), 'no control characters'],
    ['no final newline', (note: string) => note.slice(0, -1), 'a note text ends with a newline'],
    ['17 signatures', (note: string) => note + note.slice(note.lastIndexOf('—')).repeat(16), 'at most 16 signatures'],
    ['a malformed signature line', (note: string) => note.replace('— ', '-- '), 'a signature line is'],
  ])('refuses a note with %s', async (_, change, message) => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(
      { ...head, origin: 'countersign.test/countersign/acme' },
      keys.signing,
      jwks[0]!,
    );
    expect(() => verifyCheckpoint(change(note), jwks)).toThrow(message);
  });

  it('ignores a witness’s signature beside the log’s', async () => {
    const { keys, jwks } = await serverKeys();
    const note = await signCheckpointNote(head, keys.signing, jwks[0]!);
    const witness = await loadCommandKeys([await generateSigningJwk()]);
    const cosigned =
      note +
      (await signCheckpointNote({ ...head, origin: 'witness.example/w1' }, witness.signing, witness.jwks[0]!))
        .split('\n')
        .at(-2) +
      '\n';
    expect(verifyCheckpoint(cosigned, jwks).size).toBe(42);
  });

  it('writes text only from a well-formed head', () => {
    expect(() => checkpointText({ ...head, origin: 'has space/x' })).toThrow(
      'a key name must be non-empty, without spaces or "+"',
    );
    expect(() => checkpointText({ ...head, origin: 'a+b' })).toThrow('without spaces or "+"');
    expect(() => checkpointText({ ...head, size: 1.5 })).toThrow('a tree size is a whole number');
  });
});

describe('logOrigin', () => {
  it('is the host of APP_URL, then /countersign/<tenant>', () => {
    expect(logOrigin('acme', 'https://approvals.example.com/some/path')).toBe('approvals.example.com/countersign/acme');
    expect(logOrigin('acme', undefined)).toBe('localhost/countersign/acme');
  });
});
