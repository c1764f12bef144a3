import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readCacheOf } from '@/lib/cache/read-cache';
import { setupTestDatabase, testDatabaseUrl } from '@/test/db';
import { closeDatabase, getDb } from './database';

/** The process-wide database as the server, the worker and the demo open it from their settings. */
const t = setupTestDatabase();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-database-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the process-wide database', () => {
  it('comes with a read cache that answers once it listens for changes, and stops with it', async () => {
    // This file's own database on PostgreSQL; a fresh embedded one on PGlite.
    if (t.driver === 'postgres') process.env.DATABASE_URL = testDatabaseUrl(t.handle);
    else delete process.env.DATABASE_URL;
    process.env.COUNTERSIGN_DATA_DIR = dataDir;
    const db = await getDb();
    const cache = readCacheOf(db);
    expect(cache).toBeDefined();
    await vi.waitFor(() => expect(cache!.stats().live).toBe(true), { timeout: 20_000 });
    await closeDatabase();
    expect(readCacheOf(db)).toBeUndefined();
    expect(cache!.stats().live).toBe(false);
  });
});
