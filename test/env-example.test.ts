import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '@/lib/env';

/** `.env.example` is the one list a container deployment fills in: it names every setting lib/env.ts reads. */
describe('.env.example', () => {
  const text = fs.readFileSync(path.join(process.cwd(), '.env.example'), 'utf8');
  const named = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));

  it('names every setting of lib/env.ts', () => {
    expect(SETTING_NAMES.filter((name) => !named.has(name))).toEqual([]);
  });

  it('sets no secret: every value it gives is a placeholder or a default', () => {
    const secretNames = ['AUTH_SECRET', 'SIGNING_KEYS', 'SCOPE_CREDENTIALS', 'POSTGRES_PASSWORD', 'COUNTERSIGN_OWNER_PASSWORD', 'COUNTERSIGN_APP_PASSWORD', 'OIDC_CLIENT_SECRET', 'SMTP_URL'];
    const given = [...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].filter((match) => secretNames.includes(match[1]!) && match[2]!.trim() !== '');
    expect(given.map((match) => match[1])).toEqual([]);
  });
});
