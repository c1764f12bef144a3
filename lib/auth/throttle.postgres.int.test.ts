import { describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { admitSignIn, SIGN_IN_THROTTLE } from './throttle';

const t = setupTestDatabase();

describe('sign-in throttle under concurrency (PostgreSQL)', () => {
  it('40 parallel guesses: only the first 5 are ever checked', async () => {
    const attempt = { email: 'burst@throttle.test', address: '192.0.2.77' };
    const now = new Date();
    const admissions = await Promise.all(Array.from({ length: 40 }, () => admitSignIn(t.db, attempt, now)));
    expect(admissions.filter((a) => a.allowed)).toHaveLength(SIGN_IN_THROTTLE.scopes.pair.delayAfter);
  });
});
