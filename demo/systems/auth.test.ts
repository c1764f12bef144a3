import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isLoopback, presentedScope, requireRead, requireScope } from './auth';
import { HttpError } from './http';
import { TEST_CREDENTIALS } from './testing';

/** The parts of access control that loopback HTTP tests cannot reach: peers from elsewhere. */

const request = (remoteAddress: string | undefined, authorization?: string) =>
  ({
    headers: authorization === undefined ? {} : { authorization },
    socket: { remoteAddress },
  }) as unknown as IncomingMessage;

const statusOf = (action: () => void): number | 'allowed' => {
  try {
    action();
    return 'allowed';
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
};

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.10.20.30', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.7', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.7', false],
    ['fe80::1', false],
    ['127.0.0.1.evil', false],
    [undefined, false],
  ])('%s → %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});

describe('reads from another machine', () => {
  it.each([
    ['no credential', undefined, 401],
    ['a wrong credential', 'Bearer nope-nope-nope-nope', 401],
    ['the payments credential', `Bearer ${TEST_CREDENTIALS.payments}`, 'allowed'],
    ['the inventory credential', `Bearer ${TEST_CREDENTIALS.inventory}`, 'allowed'],
  ] as const)('with %s → %s', (_, authorization, expected) => {
    expect(statusOf(() => requireRead(request('10.0.0.7', authorization), TEST_CREDENTIALS))).toBe(expected);
  });

  it('are open on loopback', () => {
    expect(statusOf(() => requireRead(request('::1'), TEST_CREDENTIALS))).toBe('allowed');
  });
});

describe('scope credentials', () => {
  it.each([
    [`Bearer ${TEST_CREDENTIALS.payments}`, 'payments'],
    [`BEARER   ${TEST_CREDENTIALS.inventory}`, 'inventory'],
    [`Bearer ${TEST_CREDENTIALS.payments}x`, 'invalid'],
    [`Bearer ${TEST_CREDENTIALS.payments} extra`, 'invalid'],
    ['Token abc', 'invalid'],
    [undefined, undefined],
  ])('%s → %s', (authorization, expected) => {
    expect(presentedScope(request('127.0.0.1', authorization), TEST_CREDENTIALS)).toBe(expected);
  });

  it('writes need the scope credential even on loopback', () => {
    expect(statusOf(() => requireScope(request('127.0.0.1'), TEST_CREDENTIALS, 'payments'))).toBe(401);
    expect(
      statusOf(() =>
        requireScope(request('127.0.0.1', `Bearer ${TEST_CREDENTIALS.inventory}`), TEST_CREDENTIALS, 'payments'),
      ),
    ).toBe(403);
    expect(
      statusOf(() =>
        requireScope(request('127.0.0.1', `Bearer ${TEST_CREDENTIALS.payments}`), TEST_CREDENTIALS, 'payments'),
      ),
    ).toBe('allowed');
  });
});
