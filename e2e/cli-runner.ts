import { spawn } from 'node:child_process';

// The CLI as an operator or auditor runs it: a real process, checked by exit code (0 done, 1
// refused, 2 usage error) and by what it tells the person.

export type CliResult = { code: number | null; stdout: string; stderr: string };

export type CliOptions = {
  stdin?: string;
  /** Through `npm run -s cli --` rather than node directly. */
  viaNpm?: boolean;
  /** Settings to run with (e.g. DATABASE_URL), added after every Countersign setting of ours is removed. */
  env?: Record<string, string>;
};

/** Our environment minus every Countersign setting: a person's shell, where only what they set counts. */
export function withoutCountersignSettings(): NodeJS.ProcessEnv {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(DATABASE_URL|AUTH_.*|SIGNING_KEYS|COUNTERSIGN_.*|E2E_.*|OIDC_.*)$/.test(name))
      continue;
    env[name] = value;
  }
  return env as NodeJS.ProcessEnv;
}

/** Runs the CLI to completion (with a deadline) on `dataDir`, in our environment minus any Countersign settings. */
export function cli(dataDir: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  const env = withoutCountersignSettings();
  env.COUNTERSIGN_DATA_DIR = dataDir;
  Object.assign(env, options.env);
  const [command, commandArgs] = options.viaNpm
    ? ['npm', ['run', '-s', 'cli', '--', ...args]]
    : [process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: process.cwd(), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli ${args.join(' ')} did not finish within 60 s:\n${stdout}${stderr}`));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
