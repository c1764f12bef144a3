import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type SystemsOfRecord, startSystemsOfRecord } from './server';
/** Helpers for the systems-of-record tests: real HTTP over loopback with fetch. */

export const TEST_CREDENTIALS = {
  payments: 'test-payments-credential-0123456789',
  inventory: 'test-inventory-credential-0123456789',
} as const;

export type Reply<T> = { status: number; headers: Headers; text: string; json: T };

export type CallOptions = {
  /** A credential sent as "Authorization: Bearer <credential>". */
  auth?: string;
  /** A whole Authorization header, for malformed ones. */
  authorization?: string;
  /** Serialized as JSON with "Content-Type: application/json" unless `raw` or `contentType` say otherwise. */
  body?: unknown;
  raw?: string | Uint8Array<ArrayBuffer>;
  /** null sends no Content-Type at all. */
  contentType?: string | null;
  signal?: AbortSignal;
};

export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (options.auth !== undefined) headers.authorization = `Bearer ${options.auth}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && options.contentType !== null)
    headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: options.signal });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as T };
}

export type ErrorBody = { error: { code: string; message: string } };

export const refundBody = (overrides: Record<string, unknown> = {}) => ({
  orderId: 'ord_1842',
  amountMinor: 1000,
  currency: 'USD',
  idempotencyKey: 'refund-key-1',
  ...overrides,
});

export const holdBody = (overrides: Record<string, unknown> = {}) => ({
  sku: 'filter-blue',
  quantity: 2,
  warehouse: 'north',
  idempotencyKey: 'hold-key-1',
  ...overrides,
});

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One test-mode service for a test file, reset to the seeded world before each test. */
export function setupTestService(): { readonly url: string } {
  let service: SystemsOfRecord | undefined;
  beforeAll(async () => {
    service = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS, testMode: true });
  });
  afterAll(async () => {
    await service?.close();
  });
  beforeEach(async () => {
    expect((await call(service!.url, 'POST', '/__reset')).status).toBe(200);
  });
  return {
    get url() {
      if (!service) throw new Error('the systems of record are not started yet');
      return service.url;
    },
  };
}
