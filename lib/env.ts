import { z } from 'zod';

/**
 * The only reader of process.env. Every setting is validated here; a bad one stops start-up with a
 * message that names it and says how to fix it.
 */

const optionalText = z
  .string()
  .transform((value) => (value.trim() === '' ? undefined : value))
  .optional();

const port = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === '' ? String(fallback) : value))
    .pipe(z.string().regex(/^\d{1,5}$/, 'must be a port number like 3000'))
    .transform(Number)
    .pipe(z.number().int().min(1).max(65535));

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const settingsSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  COUNTERSIGN_DATA_DIR: optionalText.transform((value) => value ?? '.data'),
  COUNTERSIGN_DEMO: flag,
  AUTH_SECRET: optionalText.pipe(
    z.string().min(32, 'must be at least 32 characters (openssl rand -base64 33)').optional(),
  ),
  SIGNING_KEYS: optionalText,
  APP_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  PORT: port(3000),
  DEMO_SYSTEMS_PORT: port(4010),
  OIDC_ISSUER: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_NAME: optionalText.transform((value) => value ?? 'Single sign-on'),
});

export type Settings = z.infer<typeof settingsSchema>;

const HOW_TO_FIX: Record<string, string> = {
  DATABASE_URL: 'unset it to use the embedded PGlite database, or set postgres://user@host:5432/db',
  AUTH_SECRET: 'generate one with `openssl rand -base64 33` and set AUTH_SECRET',
  SIGNING_KEYS: 'create them with `npm run cli -- signing-key` and set SIGNING_KEYS to its output',
  OIDC_ISSUER: 'set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together, or none of them',
};

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Countersign cannot start: ${problems.length} setting(s) need attention\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

function describe(name: string, message: string): string {
  const fix = HOW_TO_FIX[name];
  return `${name} ${message}${fix ? ` — ${fix}` : ''}`;
}

export function parseSettings(source: Record<string, string | undefined>): Settings {
  const parsed = settingsSchema.safeParse(source);
  if (!parsed.success) {
    throw new SettingsError(
      parsed.error.issues.map((issue) => describe(String(issue.path[0] ?? 'settings'), issue.message)),
    );
  }
  const settings = parsed.data;
  const problems: string[] = [];
  const oidc = [settings.OIDC_ISSUER, settings.OIDC_CLIENT_ID, settings.OIDC_CLIENT_SECRET];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    problems.push(describe('OIDC_ISSUER', 'is only partly configured'));
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return settings;
}

/** What the web server needs beyond the database: production refuses to run without secrets. */
export function serverProblems(settings: Settings): string[] {
  const problems: string[] = [];
  if (!settings.AUTH_SECRET) problems.push(describe('AUTH_SECRET', 'is missing'));
  if (settings.NODE_ENV === 'production' && !settings.COUNTERSIGN_DEMO && !settings.SIGNING_KEYS) {
    problems.push(describe('SIGNING_KEYS', 'is missing (required in production)'));
  }
  return problems;
}

let cached: Settings | undefined;

export function env(): Settings {
  cached ??= parseSettings(process.env);
  return cached;
}

export function oidcEnabled(settings: Settings = env()): boolean {
  return Boolean(settings.OIDC_ISSUER && settings.OIDC_CLIENT_ID && settings.OIDC_CLIENT_SECRET);
}

/** The environment for a child process (the demo starts the server): ours plus overrides. */
export function childEnvironment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}
