import { sql } from 'drizzle-orm';
import type { Health } from '@/lib/api/responses/reads';
import { databaseHandle } from '@/lib/database';
import { otherMethods } from '@/lib/http/methods';

export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const handle = await databaseHandle();
    await handle.db.execute(sql`select 1`);
    return Response.json({ status: 'ok', database: { reachable: true, driver: handle.driver } } satisfies Health);
  } catch {
    return Response.json({ status: 'degraded', database: { reachable: false } } satisfies Health, { status: 503 });
  }
}

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
