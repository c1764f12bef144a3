import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSettings, SettingsError, serverProblems, telemetrySettings } from './env';

const GOOD_SECRET = 'x'.repeat(32);

/** A fresh Ed25519 private JWK with a kid, the shape SIGNING_KEYS holds. */
function signingJwk(kid: string) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d, kid };
}
const JWK = signingJwk('key-1');
const SIGNING_KEYS = JSON.stringify([JWK, signingJwk('key-0')]);

function settingsError(source: Record<string, string | undefined>): SettingsError {
  try {
    parseSettings(source);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error(`parseSettings accepted ${JSON.stringify(source)}`);
}

describe('parseSettings', () => {
  it('accepts an empty environment with documented defaults', () => {
    const settings = parseSettings({});
    expect(settings).toMatchObject({
      NODE_ENV: 'development',
      COUNTERSIGN_DATA_DIR: '.data',
      COUNTERSIGN_DEMO: false,
      PORT: 3000,
      DEMO_SYSTEMS_PORT: 4010,
      DEMO_MAIL_PORT: 4025,
      DEMO_SINK_PORT: 4030,
      DEMO_SCALE: 0,
      SYSTEMS_OF_RECORD_MAX_SOCKETS: 64,
    });
    expect(settings.DATABASE_URL).toBeUndefined();
    expect(settings.AUTH_SECRET).toBeUndefined();
  });

  it('reads a complete configuration', () => {
    const settings = parseSettings({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      AUTH_SECRET: GOOD_SECRET,
      SIGNING_KEYS,
      APP_URL: 'https://countersign.example',
      PORT: '8080',
      DEMO_SYSTEMS_PORT: '4011',
      OIDC_ISSUER: 'https://id.example',
      OIDC_CLIENT_ID: 'countersign',
      OIDC_CLIENT_SECRET: 'shh',
    });
    expect(settings).toMatchObject({
      NODE_ENV: 'production',
      PORT: 8080,
      DEMO_SYSTEMS_PORT: 4011,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
    });
  });

  it('treats empty and blank values as unset', () => {
    expect(parseSettings({ DATABASE_URL: '', AUTH_SECRET: '  ', PORT: '' })).toMatchObject({
      DATABASE_URL: undefined,
      AUTH_SECRET: undefined,
      PORT: 3000,
    });
  });

  it.each([
    ['DATABASE_URL', { DATABASE_URL: 'mysql://root@localhost/db' }],
    ['DATABASE_URL', { DATABASE_URL: '127.0.0.1:5432' }],
    [
      'MIGRATION_DATABASE_URL',
      {
        DATABASE_URL: 'postgres://countersign_app@db/countersign',
        MIGRATION_DATABASE_URL: 'mysql://root@localhost/db',
      },
    ],
    ['MIGRATION_DATABASE_URL', { MIGRATION_DATABASE_URL: 'postgres://countersign_owner@db/countersign' }],
    ['AUTH_SECRET', { AUTH_SECRET: 'too-short-secret-0123456789' }],
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '0' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '3000.5' }],
    ['PORT', { PORT: '-1' }],
    ['DEMO_SYSTEMS_PORT', { DEMO_SYSTEMS_PORT: '99999' }],
    ['APP_URL', { APP_URL: 'ftp://example.test' }],
    ['DEMO_SCALE', { DEMO_SCALE: '1000001' }],
    ['DEMO_SCALE', { DEMO_SCALE: '-5' }],
    ['DEMO_SCALE', { DEMO_SCALE: '2.5' }],
    ['SYSTEMS_OF_RECORD_MAX_SOCKETS', { SYSTEMS_OF_RECORD_MAX_SOCKETS: '0' }],
    ['SYSTEMS_OF_RECORD_MAX_SOCKETS', { SYSTEMS_OF_RECORD_MAX_SOCKETS: '4097' }],
    ['SYSTEMS_OF_RECORD_MAX_SOCKETS', { SYSTEMS_OF_RECORD_MAX_SOCKETS: 'many' }],
    ['NODE_ENV', { NODE_ENV: 'staging' }],
    ['COUNTERSIGN_DEMO', { COUNTERSIGN_DEMO: 'yes' }],
    ['OIDC_ISSUER', { OIDC_ISSUER: 'https://id.example' }],
    ['OIDC_ISSUER', { OIDC_CLIENT_ID: 'countersign', OIDC_CLIENT_SECRET: 'shh' }],
    ['OIDC_ISSUER', { OIDC_ISSUER: 'https://id.example', OIDC_CLIENT_SECRET: 'shh' }],
    ['SIGNING_KEYS', { SIGNING_KEYS: 'not json' }],
    ['SIGNING_KEYS', { SIGNING_KEYS: '[]' }],
    ['SIGNING_KEYS', { SIGNING_KEYS: JSON.stringify(JWK) }],
    ['SIGNING_KEYS', { SIGNING_KEYS: JSON.stringify([{ ...JWK, kid: undefined }]) }],
    ['SIGNING_KEYS', { SIGNING_KEYS: JSON.stringify([{ ...JWK, crv: 'P-256' }]) }],
  ])('throws SettingsError naming %s', (name, source) => {
    const error = settingsError(source);
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems.some((problem) => problem.startsWith(`${name} `))).toBe(true);
    expect(error.message).toContain(name);
  });

  it('names every bad setting at once', () => {
    const error = settingsError({ DATABASE_URL: 'mysql://x', PORT: 'abc', AUTH_SECRET: 'short' });
    const named = error.problems.map((problem) => problem.split(' ')[0]).sort();
    expect(named).toEqual(['AUTH_SECRET', 'DATABASE_URL', 'PORT']);
  });

  it('does not echo a secret it refuses', () => {
    const secret = 'hunter2-not-long-enough';
    const error = settingsError({ AUTH_SECRET: secret });
    expect(error.message).not.toContain(secret);
    expect(error.problems.join('\n')).not.toContain(secret);
    const keys = settingsError({ SIGNING_KEYS: JSON.stringify([{ ...JWK, kid: '' }]) });
    expect(keys.message).not.toContain(JWK.d);
  });

  it('reads HOST, 127.0.0.1 when unset, as an IP address or a host name', () => {
    expect(parseSettings({}).HOST).toBe('127.0.0.1');
    for (const host of ['0.0.0.0', '::', '::1', '192.168.1.20', 'countersign.internal'])
      expect(parseSettings({ HOST: host }).HOST).toBe(host);
    for (const host of ['http://0.0.0.0', '0.0.0.0:3000', 'two words']) {
      expect(settingsError({ HOST: host }).problems).toEqual([
        expect.stringMatching(/^HOST must be an IP address like 127\.0\.0\.1 or 0\.0\.0\.0, or a host name — /),
      ]);
    }
  });

  it('reads DEMO_SCALE up to a million', () => {
    expect(parseSettings({ DEMO_SCALE: '20000' }).DEMO_SCALE).toBe(20000);
    expect(parseSettings({ DEMO_SCALE: '1000000' }).DEMO_SCALE).toBe(1_000_000);
  });

  it('reads SYSTEMS_OF_RECORD_MAX_SOCKETS as a number of connections', () => {
    expect(parseSettings({ SYSTEMS_OF_RECORD_MAX_SOCKETS: '8' }).SYSTEMS_OF_RECORD_MAX_SOCKETS).toBe(8);
  });

  it('reads the OpenTelemetry settings: off without an endpoint, on with one unless OTEL_SDK_DISABLED', () => {
    expect(telemetrySettings(parseSettings({}))).toEqual({
      endpoint: undefined,
      disabled: false,
      serviceName: 'countersign',
      metricExportIntervalMs: 60_000,
    });
    const on = parseSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'countersign-eu',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(telemetrySettings(on)).toEqual({
      endpoint: 'http://collector:4318',
      disabled: true,
      serviceName: 'countersign-eu',
      metricExportIntervalMs: 15_000,
    });
    const [problem] = settingsError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).problems;
    expect(problem).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL — set it to your collector's OTLP\/HTTP base URL/,
    );
  });

  it('reads SIGNING_KEYS as the list of keys, first one first', () => {
    const settings = parseSettings({ SIGNING_KEYS });
    expect(settings.SIGNING_KEYS?.map((key) => key.kid)).toEqual(['key-1', 'key-0']);
  });
});

describe('serverProblems', () => {
  const production = { NODE_ENV: 'production' };

  it('reports a missing AUTH_SECRET and missing SIGNING_KEYS in production', () => {
    const problems = serverProblems(parseSettings(production));
    expect(problems).toHaveLength(2);
    expect(problems.some((problem) => problem.startsWith('AUTH_SECRET '))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('SIGNING_KEYS '))).toBe(true);
  });

  it('reports only SIGNING_KEYS when AUTH_SECRET is set in production', () => {
    const problems = serverProblems(parseSettings({ ...production, AUTH_SECRET: GOOD_SECRET }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SIGNING_KEYS /);
  });

  it('reports only AUTH_SECRET when SIGNING_KEYS is set in production', () => {
    const problems = serverProblems(parseSettings({ ...production, SIGNING_KEYS }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^AUTH_SECRET /);
  });

  it('has nothing to report for a configured production server', () => {
    expect(serverProblems(parseSettings({ ...production, AUTH_SECRET: GOOD_SECRET, SIGNING_KEYS }))).toEqual([]);
  });

  it('does not require SIGNING_KEYS in development or in the demo', () => {
    expect(serverProblems(parseSettings({ AUTH_SECRET: GOOD_SECRET }))).toEqual([]);
    expect(serverProblems(parseSettings({ ...production, COUNTERSIGN_DEMO: '1', AUTH_SECRET: GOOD_SECRET }))).toEqual(
      [],
    );
  });
});
