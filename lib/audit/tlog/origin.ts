import { env } from '@/lib/env';

/**
 * The origin of a tenant's log, the first line of its checkpoints and the name of the key that signs
 * them: `<host of APP_URL>/countersign/<tenant id>` (`localhost` without APP_URL), a schema-less URL
 * as tlog-checkpoint recommends. Changing APP_URL changes the origin: keep it as long as the logs.
 */
export function logOrigin(tenantId: string, appUrl: string | undefined = env().APP_URL): string {
  const host = appUrl ? new URL(appUrl).host : 'localhost';
  return `${host}/countersign/${tenantId}`;
}

/** The tenant whose log an origin names (its last path segment after `/countersign/`), or undefined. */
export function originTenant(origin: string): string | undefined {
  return /\/countersign\/([^/]+)$/.exec(origin)?.[1];
}
