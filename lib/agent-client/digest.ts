import { base64url } from 'jose';

const bytesOf = (data: Uint8Array | string) => (typeof data === 'string' ? new TextEncoder().encode(data) : data);

/** SHA-256 with Web Crypto, so the helpers run wherever `fetch` does (Node, Deno, Bun, edge). */
async function sha256(data: Uint8Array | string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytesOf(data) as Uint8Array<ArrayBuffer>));
}

export const sha256Base64url = async (data: Uint8Array | string) => base64url.encode(await sha256(data));

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  return Array.from(await sha256(data), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
