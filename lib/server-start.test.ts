import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';

/**
 * issue 35 §6: a server started in a folder whose `.env` Next.js loaded names what the file set in
 * its start-up line — first, so a refusal that follows (here: no AUTH_SECRET) is read with it.
 * The environment is as @next/env leaves it (lib/env-files.test.ts runs the loader itself).
 */
let folder = '';
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  fs.rmSync(folder, { recursive: true, force: true });
});

it('names the settings a .env supplied before it refuses to start', async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-start-'));
  fs.writeFileSync(path.join(folder, '.env'), 'TRUST_PROXY=1\nOIDC_NAME=Corporate sign-on\n');
  vi.spyOn(process, 'cwd').mockReturnValue(folder);
  vi.stubEnv('NODE_ENV', 'production');
  vi.stubEnv('TRUST_PROXY', '1');
  vi.stubEnv('OIDC_NAME', 'Corporate sign-on');
  vi.stubEnv('AUTH_SECRET', undefined);
  const lines: string[] = [];
  vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void lines.push(`warn ${String(line)}`));
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(`error ${String(line)}`));
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Error(`exit ${code}`);
  });
  const { startServer } = await import('./server-start');
  await expect(startServer()).rejects.toThrow('exit 1');
  expect(lines[0]).toMatch(
    /^warn \[countersign\] settings read from a file, not the environment: \.env \(OIDC_NAME, TRUST_PROXY\)/,
  );
  expect(lines[1]).toMatch(/^error Countersign cannot start: .*AUTH_SECRET is missing/s);
});
