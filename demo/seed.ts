import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, memberships, policies, tenants, users } from '@/db/schema';
import { createAgentKey, createTenant, createUser, grantRole, revokeAgentKey, setPassword } from '@/lib/admin/accounts';
import { hashAgentKey } from '@/lib/agents/authenticate';
import { verifyPassword } from '@/lib/auth/password';
import { publishPolicy } from '@/lib/policy/publish';
import { DEMO_AGENTS, DEMO_PEOPLE, DEMO_POLICIES, DEMO_TENANTS, type DemoCredentials } from './world';

type Secrets = Pick<DemoCredentials, 'people' | 'agents'>;

const demoPassword = () => `demo-${randomBytes(9).toString('base64url')}`;

/**
 * Creates whatever of the demo world is missing. Passwords and keys are random on first seed and
 * kept afterwards (the previous credentials are passed back in), so seeding twice changes nothing.
 */
export async function seedDemo(db: Database, previous?: Secrets): Promise<Secrets> {
  for (const tenant of DEMO_TENANTS) {
    const [existing] = await db.select().from(tenants).where(eq(tenants.id, tenant.id)).limit(1);
    if (!existing) await createTenant(db, tenant);
  }

  const people: Secrets['people'] = [];
  for (const person of DEMO_PEOPLE) {
    const remembered = previous?.people.find((p) => p.email === person.email)?.password;
    let [user] = await db.select().from(users).where(eq(users.email, person.email)).limit(1);
    let password = remembered ?? demoPassword();
    if (!user) {
      user = await createUser(db, { email: person.email, name: person.name, password });
    } else if (!remembered || !(await verifyPassword(user.passwordHash, remembered))) {
      password = demoPassword();
      await setPassword(db, user.id, password);
    }
    const [membership] = await db
      .select()
      .from(memberships)
      .where(and(eq(memberships.userId, user.id), eq(memberships.tenantId, person.tenant)))
      .limit(1);
    if (membership?.role !== person.role)
      await grantRole(db, { tenantId: person.tenant, email: person.email, role: person.role });
    people.push({ email: person.email, password, tenant: person.tenant, role: person.role });
  }

  const agents: Secrets['agents'] = [];
  for (const agent of DEMO_AGENTS) {
    const remembered = previous?.agents.find((a) => a.tenant === agent.tenant && a.name === agent.name)?.key;
    const active = await db
      .select()
      .from(agentKeys)
      .where(
        and(eq(agentKeys.tenantId, agent.tenant), eq(agentKeys.agentName, agent.name), isNull(agentKeys.revokedAt)),
      );
    const kept = remembered ? active.find((row) => row.keyHash === hashAgentKey(remembered)) : undefined;
    let key = remembered;
    if (!kept || !key) {
      for (const stale of active) await revokeAgentKey(db, stale.id);
      key = (
        await createAgentKey(db, {
          tenantId: agent.tenant,
          agentName: agent.name,
          actions: agent.actions,
          grants: agent.grants,
        })
      ).key;
    }
    agents.push({ tenant: agent.tenant, name: agent.name, key, actions: agent.actions });
  }

  for (const tenant of DEMO_TENANTS) {
    for (const policy of DEMO_POLICIES) {
      const [newest] = await db
        .select({ version: policies.version })
        .from(policies)
        .where(and(eq(policies.tenantId, tenant.id), eq(policies.action, policy.action)))
        .orderBy(desc(policies.version))
        .limit(1);
      if ((newest?.version ?? 0) >= policy.version) continue;
      await publishPolicy(db, { tenantId: tenant.id, ...policy }, { type: 'system', id: 'seed' });
    }
  }
  return { people, agents };
}
