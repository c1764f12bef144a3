import { describe, expect, it } from 'vitest';
import { socketAware } from '@/db/socket-url';

describe('socketAware: libpq’s ?host=/folder for a Unix-domain socket', () => {
  it.each([
    {
      url: 'postgres://app@localhost:5432/cs?host=/var/run/postgresql',
      expected: { url: 'postgres://app@localhost:5432/cs', host: '/var/run/postgresql' },
    },
    {
      url: 'postgres://app@localhost/cs?host=%2Frun%2Fpg&sslmode=disable',
      expected: { url: 'postgres://app@localhost/cs?sslmode=disable', host: '/run/pg' },
    },
    { url: 'postgres://app@db.internal:5432/cs', expected: { url: 'postgres://app@db.internal:5432/cs' } },
    // Not a folder: left for postgres.js (which passes unknown parameters on to the server).
    {
      url: 'postgres://app@localhost/cs?host=db.internal',
      expected: { url: 'postgres://app@localhost/cs?host=db.internal' },
    },
  ])('$url', ({ url, expected }) => {
    expect(socketAware(url)).toEqual(expected);
  });
});
