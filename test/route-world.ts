import { afterAll, beforeAll } from 'vitest';
import { setupTestDatabase } from './db';
import { routeSession } from './route-session';
import { setupRouteSystems } from './systems';
import { type PersonName, seededWorld } from './world';

export const ROUTE_ORIGIN = 'http://countersign.test';

/**
 * What a route test calls routes against, wired as the routes find it: a test database the routes'
 * `getDb()` answers, the demo systems of record, the seeded demo world, and `as(person)` to sign in
 * (mock `@/lib/auth` with test/route-session.ts). The database, the routes and their checks are real.
 */
export async function setupRouteWorld() {
  const t = setupTestDatabase();
  const systems = await setupRouteSystems(t);
  const seeded = seededWorld(t);
  const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };
  beforeAll(() => {
    globalForDb.countersignDb = Promise.resolve(t.handle);
  });
  afterAll(() => {
    globalForDb.countersignDb = undefined;
  });
  const as = (person: PersonName | undefined) => {
    routeSession.userId = person ? seeded.world.userId(person) : undefined;
  };
  return { t, systems, seeded, as };
}
