import { spawn } from 'node:child_process';

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * The CLI as an auditor runs it, in a process of its own with no DATABASE_URL and `dataDir` as its
 * embedded database folder (give one that does not exist to prove a command opens no database).
 */
export function runCli(args: string[], dataDir: string): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, COUNTERSIGN_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], { cwd: process.cwd(), env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
