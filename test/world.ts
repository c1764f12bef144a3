import { beforeAll } from 'vitest';
import type { Database } from '@/db/client';
import { users } from '@/db/schema';
import { seedDemo } from '@/demo/seed';
import { type AgentPrincipal, authenticateAgent } from '@/lib/agents/authenticate';

export type SeededCredentials = Awaited<ReturnType<typeof seedDemo>>;

/** The people of the demo world by first name (docs/design.md §13). */
export const PEOPLE = {
  alice: 'alice@acme.test',
  bob: 'bob@acme.test',
  carol: 'carol@acme.test',
  dave: 'dave@acme.test',
  erin: 'erin@globex.test',
} as const;

export type PersonName = keyof typeof PEOPLE;

export type SeededWorld = {
  credentials: SeededCredentials;
  /** A person's user id. */
  userId(name: PersonName): string;
  /** A person's plaintext demo password. */
  password(name: PersonName): string;
  /** The plaintext key of the tenant's demo agent (`acme-support-bot`, `globex-bot`). */
  agentKey(tenant: 'acme' | 'globex'): string;
  /** The authenticated principal behind the tenant's demo agent key. */
  agent(tenant: 'acme' | 'globex'): Promise<AgentPrincipal>;
};

/** Seeds the demo world (seedDemo) and returns its credentials with look-ups for tests. */
export async function seedWorld(db: Database, previous?: SeededCredentials): Promise<SeededWorld> {
  const credentials = await seedDemo(db, previous);
  const rows = await db.select({ id: users.id, email: users.email }).from(users);
  const ids = new Map(rows.map((row) => [row.email, row.id]));
  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The seeded world has no ${what}.`);
    return value;
  };
  const agentKey = (tenant: 'acme' | 'globex') =>
    must(credentials.agents.find((a) => a.tenant === tenant)?.key, `agent for ${tenant}`);
  return {
    credentials,
    userId: (name) => must(ids.get(PEOPLE[name]), `user ${name}`),
    password: (name) =>
      must(credentials.people.find((p) => p.email === PEOPLE[name])?.password, `password for ${name}`),
    agentKey,
    agent: (tenant) => agentPrincipal(db, agentKey(tenant)),
  };
}

/** A request carrying an agent key the way agents send it. */
export function agentRequest(key: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${key}`);
  return new Request('http://countersign.test/api/v1/proposals', { ...init, headers });
}

/** The principal authenticateAgent derives from a key; throws when the key does not authenticate. */
export async function agentPrincipal(db: Database, key: string): Promise<AgentPrincipal> {
  const principal = await authenticateAgent(db, agentRequest(key));
  if (!principal) throw new Error('The agent key did not authenticate (unknown or revoked).');
  return principal;
}

export type SeededFile = { world: SeededWorld; acme: AgentPrincipal; globex: AgentPrincipal };

/** Seeds the demo world before a file's tests and exposes it with its two agents' principals. */
export function seededWorld(t: { readonly db: Database }): SeededFile {
  const seeded = {} as SeededFile;
  beforeAll(async () => {
    seeded.world = await seedWorld(t.db);
    seeded.acme = await seeded.world.agent('acme');
    seeded.globex = await seeded.world.agent('globex');
  });
  return seeded;
}

/** Seeds the demo world before a file's tests and exposes its two agents' principals. */
export function seededAgents(t: { readonly db: Database }): { acme: AgentPrincipal; globex: AgentPrincipal } {
  return seededWorld(t);
}
