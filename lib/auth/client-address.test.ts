import { describe, expect, it } from 'vitest';
import { clientAddress, PEER_HEADER } from './client-address';

const direct = { TRUST_PROXY: false };
const proxied = { TRUST_PROXY: true };

describe('client address for throttling', () => {
  it('is the socket peer unless a trusted proxy names it', () => {
    const headers = new Headers({ [PEER_HEADER]: '10.0.0.5', 'x-forwarded-for': '203.0.113.9, 198.51.100.7' });
    expect(clientAddress(headers, direct)).toBe('10.0.0.5');
    // The last hop is what our proxy saw; earlier ones are the client's own word.
    expect(clientAddress(headers, proxied)).toBe('198.51.100.7');
    expect(clientAddress(new Headers(), direct)).toBe('unknown');
  });
});
