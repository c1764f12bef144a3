import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldIssueSchema } from '@/lib/api/responses/error';
import { ERROR_CODES, ERROR_KINDS } from '@/lib/errors/codes';
import { FINAL_STATUSES, PROPOSAL_STATUSES } from '@/lib/proposals/statuses';

/**
 * The typed client (lib/agent-client) and the Python client (clients/python/countersign) depend on
 * nothing of the server, so each keeps its own copy of what the API answers: the proposal statuses,
 * which of them are final, the fields of a field issue and the statuses of the error body. Each is
 * read here as text (the Python is not run) and held to the product's one definition.
 */
const read = (file: string) => readFileSync(path.join(process.cwd(), file), 'utf8');
const typed = read('lib/agent-client/index.ts');
const models = read('clients/python/countersign/models.py');
const pythonErrors = read('clients/python/countersign/errors.py');

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
const quoted = (text: string) => sorted([...text.matchAll(/['"]([a-z_]+)['"]/g)].map((match) => match[1]!));

/** The text of `name`'s definition up to its terminator, or a failing test when the client renamed it. */
function definition(source: string, pattern: RegExp): string {
  const found = pattern.exec(source);
  expect(found, `${pattern} is no longer in the client`).not.toBeNull();
  return found![1]!;
}

const apiStatuses = sorted(Object.values(ERROR_CODES).map((row) => String(row.status)));

describe('the typed client', () => {
  it('knows every proposal status and no other', () => {
    expect(quoted(definition(typed, /export type ProposalStatus =([^;]+);/))).toEqual(sorted(PROPOSAL_STATUSES));
  });

  it('calls final exactly the final statuses', () => {
    expect(quoted(definition(typed, /export const FINAL_STATUSES[^=]*=\s*\[([^\]]+)\]/))).toEqual(
      sorted(FINAL_STATUSES),
    );
  });

  it('reads a field issue by the fields the API sends', () => {
    const fields = definition(typed, /export type Issue = \{([^}]+)\}/);
    expect(sorted([...fields.matchAll(/(\w+)\??:/g)].map((match) => match[1]!))).toEqual(
      sorted(Object.keys(fieldIssueSchema.shape)),
    );
  });
});

describe('the Python client', () => {
  it('knows every proposal status and no other', () => {
    expect(quoted(definition(models, /^STATUSES = frozenset\(([\s\S]+?)\n\)/m))).toEqual(sorted(PROPOSAL_STATUSES));
  });

  it('calls final exactly the final statuses', () => {
    expect(quoted(definition(models, /^FINAL_STATUSES = frozenset\((\{[^}]+\})\)/m))).toEqual(sorted(FINAL_STATUSES));
  });

  it('reads a field issue by the fields the API sends', () => {
    const body = definition(pythonErrors, /class Issue:\n([\s\S]+?)\n\n\n/);
    expect(sorted([...body.matchAll(/^ {4}(\w+): str$/gm)].map((match) => match[1]!))).toEqual(
      sorted(Object.keys(fieldIssueSchema.shape)),
    );
  });

  it('has an error class only for statuses the API answers with', () => {
    const byStatus = definition(pythonErrors, /_BY_STATUS[^=]*= \{([^}]+)\}/);
    const statuses = [...byStatus.matchAll(/^\s+(\d{3}):/gm)].map((match) => match[1]!);
    expect(statuses.length).toBeGreaterThan(0);
    for (const status of statuses) expect(apiStatuses, `HTTP ${status}`).toContain(status);
  });

  it('documents only kinds the API answers with', () => {
    const kinds = [...pythonErrors.matchAll(/kind ``(\w+)``/g)].map((match) => match[1]!);
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds) expect(ERROR_KINDS).toContain(kind);
  });
});
