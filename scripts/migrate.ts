/**
 * `npm run migrate` (the container image's `migrate`): applies the database migrations (drizzle/)
 * and exits, so a deployment can migrate once before it starts or upgrades its servers and
 * workers. They migrate on start too; running this first means none of them waits on it.
 */
import { closeDatabase, databaseHandle, migrateDatabase } from '@/lib/database';
import { env } from '@/lib/env';

async function main(): Promise<void> {
  env();
  const handle = await databaseHandle();
  try {
    await migrateDatabase(handle);
    console.log(`[countersign] migrations applied (${handle.driver})`);
  } finally {
    await closeDatabase();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`[countersign] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
