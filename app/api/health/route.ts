import { sql } from 'drizzle-orm';
import { databaseHandle } from '@/db';

export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const handle = await databaseHandle();
    await handle.db.execute(sql`select 1`);
    return Response.json({ status: 'ok', database: { reachable: true, driver: handle.driver } });
  } catch {
    return Response.json({ status: 'degraded', database: { reachable: false } }, { status: 503 });
  }
}
