/** The database type every query takes first; the process-wide database is opened by lib/database.ts. */
export type { Database } from './client';
