import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 (JCS) text of a JSON value; throws on values JCS cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** docs/design.md §5: "sha256:" + hex(SHA-256(JCS(value))). */
export function payloadHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
