import { z } from 'zod';
import { type FileSettings, settingsFromFiles } from './env-files';
// Relative, not '@/': next.config.ts loads this file, and its loader does not resolve the alias.
import { parseOriginList } from './input/origins';

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

/** A DNS host name (letters, digits, hyphens; dot-separated labels). */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

/** A flag that is on unless set to 0/false. */
const flagOn = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value !== '0' && value !== 'false');

/** A whole number with a default, e.g. minutes or requests per minute. */
const wholeNumber = (fallback: string, unit: string) =>
  optionalText
    .transform((value) => value ?? fallback)
    .pipe(z.string().regex(/^\d{1,7}$/, `must be a whole number of ${unit}`))
    .transform(Number);

/** Comma-separated exact origins (`http://127.0.0.1:4030,smtp://127.0.0.1:4025`); unset is none. */
const originList = optionalText.transform((text, ctx) => {
  if (text === undefined) return [];
  const parsed = parseOriginList(text);
  if ('origins' in parsed) return parsed.origins;
  ctx.addIssue({ code: 'custom', message: parsed.problem });
  return z.NEVER;
});

/** One Ed25519 private JWK with a kid, as SIGNING_KEYS holds it (also the rotation CLI's input). */
export const signingKeySchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().min(40),
  d: z.string().min(40),
  kid: z.string().min(1).max(64),
});

/** A setting whose value is JSON text, parsed before its shape is checked. */
const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not JSON' });
    return z.NEVER;
  }
});

/** A JSON array of Ed25519 private JWKs, each with a kid; the first signs, all verify. */
const signingKeys = jsonText.pipe(
  z
    .array(signingKeySchema, { error: 'must be a JSON array of Ed25519 private JWKs with a kid' })
    .min(1, 'must hold at least one key'),
);

/**
 * {"payments": "<credential>", "inventory": "<credential>"}: what each executor scope presents to its system of record.
 */
const scopeCredentials = jsonText.pipe(
  z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), z.string().min(16), {
    error: 'must map scope names to credentials of at least 16 characters',
  }),
);

const settingsSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  /**
   * The owner role's connection, used only to apply migrations (`npm run migrate`, and on start by a
   * process given it); DATABASE_URL is then the application's role (docs/operations.md, "The two
   * database roles"). Unset, migrations run through DATABASE_URL when any are missing.
   */
  MIGRATION_DATABASE_URL: optionalText.pipe(
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
  SIGNING_KEYS: optionalText.pipe(signingKeys.optional()),
  APP_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  PORT: port(3000),
  /** The address `npm run demo` binds the dashboard to; loopback unless set (0.0.0.0 for every interface). */
  HOST: optionalText
    .transform((value) => value ?? '127.0.0.1')
    .pipe(
      z.union([z.ipv4(), z.ipv6(), z.string().regex(HOSTNAME)], {
        error: 'must be an IP address like 127.0.0.1 or 0.0.0.0, or a host name',
      }),
    ),
  DEMO_SYSTEMS_PORT: port(4010),
  /** The demo's local mail catcher (SMTP), where demo email notifications land. */
  DEMO_MAIL_PORT: port(4025),
  /** The demo's local webhook and Slack receiver, with a page listing what arrived. */
  DEMO_SINK_PORT: port(4030),
  /** The bench world: this many extra acme orders, SKUs and tickets in the demo systems of record (0…1,000,000). */
  DEMO_SCALE: wholeNumber('0', 'records').pipe(z.number().int().min(0).max(1_000_000, 'must be at most 1000000')),
  SYSTEMS_OF_RECORD_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  SCOPE_CREDENTIALS: optionalText.pipe(scopeCredentials.optional()),
  /**
   * The most connections kept open to the systems of record (reads and writes share them); more requests wait for one.
   */
  SYSTEMS_OF_RECORD_MAX_SOCKETS: wholeNumber('64', 'connections').pipe(
    z.number().int().min(1, 'must be at least 1').max(4096, 'must be at most 4096'),
  ),
  AGENT_RATE_LIMIT_PER_MINUTE: wholeNumber('1200', 'requests per minute').pipe(z.number().int().min(1)),
  /** Behind a reverse proxy: trust its X-Forwarded-Host/-Proto/-For (the last hop of -For is the client). */
  TRUST_PROXY: flag,
  /** A session ends this long after sign-in, however often it is used. */
  SESSION_MAX_HOURS: wholeNumber('12', 'hours').pipe(
    z
      .number()
      .int()
      .min(1)
      .max(24 * 30),
  ),
  /** A session ends after this long without a request. */
  SESSION_IDLE_MINUTES: wholeNumber('30', 'minutes').pipe(
    z
      .number()
      .int()
      .min(1)
      .max(24 * 60),
  ),
  /** Run the background jobs (dispatch, reconciliation, expiry) inside the web server; 0 when `npm run worker` does. */
  WORKER_IN_PROCESS: flagOn,
  /** Where email notifications are sent: smtp://user:pass@host:587 or smtps://…:465. */
  SMTP_URL: optionalText.pipe(z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional()),
  /**
   * The only non-public addresses notifications may reach: webhook, Slack and SMTP origins on
   * loopback or a private network (the demo's own receivers). Everything else must be public.
   */
  NOTIFY_ALLOWED_PRIVATE_ORIGINS: originList,
  /**
   * The only origins a tenant's action definitions may name as resolver or executor (docs/actions.md):
   * a tenant admin cannot point the server anywhere else. Unset is none: no definition can be published.
   */
  ACTION_ALLOWED_ORIGINS: originList,
  /** The From of email notifications. */
  SMTP_FROM: optionalText.transform((value) => value ?? 'Countersign <countersign@localhost>'),
  OIDC_ISSUER: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_NAME: optionalText.transform((value) => value ?? 'Single sign-on'),
  /**
   * OpenTelemetry over OTLP/HTTP (docs/observability.md): set, the web server and the worker export
   * traces and metrics there; unset, no SDK is loaded. The exporters also read the other standard
   * OTEL_EXPORTER_OTLP_* variables (per-signal endpoints, headers, timeout) themselves.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  ),
  OTEL_SERVICE_NAME: optionalText.transform((value) => value ?? 'countersign'),
  /** The standard switch: telemetry stays off even with an endpoint. */
  OTEL_SDK_DISABLED: flag,
  /** How often metrics are exported, in milliseconds. */
  OTEL_METRIC_EXPORT_INTERVAL: wholeNumber('60000', 'milliseconds').pipe(
    z.number().int().min(100, 'must be at least 100'),
  ),
});

export type Settings = z.infer<typeof settingsSchema>;

/** The name of every setting, for what must list them all (.env.example). */
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as (keyof Settings)[];

const HOW_TO_FIX: Record<string, string> = {
  DATABASE_URL: 'unset it to use the embedded PGlite database, or set postgres://user@host:5432/db',
  MIGRATION_DATABASE_URL:
    "set it to the owner role's postgres://countersign_owner@host:5432/db, with DATABASE_URL set to the " +
    "application role's, or unset it",
  AUTH_SECRET: 'generate one with `openssl rand -base64 33` and set AUTH_SECRET',
  SCOPE_CREDENTIALS: 'set it to a JSON object like {"payments":"…","inventory":"…"}',
  SYSTEMS_OF_RECORD_URL: 'set it to the base URL of your systems of record, e.g. http://127.0.0.1:4010',
  SIGNING_KEYS: 'create them with `npm run cli -- signing-key` and set SIGNING_KEYS to its output',
  HOST: 'unset it to listen on 127.0.0.1 only, or set 0.0.0.0 to listen on every interface',
  SYSTEMS_OF_RECORD_MAX_SOCKETS: 'set it to a whole number of connections from 1 to 4096, or unset it for 64',
  DEMO_SCALE: 'set it to a whole number from 0 to 1000000, or unset it for the plain demo world',
  NOTIFY_ALLOWED_PRIVATE_ORIGINS:
    'set it to comma-separated origins like http://127.0.0.1:4030,smtp://127.0.0.1:4025, or unset it',
  ACTION_ALLOWED_ORIGINS:
    'set it to comma-separated origins like https://actions.example.com,http://127.0.0.1:4010, or unset it',
  SMTP_URL: 'set it like smtp://user:password@mail.example.com:587, or unset it to send no email',
  OIDC_ISSUER: 'set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together, or none of them',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    "set it to your collector's OTLP/HTTP base URL like http://127.0.0.1:4318, or unset it to export nothing",
};

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Countersign cannot start: ${problems.length} setting(s) need ` +
        `attention\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
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
    // One line per setting: the first thing wrong with it (nested detail reads as noise here).
    const bySetting = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? 'settings');
      const message =
        issue.path.length > 1 && name === 'SIGNING_KEYS'
          ? 'is not a JSON array of Ed25519 private JWKs (kty, crv, x, d, kid)'
          : issue.message;
      if (!bySetting.has(name)) bySetting.set(name, message);
    }
    throw new SettingsError([...bySetting].map(([name, message]) => describe(name, message)));
  }
  const settings = parsed.data;
  const problems: string[] = [];
  const oidc = [settings.OIDC_ISSUER, settings.OIDC_CLIENT_ID, settings.OIDC_CLIENT_SECRET];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    problems.push(describe('OIDC_ISSUER', 'is only partly configured'));
  }
  if (settings.MIGRATION_DATABASE_URL && !settings.DATABASE_URL) {
    problems.push(
      describe('MIGRATION_DATABASE_URL', 'is set without DATABASE_URL (the embedded PGlite database has one user)'),
    );
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

/**
 * The settings a `.env*` file in the server's folder supplied (Next.js loads them silently), named in the start-up
 * line.
 */
export function settingsReadFromFiles(dir: string = process.cwd()): FileSettings[] {
  return settingsFromFiles(dir, process.env);
}

export function oidcEnabled(settings: Settings = env()): boolean {
  return Boolean(settings.OIDC_ISSUER && settings.OIDC_CLIENT_ID && settings.OIDC_CLIENT_SECRET);
}

/** The environment for a child process (the demo starts the server): ours plus overrides. */
export function childEnvironment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}

/** What lib/telemetry/start.ts needs: telemetry is on with an endpoint, unless the SDK is disabled. */
export function telemetrySettings(settings: Settings = env()) {
  return {
    endpoint: settings.OTEL_EXPORTER_OTLP_ENDPOINT,
    disabled: settings.OTEL_SDK_DISABLED,
    serviceName: settings.OTEL_SERVICE_NAME,
    metricExportIntervalMs: settings.OTEL_METRIC_EXPORT_INTERVAL,
  };
}

/** Where the systems of record answer: the configured URL, else the demo service on this machine. */
export function systemsOfRecordUrl(settings: Settings = env()): string {
  return settings.SYSTEMS_OF_RECORD_URL ?? `http://127.0.0.1:${settings.DEMO_SYSTEMS_PORT}`;
}
