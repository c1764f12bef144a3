import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseSettings, SETTING_NAMES } from '@/lib/env';
import { nextEnvFiles } from '@/lib/env-files';

/** `.env.example` is the one list a container deployment fills in: it names every setting lib/env.ts reads. */
describe('.env.example', () => {
  const text = fs.readFileSync(path.join(process.cwd(), '.env.example'), 'utf8');
  const named = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));

  it('names every setting of lib/env.ts', () => {
    expect(SETTING_NAMES.filter((name) => !named.has(name))).toEqual([]);
  });

  it('sets no secret: every value it gives is a placeholder or a default', () => {
    const secretNames = [
      'AUTH_SECRET',
      'SIGNING_KEYS',
      'SCOPE_CREDENTIALS',
      'POSTGRES_PASSWORD',
      'COUNTERSIGN_OWNER_PASSWORD',
      'COUNTERSIGN_APP_PASSWORD',
      'OIDC_CLIENT_SECRET',
      'SMTP_URL',
    ];
    const given = [...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].filter(
      (match) => secretNames.includes(match[1]!) && match[2]!.trim() !== '',
    );
    expect(given.map((match) => match[1])).toEqual([]);
  });

  it("trusts no proxy: copied as it is, X-Forwarded-For is the client's own word and is ignored", () => {
    expect(parseSettings(parseEnv(text)).TRUST_PROXY).toBe(false);
  });
});

/** Compose's settings file is one no Next.js server loads by itself (issue 35 §6). */
describe('compose.yaml', () => {
  const text = fs.readFileSync(path.join(process.cwd(), 'compose.yaml'), 'utf8');
  const envFiles = [...text.matchAll(/^\s*env_file:\s*(\S+)\s*$/gm)].map((match) => path.normalize(match[1]!));

  it('gives its services docker/compose.env, never a file @next/env loads from the project folder', () => {
    const loadedByNext = new Set(['production', 'development', 'test'].flatMap(nextEnvFiles));
    expect(envFiles.length).toBeGreaterThan(0);
    expect(envFiles.filter((file) => loadedByNext.has(file))).toEqual([]);
    expect(new Set(envFiles)).toEqual(new Set(['docker/compose.env']));
  });
});
