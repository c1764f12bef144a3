import type { Database } from '@/db';
import { invalidQuery } from '@/lib/errors/refusal';
import { parseSequence } from '@/lib/paging/fields';
import type { ConsistencyProofFile, InclusionProofFile } from './proofs';
import { consistencyProof, inclusionProof } from './store';

/** The proofs the auditor API answers (app/api/v1/audit/proofs/*), and its query. */

const encode = (hashes: readonly Uint8Array[]) => hashes.map((hash) => Buffer.from(hash).toString('base64'));

/** The inclusion proof of the tenant's event `seq` in its tree of `treeSize` events, as a file carries it. */
export async function inclusionProofFile(
  db: Database,
  tenantId: string,
  seq: number,
  treeSize: number,
): Promise<InclusionProofFile> {
  const proof = await inclusionProof(db, tenantId, seq, treeSize);
  return { seq, treeSize, hashes: encode(proof.hashes) };
}

/** The consistency proof of the tenant's trees of `fromSize` and `toSize` events, as a file carries it. */
export async function consistencyProofFile(
  db: Database,
  tenantId: string,
  fromSize: number,
  toSize: number,
): Promise<ConsistencyProofFile> {
  const proof = await consistencyProof(db, tenantId, fromSize, toSize);
  return { fromSize, toSize, hashes: encode(proof.hashes) };
}

/**
 * The auditor API's query: exactly the named parameters, each once, each a whole number from 1
 * (anything else is a 400 `invalid_query` in words).
 */
export function proofQuery<Name extends string>(params: URLSearchParams, names: readonly Name[]): Record<Name, number> {
  const messages: string[] = [];
  for (const key of new Set(params.keys())) {
    if (!names.includes(key as Name))
      messages.push(`Unknown query parameter ${JSON.stringify(key)}; use ${names.join(' and ')}.`);
    else if (params.getAll(key).length > 1) messages.push(`${key} is given more than once.`);
  }
  const values = {} as Record<Name, number>;
  for (const name of names) {
    const value = parseSequence(params.get(name) ?? undefined);
    if (value === undefined) messages.push(`${name} must be a whole number from 1.`);
    else values[name] = value;
  }
  if (messages.length > 0) throw invalidQuery(messages);
  return values;
}
