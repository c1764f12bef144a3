import { describe, expect, it } from 'vitest';
import { eventLeafHash } from './leaf';
import { consistencyRanges, inclusionRanges, lookUp, proofHashes, rootOf, subtreesOf } from './merkle';
import {
  type ConsistencyProofFile,
  type InclusionProofFile,
  verifyCheckpointConsistency,
  verifyEventInclusion,
} from './proofs';

/** The offline checks of proof files against verified checkpoints: each refusal in words. */

const events = Array.from({ length: 11 }, (_, i) => ({
  seq: i + 1,
  hash: `sha256:${(i + 1).toString(16).padStart(64, '0')}`,
}));
const node = lookUp(subtreesOf(events.map((event) => eventLeafHash(event.hash))));
const origin = 'countersign.test/countersign/acme';
const head = (size: number) => ({ origin, size, rootHash: rootOf(size, node) });
const b64 = (hashes: Uint8Array[]) => hashes.map((hash) => Buffer.from(hash).toString('base64'));
const inclusionFile = (seq: number, treeSize: number): InclusionProofFile => ({
  seq,
  treeSize,
  hashes: b64(proofHashes(inclusionRanges(seq - 1, treeSize), node)),
});
const consistencyFile = (fromSize: number, toSize: number): ConsistencyProofFile => ({
  fromSize,
  toSize,
  hashes: b64(proofHashes(consistencyRanges(fromSize, toSize), node)),
});

describe('verifyEventInclusion', () => {
  it('accepts every event of every checkpoint', () => {
    for (let size = 1; size <= 11; size++)
      for (const event of events.slice(0, size))
        verifyEventInclusion(event, inclusionFile(event.seq, size), head(size));
  });

  it.each([
    ['another event’s proof', () => inclusionFile(4, 11), events[2]!, 'the inclusion proof is of event #4, not #3'],
    [
      'a proof for another size',
      () => inclusionFile(3, 10),
      events[2]!,
      'is for a tree of 10 event(s); the checkpoint signs 11',
    ],
    [
      'a changed event',
      () => inclusionFile(3, 11),
      { seq: 3, hash: events[3]!.hash },
      'event #3 is not included in checkpoint #11',
    ],
    [
      'an event without a hash',
      () => inclusionFile(3, 11),
      { seq: 3, hash: 'sha256:genesis' },
      'event #3 has no valid hash',
    ],
    ['a proof with an extra field', () => ({ ...inclusionFile(3, 11), root: 'x' }), events[2]!, 'is malformed'],
    ['a proof with a short hash', () => ({ ...inclusionFile(3, 11), hashes: ['AAAA'] }), events[2]!, 'is malformed'],
    [
      'a proof with a dropped hash',
      () => ({ ...inclusionFile(3, 11), hashes: inclusionFile(3, 11).hashes.slice(1) }),
      events[2]!,
      'not included',
    ],
  ])('refuses %s', (_, file, event, message) => {
    expect(() => verifyEventInclusion(event, file() as InclusionProofFile, head(11))).toThrow(message);
  });
});

describe('verifyCheckpointConsistency', () => {
  it('accepts every earlier checkpoint of every later one, and anything after the empty log', () => {
    for (let to = 1; to <= 11; to++)
      for (let from = 1; from <= to; from++)
        verifyCheckpointConsistency(head(from), head(to), consistencyFile(from, to));
    verifyCheckpointConsistency(head(0), head(5), { fromSize: 0, toSize: 5, hashes: [] });
  });

  it.each([
    [
      'two logs',
      () => [head(3), { ...head(7), origin: 'countersign.test/countersign/other' }, consistencyFile(3, 7)],
      'the checkpoints are of two logs',
    ],
    ['a rolled-back log', () => [head(7), head(3), consistencyFile(3, 7)], 'the log was rolled back'],
    [
      'a proof between other sizes',
      () => [head(3), head(7), consistencyFile(3, 8)],
      'the consistency proof is from #3 to #8, not from #3 to #7',
    ],
    [
      'a fork',
      () => [
        head(3),
        {
          ...head(7),
          rootHash: rootOf(
            7,
            lookUp(subtreesOf(events.map((event, i) => eventLeafHash(i === 1 ? events[0]!.hash : event.hash)))),
          ),
        },
        consistencyFile(3, 7),
      ],
      'the log was forked or rewritten',
    ],
    [
      'two different heads of one size',
      () => [
        head(5),
        {
          ...head(5),
          rootHash: rootOf(5, lookUp(subtreesOf(events.slice(1).map((event) => eventLeafHash(event.hash))))),
        },
        consistencyFile(5, 5),
      ],
      'the log was forked or rewritten',
    ],
    [
      'a malformed proof',
      () => [head(3), head(7), { ...consistencyFile(3, 7), hashes: 'x' }],
      'the consistency proof is malformed',
    ],
  ])('refuses %s', (_, args, message) => {
    const [earlier, later, proof] = args() as Parameters<typeof verifyCheckpointConsistency>;
    expect(() => verifyCheckpointConsistency(earlier, later, proof)).toThrow(message);
  });
});
