import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * A randomly named database on the server of `baseUrl` (`<prefix>_<8 hex>`), for one measurement:
 * `create()` it, use `url`, and `drop()` it in a `finally` (it also closes the admin connection).
 */
export function scratchDatabase(baseUrl: string, prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    create: async () => {
      await admin.unsafe(`create database ${name}`);
    },
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
