import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
// The repository's own rules, so a rule that stops matching fails here.
import config from '../.dependency-cruiser.cjs';

/** The layer rules of docs/architecture.md, as dependency-cruiser enforces them, run on tiny trees. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

let trees = 0;

/** Writes a tree of files (path → source) into a scratch folder of its own. */
function tree(files: Record<string, string>): { root: string; folders: string[] } {
  const root = path.join(scratch, String(++trees));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), source);
  }
  return { root, folders: [...new Set(Object.keys(files).map((file) => file.split('/')[0]!))] };
}

// The trees import relatively, so the repository's tsconfig (its '@/' paths) is left out.
const treeOptions = { ...config.options, tsConfig: undefined };

/** The names of the rules a tree of files (imports relative) breaks. */
async function broken(files: Record<string, string>): Promise<string[]> {
  const { root, folders } = tree(files);
  const { output } = await cruise(folders, {
    ...treeOptions,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
    baseDir: root,
  });
  return [...new Set((output as ICruiseResult).summary.violations.map((violation) => violation.rule.name))].sort();
}

/**
 * A `'use client'` module outside components/ (a provider or an error page app/ must hold) is held
 * to the components' rule, which dependency-cruiser applies by place and cannot apply by directive:
 * at run time it imports from the product only the browser's places and `'use server'` actions.
 * Answers `client module → product module` for each other import.
 */
async function serverImportsOfClientModules(root: string, folders: string[], options: object): Promise<string[]> {
  const rule = config.forbidden.find((candidate) => candidate.name === 'components-run-only-browser-modules');
  if (!rule || !('to' in rule)) throw new Error('The config has no rule components-run-only-browser-modules.');
  const browser = rule.to.pathNot as string[];
  const directive = (file: string, word: string) =>
    new RegExp(`^\\s*['"]use ${word}['"]`).test(fs.readFileSync(path.join(root, file), 'utf8'));
  const { output } = await cruise(folders, { ...options, baseDir: root });
  return (output as ICruiseResult).modules
    .filter(
      (module) =>
        !module.source.startsWith('components/') && /\.tsx?$/.test(module.source) && directive(module.source, 'client'),
    )
    .flatMap((module) =>
      module.dependencies
        .filter(
          (dependency) =>
            /^(lib|db|app)\//.test(dependency.resolved) && !dependency.dependencyTypes.includes('type-only'),
        )
        .filter(
          (dependency) =>
            !browser.some((place) => new RegExp(place).test(dependency.resolved)) &&
            !directive(dependency.resolved, 'server'),
        )
        .map((dependency) => `${module.source} → ${dependency.resolved}`),
    );
}

// Unused imports count: dependency-cruiser reads the source before TypeScript elides anything.
const imports = (what: string, from: string) => `import ${what} from '${from}';\n`;
const typeFrom = (from: string) => `import type { T } from '${from}';\nexport type Probe = T;\n`;
const value = 'export const v = 1;\nexport type T = number;\n';

describe('layer rules', () => {
  it.each<[string, string[], Record<string, string>]>([
    [
      'a folder importing one above it in the order',
      ['lib-layer-order'],
      { 'lib/actions/x.ts': imports('{ v }', '../gates/y'), 'lib/gates/y.ts': value },
    ],
    [
      'a type from a peer of its own group',
      ['lib-layer-order'],
      { 'lib/contracts/x.ts': typeFrom('../notifications/y'), 'lib/notifications/y.ts': value },
    ],
    [
      'a small module of lib/ itself importing a folder above it',
      ['lib-layer-order'],
      { 'lib/payload-hash.ts': imports('{ v }', './events/y'), 'lib/events/y.ts': value },
    ],
    [
      'a domain folder importing an adapter (the HTTP layer)',
      ['lib-layer-order'],
      { 'lib/decisions/x.ts': imports('{ v }', '../http/y'), 'lib/http/y.ts': value },
    ],
    [
      'the agents’ client importing the product',
      ['lib-layer-order'],
      { 'lib/agent-client/x.ts': typeFrom('../../lib/adapters/y'), 'lib/adapters/y.ts': value },
    ],
    [
      'a new folder of lib/ with no place in the order, importing',
      ['lib-unit-has-a-layer'],
      { 'lib/novel/x.ts': imports('{ v }', '../ids'), 'lib/ids.ts': value },
    ],
    [
      'a new folder of lib/ with no place in the order, imported',
      ['lib-unit-has-a-layer'],
      { 'lib/gates/x.ts': imports('{ v }', '../novel/y'), 'lib/novel/y.ts': value },
    ],
    [
      'two files of one folder importing each other',
      ['module-cycle'],
      {
        'lib/gates/x.ts': "import { y } from './y';\nexport const x = () => y;\n",
        'lib/gates/y.ts': "import { x } from './x';\nexport const y = () => x;\n",
      },
    ],
    [
      'db/ importing a type from lib/',
      ['db-imports-no-lib'],
      { 'db/schema.ts': typeFrom('../lib/actions/flags'), 'lib/actions/flags.ts': value },
    ],
    [
      'a route importing a type from db/',
      ['app-imports-no-db'],
      { 'app/api/route.ts': typeFrom('../../db/schema'), 'db/schema.ts': value },
    ],
    [
      'a component importing a type from db/',
      ['components-import-no-db'],
      { 'components/c.tsx': typeFrom('../db/schema'), 'db/schema.ts': value },
    ],
    [
      'a component importing a domain function',
      ['components-run-only-browser-modules'],
      { 'components/c.tsx': imports('{ v }', '../lib/decisions/decide'), 'lib/decisions/decide.ts': value },
    ],
    [
      'a component importing a value beside a type from a server module',
      ['components-run-only-browser-modules'],
      { 'components/c.tsx': imports('{ v, type T }', '../lib/proposals/view'), 'lib/proposals/view.ts': value },
    ],
    [
      'the dashboard’s API client importing a domain function',
      ['browser-modules-stay-browser-safe'],
      { 'lib/client/x.ts': imports('{ v }', '../decisions/decide'), 'lib/decisions/decide.ts': value },
    ],
    [
      'a shared module importing the database',
      ['browser-modules-stay-browser-safe'],
      { 'lib/shared/x.ts': imports('{ v }', '../../db/client'), 'db/client.ts': value },
    ],
    [
      'a client-safe module not yet in lib/shared/ importing a gate',
      ['browser-modules-stay-browser-safe'],
      { 'lib/proposals/words.ts': imports('{ v }', '../gates/y'), 'lib/gates/y.ts': value },
    ],
    [
      'a shared module importing a Node built-in',
      ['browser-modules-need-no-server'],
      { 'lib/shared/x.ts': imports('{ createHash }', 'node:crypto') },
    ],
    [
      'a shared module importing the server-only marker',
      ['browser-modules-need-no-server'],
      { 'lib/shared/x.ts': "import 'server-only';\nexport const x = 1;\n" },
    ],
    [
      'the allowed directions: app → lib, components → lib/shared and lib/client (and any type), lib down its order, lib → db',
      [],
      {
        'app/page.tsx': imports('{ v }', '../lib/decisions/decide'),
        'components/c.tsx': `${imports('{ v }', '../lib/shared/x')}${imports('{ w }', '../lib/client/y')}${imports('type { T }', '../lib/decisions/decide')}`,
        'lib/client/y.ts': `${imports('{ v }', ['..', 'shared', 'x'].join('/'))}${imports('type { T }', '../decisions/decide')}export const w = 2;\n`,
        'lib/shared/x.ts': `${imports('type { T }', '../../db/schema')}export const v = 1;\n`,
        'lib/decisions/decide.ts': `${imports('{ v }', '../gates/y')}export type T = number;\n`,
        'lib/gates/y.ts': `${imports('{ v }', '../../db/schema')}`,
        'db/schema.ts': value,
      },
    ],
  ])(
    '%s: breaks %j',
    async (_label, rules, files) => {
      expect(await broken(files)).toEqual(rules);
    },
    30_000,
  );
});

describe("'use client' modules outside components/", () => {
  it('in the repository import, at run time, only components/, lib/client/, lib/shared/ and server actions', async () => {
    expect(await serverImportsOfClientModules(process.cwd(), ['app'], config.options)).toEqual([]);
  }, 60_000);

  it.each<[string, string[], Record<string, string>]>([
    [
      'a client page importing a domain function',
      ['app/page.tsx → lib/decisions/decide.ts'],
      {
        'app/page.tsx': `'use client';\n${imports('{ v }', '../lib/decisions/decide')}`,
        'lib/decisions/decide.ts': value,
      },
    ],
    [
      'a client page importing the database',
      ['app/x/page.tsx → db/client.ts'],
      { 'app/x/page.tsx': `"use client";\n${imports('{ v }', '../../db/client')}`, 'db/client.ts': value },
    ],
    [
      'a client form: its server action, a shared module, a component, a type from anywhere',
      [],
      {
        'app/form.tsx': `'use client';\n${imports('{ act }', './actions')}${imports('{ v }', '../lib/shared/x')}${imports('{ C }', '../components/c')}${imports('type { T }', '../lib/decisions/decide')}`,
        'app/actions.ts': `'use server';\n${imports('{ v }', '../lib/decisions/decide')}export async function act() {}\n`,
        'lib/shared/x.ts': value,
        'lib/decisions/decide.ts': value,
        'components/c.tsx': 'export const C = () => null;\n',
      },
    ],
    [
      'a server page may import a domain function',
      [],
      { 'app/page.tsx': imports('{ v }', '../lib/decisions/decide'), 'lib/decisions/decide.ts': value },
    ],
  ])(
    '%s',
    async (_label, found, files) => {
      const { root, folders } = tree(files);
      expect(await serverImportsOfClientModules(root, folders, treeOptions)).toEqual(found);
    },
    30_000,
  );
});
