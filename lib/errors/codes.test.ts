import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/openapi/document';
import { ERROR_CODES, ERROR_KINDS, type ErrorKey, WIRE_CODES, wireCode } from './codes';

const keys = Object.keys(ERROR_CODES) as ErrorKey[];
const row = (key: ErrorKey): { status: number; kind: string; answersAs?: string; cliOnly?: true } => ERROR_CODES[key];

describe('the closed table of error codes', () => {
  it('gives every key a real error status and a kind clients know', () => {
    for (const key of keys) {
      const { status, kind } = row(key);
      expect({ key, status, named: STATUS_CODES[status] !== undefined }).toEqual({ key, status, named: true });
      expect(status >= 400 && status < 600, `${key}: ${status}`).toBe(true);
      expect(ERROR_KINDS, key).toContain(kind);
    }
  });

  it('answers a key as another only with the code of a row that answers as itself', () => {
    for (const key of keys.filter((each) => row(each).answersAs !== undefined)) {
      const target = row(key).answersAs as ErrorKey;
      expect(keys, `${key} answers as ${target}`).toContain(target);
      expect(row(target).answersAs, `${target} answers as itself`).toBeUndefined();
    }
  });

  it('lists each public code once, the command line only codes left out', () => {
    expect(new Set(WIRE_CODES).size).toBe(WIRE_CODES.length);
    expect([...WIRE_CODES].sort()).toEqual([...new Set(keys.filter((key) => !row(key).cliOnly).map(wireCode))].sort());
  });

  it("is exactly the OpenAPI document's Error.code enum", () => {
    const error = openApiDocument('0.0.0-test').components.schemas.Error as {
      properties: { error: { properties: { code: { anyOf: [{ enum: string[] }, { pattern: string }] } } } };
    };
    const [table, declared] = error.properties.error.properties.code.anyOf;
    expect([...table.enum].sort()).toEqual([...WIRE_CODES].sort());
    // Besides: a tenant's own rule code (`rule_not_met` says which), lower snake case.
    expect(declared.pattern).toBe('^[a-z][a-z0-9]*(_[a-z0-9]+)*$');
  });
});

/**
 * A code outside the table does not compile: `new Refusal` takes only a key of it (and so do the
 * gates, the request bodies and the OpenAPI operations), and tsc runs in `npm test`. Proved here on
 * a two-line file checked against lib/errors alone, beside a control that must compile.
 */
describe('a refusal with a code outside the table', () => {
  const refusal = path.resolve(import.meta.dirname, 'refusal.ts');
  const diagnostics = (key: string) => {
    const file = path.resolve(import.meta.dirname, '__unknown_code__.ts');
    const from = JSON.stringify(refusal.replace(/\.ts$/, ''));
    const text = `import { Refusal } from ${from};\nnew Refusal('${key}', 'No.');\n`;
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    host.readFile = (name) => (path.resolve(name) === file ? text : readFile(name));
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
    const program = ts.createProgram([file], options, host);
    return ts.getPreEmitDiagnostics(program).map((each) => ts.flattenDiagnosticMessageText(each.messageText, '\n'));
  };

  it('compiles with a key of the table', () => {
    expect(diagnostics('hash_mismatch')).toEqual([]);
  });

  it('is a type error with any other', () => {
    expect(diagnostics('brand_new_code').join('\n')).toContain(`'"brand_new_code"' is not assignable`);
  });
});
