import { describe, expect, it } from 'vitest';
import { type CelContext, type CelVariable, compileExpression, holds, numberOf } from './cel';
import { firstBreach, type RuleContext } from './evaluate';

const ALL: CelVariable[] = ['args', 'facts', 'open', 'agent', 'now', 'receipt'];
const compiled = (source: string, variables: readonly CelVariable[] = ALL) => {
  const result = compileExpression(source, variables);
  if ('problem' in result) throw new Error(result.problem);
  return result.expression;
};

const context: CelContext = {
  args: { quantity: 3, sku: 'sku-1', lines: [{ amount: 5 }] },
  facts: { maxHold: 4, warehouse: 'north', rate: 0.5 },
  open: { count: 1, total: 2 },
  agent: { id: 'key_1', grants: { warehouses: ['north'] } },
  now: new Date('2026-01-02T03:04:05Z'),
};

describe('CEL over a definition context', () => {
  it.each([
    ['args.quantity <= facts.maxHold', true],
    ['args.quantity + open.total > facts.maxHold', true],
    ['facts.warehouse in agent.grants.warehouses', true],
    ['args.lines.all(line, line.amount > 0)', true],
    ['facts.rate < 1.0 && facts.rate > 0.25', true],
    ['now > timestamp("2026-01-01T00:00:00Z")', true],
    ['has(args.reason)', false],
    ['args.sku.matches("^sku-[0-9]+$")', true],
  ])('%s → %s', (source, expected) => {
    expect(holds(compiled(source), context)).toBe(expected);
  });

  // Fail closed: anything but a boolean true is a breach.
  it.each([
    ['a missing field', 'args.reason == "x"'],
    ['a type mismatch', 'args.sku > 4'],
    ['division by zero', 'args.quantity / (open.count - 1) > 0'],
    ['a number, not a boolean', 'args.quantity'],
    ['a string, not a boolean', '"true"'],
    ['null', 'null'],
    ['a variable the context lacks', 'receipt.id == "x"'],
    ['an index out of range', 'args.lines[3].amount > 0'],
  ])('%s does not hold', (_label, source) => {
    expect(holds(compiled(source), context)).toBe(false);
  });

  it('never reads a variable its place does not give, even if the context has it', () => {
    expect(compileExpression('receipt.id == "x"', ['args'])).toEqual({
      problem: '"receipt" is not a variable here (args are)',
    });
    expect(compileExpression('[1].exists(x, x == 1) && y', ['args'])).toEqual({
      problem: '"y" is not a variable here (args are)',
    });
  });

  it('refuses message types: only maps and lists are built', () => {
    expect(compileExpression('google.protobuf.Duration{seconds: 1} == x', ['args'])).toMatchObject({
      problem: expect.stringContaining('is no type here'),
    });
  });

  // Every macro inside every macro's body is quadratic in a list an agent sizes; before, beside or
  // feeding another, a macro stays linear.
  const MACROS = [
    (list: string, body: string) => `${list}.all(x, ${body})`,
    (list: string, body: string) => `${list}.exists(x, ${body})`,
    (list: string, body: string) => `${list}.exists_one(x, ${body})`,
    (list: string, body: string) => `${list}.map(x, ${body}).size() > 0`,
    (list: string, body: string) => `${list}.filter(x, ${body}).size() > 0`,
  ];
  const pairs = MACROS.flatMap((outer) => MACROS.map((inner) => [outer, inner] as const));

  it.each(pairs)('refuses a macro inside a macro body (%#)', (outer, inner) => {
    const nested = outer('args.lines', `${inner('args.lines', 'x.amount > 0')}`);
    expect(compileExpression(nested, ['args'])).toEqual({
      problem: expect.stringContaining("inside another's body takes time quadratic"),
    });
    expect(compileExpression(`true && (${nested})`, ['args'])).toEqual({
      problem: expect.stringContaining("inside another's body takes time quadratic"),
    });
  });

  it.each(pairs)('accepts a macro beside or feeding another (%#)', (outer, inner) => {
    const beside = `${outer('args.lines', 'x.amount > 0')} && ${inner('args.lines', 'x.amount > 0')}`;
    expect(compileExpression(beside, ['args'])).toHaveProperty('expression');
    const feeding = `args.lines.filter(x, x.amount > 0).all(y, y.amount > 0) && ${inner('args.lines', 'x.amount > 0')}`;
    expect(compileExpression(feeding, ['args'])).toHaveProperty('expression');
  });

  it('gives numbers for limits, or nothing', () => {
    expect(numberOf(compiled('facts.maxHold - open.total'), context)).toBe(2);
    expect(numberOf(compiled('facts.rate * 2.0'), context)).toBe(1);
    expect(numberOf(compiled('args.sku'), context)).toBeUndefined();
    expect(numberOf(compiled('args.missing'), context)).toBeUndefined();
  });
});

describe('firstBreach', () => {
  const rule = (code: string, require: string) => ({ code, message: `${code} broken`, require: compiled(require) });
  const ruleContext = context as RuleContext;

  it('is the first rule, in order, that does not hold', () => {
    const definition = { rules: [rule('fine', 'true'), rule('limit', 'args.quantity > 3'), rule('later', 'false')] };
    expect(firstBreach(definition, ruleContext)).toEqual({ code: 'limit', message: 'limit broken' });
  });

  it('is a rule whose expression errs', () => {
    expect(firstBreach({ rules: [rule('erring', 'args.nope > 1')] }, ruleContext)).toEqual({
      code: 'erring',
      message: 'erring broken',
    });
  });

  it('is none when every rule holds', () => {
    expect(firstBreach({ rules: [rule('a', 'true'), rule('b', 'args.quantity == 3')] }, ruleContext)).toBeUndefined();
  });
});
