import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Definition } from './document';
import { parseDefinition } from './parse';

const read = (name: string) => fs.readFileSync(`demo/actions/${name}.json`, 'utf8');
const hold = () => JSON.parse(read('hold_stock')) as Definition;
type Schema = { properties: Record<string, Record<string, unknown>>; required: string[]; [keyword: string]: unknown };
/** The document with its v1 arguments changed by `change` (on a copy). */
const withArgs = (document: Definition, change: (args: Schema) => void) => {
  const args = structuredClone(document.contracts[0]!.args) as Schema;
  change(args);
  return { ...document, contracts: [{ ...document.contracts[0]!, args }, ...document.contracts.slice(1)] };
};
const problemsOf = (document: unknown) => {
  const result = parseDefinition(JSON.stringify(document));
  return result.ok ? [] : result.problems;
};

describe('the demo definitions', () => {
  it.each(['hold_stock', 'issue_refund'])('%s parses, every expression compiled', (name) => {
    const result = parseDefinition(read(name));
    expect(result.ok ? [] : result.problems).toEqual([]);
    if (!result.ok) return;
    expect(result.definition.document.name).toBe(name);
    expect(result.definition.rules.length).toBe(result.definition.document.rules.length);
    expect(result.definition.contracts.map((contract) => contract.version)).toEqual(
      result.definition.document.contracts.map((contract) => contract.version),
    );
  });
});

// Each bad document, and the problem that names where it is wrong.
const BAD: [string, (document: Definition) => unknown, { path: string; message: RegExp }][] = [
  [
    'an unknown key',
    (d) => ({ ...d, colour: 'red' }),
    { path: 'colour', message: /"colour" is not a field of a definition/ },
  ],
  [
    'an unknown key deep down',
    (d) => ({ ...d, rules: [{ ...d.rules[0]!, when: 'x' }] }),
    { path: 'rules.0.when', message: /not a field/ },
  ],
  ['a name not in snake case', (d) => ({ ...d, name: 'HoldStock' }), { path: 'name', message: /"name" must be/ }],
  ['no executor', (d) => ({ ...d, executor: undefined }), { path: 'executor', message: /"executor" is required/ }],
  [
    'an executor with credentials',
    (d) => ({ ...d, executor: 'https://a:b@example.com/x' }),
    { path: 'executor', message: /"executor" must be/ },
  ],
  [
    'an approve label naming no argument',
    (d) => ({ ...d, approveLabel: 'Approve {nope}' }),
    { path: 'approveLabel', message: /"nope" is no argument of contract v1/ },
  ],
  [
    'a near-limit share over 1',
    (d) => ({ ...d, editing: { locked: [], limit: { field: 'quantity', max: 'facts.maxHold', why: 'x', near: 1.5 } } }),
    { path: 'editing.limit.near', message: /near/ },
  ],
  [
    'a resolver that is no URL at all',
    (d) => ({ ...d, resolve: 'resolver' }),
    { path: 'resolve', message: /"resolve" must be/ },
  ],
  [
    'a file: resolver',
    (d) => ({ ...d, resolve: 'file:///etc/passwd' }),
    { path: 'resolve', message: /"resolve" must be/ },
  ],
  [
    'an open object',
    (d) => withArgs(d, (args) => Object.assign(args, { additionalProperties: true })),
    { path: 'contracts.0.args', message: /^Contract v1's arguments, at \(root\): the object is open/ },
  ],
  [
    'an open object two levels down',
    (d) =>
      withArgs(d, (args) => {
        args.properties.place = {
          type: 'object',
          properties: { shelf: { type: 'object', properties: {}, additionalProperties: {} } },
          required: ['shelf'],
          additionalProperties: false,
        };
        args.required.push('place');
      }),
    { path: 'contracts.0.args', message: /at place\.shelf: the object is open/ },
  ],
  [
    'an untyped field (it would take any object)',
    (d) =>
      withArgs(d, (args) => {
        args.properties.note = { description: 'anything' };
        args.required.push('note');
      }),
    { path: 'contracts.0.args', message: /at note: no type/ },
  ],
  [
    'an open object hidden in $defs behind a $ref',
    (d) =>
      withArgs(d, (args) => {
        args.$defs = { loose: { type: 'object' } };
        args.properties.extra = { $ref: '#/$defs/loose' };
        args.required.push('extra');
      }),
    { path: 'contracts.0.args', message: /"\$ref" is refused/ },
  ],
  [
    'an open object in one branch of a union',
    (d) =>
      withArgs(d, (args) => {
        args.properties.sku = { anyOf: [{ type: 'string', maxLength: 40 }, { type: 'object' }] };
      }),
    { path: 'contracts.0.args', message: /at sku\|anyOf\[1\]: the object is open/ },
  ],
  [
    'an array that says nothing of its items',
    (d) =>
      withArgs(d, (args) => {
        args.properties.tags = { type: 'array', maxItems: 3 };
        args.required.push('tags');
      }),
    { path: 'contracts.0.args', message: /at tags: the array says nothing of its items/ },
  ],
  [
    'an open receipt',
    (d) => ({ ...d, contracts: [{ ...d.contracts[0]!, receipt: { type: 'object', properties: {} } }] }),
    { path: 'contracts.0.receipt', message: /^Contract v1's receipt, at \(root\): the object is open/ },
  ],
  [
    'a construct strict runtimes drop (the contracts lint)',
    (d) =>
      withArgs(d, (args) => {
        args.if = { properties: { quantity: { const: 4 } } };
        args.then = { required: ['sku'] };
      }),
    { path: 'contracts.0.args', message: /conditional subschema/ },
  ],
  [
    'an optional argument without a default (the contracts lint)',
    (d) =>
      withArgs(d, (args) => {
        args.required = ['sku'];
      }),
    { path: 'contracts.0.args', message: /at quantity: an optional field without its default/ },
  ],
  [
    'a keyword JSON Schema does not have',
    (d) =>
      withArgs(d, (args) => {
        args.properties.sku!.maxLenght = 40;
      }),
    { path: 'contracts.0.args', message: /is not a JSON Schema 2020-12 this server can enforce: .*maxLenght/ },
  ],
  [
    'two current versions',
    (d) => ({ ...d, contracts: d.contracts.map((c) => ({ ...c, status: 'current' })) }),
    { path: 'contracts', message: /Exactly one contract version is current; 2 are/ },
  ],
  [
    'a version twice',
    (d) => ({ ...d, contracts: [d.contracts[0], { ...d.contracts[1]!, version: 1 }] }),
    { path: 'contracts.1.version', message: /v1 is defined twice/ },
  ],
  [
    'a rule that does not parse',
    (d) => ({ ...d, rules: [{ ...d.rules[0]!, require: 'args.quantity <=' }] }),
    { path: 'rules.0.require', message: /^Rule hold_limit's require: it does not parse: 1:/ },
  ],
  [
    'a rule reading a variable it is not given',
    (d) => ({ ...d, rules: [{ ...d.rules[0]!, require: 'arg.quantity <= 4' }] }),
    { path: 'rules.0.require', message: /"arg" is not a variable here \(args, facts, open, agent, now are\)/ },
  ],
  [
    'a rule calling a function CEL does not have',
    (d) => ({ ...d, rules: [{ ...d.rules[0]!, require: 'frobnicate(args.quantity)' }] }),
    { path: 'rules.0.require', message: /"frobnicate" is not a CEL function/ },
  ],
  [
    'an authority reading the arguments (the facts name the resource)',
    (d) => ({ ...d, authority: { ...d.authority, require: 'args.sku in agent.grants.warehouses' } }),
    { path: 'authority.require', message: /"args" is not a variable here \(agent, facts are\)/ },
  ],
  [
    'a receipt check that does not parse',
    (d) => ({ ...d, receiptMatches: ['receipt.sku == '] }),
    { path: 'receiptMatches.0', message: /^Receipt match 1: it does not parse/ },
  ],
  [
    'a duplicate rule code',
    (d) => ({ ...d, rules: [d.rules[0], d.rules[0]] }),
    { path: 'rules.1.code', message: /hold_limit is defined twice/ },
  ],
  [
    'a summary naming no argument',
    (d) => ({ ...d, summary: { template: 'Hold {qty} × {sku}' } }),
    { path: 'summary.template', message: /"qty" is no argument of contract v1/ },
  ],
  [
    'claims on a string argument',
    (d) => ({ ...d, claims: 'sku' }),
    { path: 'claims', message: /"sku" is no required integer argument/ },
  ],
  [
    'a locked field that is no argument',
    (d) => ({ ...d, editing: { locked: ['warehouse'] } }),
    { path: 'editing.locked.0', message: /"warehouse" is no argument/ },
  ],
];

describe('parseDefinition refuses', () => {
  it.each(BAD)('%s, naming where', (_label, change, expected) => {
    expect(problemsOf(change(hold()))).toContainEqual({
      path: expected.path,
      message: expect.stringMatching(expected.message),
    });
  });

  it('text that is not JSON (YAML is not read)', () => {
    const result = parseDefinition('name: hold_stock\n');
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      { path: '(document)', message: expect.stringMatching(/^The document is not JSON/) },
    ]);
  });

  it('every problem at once, not the first only', () => {
    const document = { ...hold(), claims: 'sku', rules: [{ code: 'x', require: '1 +', message: 'm' }] };
    expect(problemsOf(document).map((problem) => problem.path)).toEqual(['rules.0.require', 'claims', 'claims']);
  });
});
