import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '@/db/client';

declare module 'vitest' {
  interface ProvidedContext {
    /** A dump of a freshly migrated PGlite database: each test file opens a copy instead of running initdb. */
    pgliteTemplate: string;
  }
}

/**
 * Runs once before the integration-pglite project. A new PGlite runs initdb (3–4 s of WASM on
 * this machine); loading a dump of a migrated one takes about 1 s, so every file starts from it.
 */
export default async function migratedTemplate(project: TestProject): Promise<() => void> {
  const handle = await openDatabase({ memory: true });
  let file: string;
  try {
    await handle.migrate();
    const dump = await handle.dump!();
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-pglite-')), 'template.tar');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await handle.close();
  }
  project.provide('pgliteTemplate', file);
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
