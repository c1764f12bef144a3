import { describe, expect, it } from 'vitest';
import { appliedDefaults } from './defaults';

describe('appliedDefaults', () => {
  it.each([
    [
      'nothing when everything was sent',
      '{"args":{"sku":"a","quantity":1},"evidenceRefs":[]}',
      { args: { sku: 'a', quantity: 1 }, evidenceRefs: [] },
      [],
    ],
    [
      'evidenceRefs when left out',
      '{"args":{"sku":"a","quantity":1}}',
      { args: { sku: 'a', quantity: 1 }, evidenceRefs: [] },
      [{ field: 'evidenceRefs', value: [] }],
    ],
    [
      'an argument a contract defaulted',
      '{"args":{"sku":"a"},"evidenceRefs":[]}',
      { args: { sku: 'a', quantity: 1 }, evidenceRefs: [] },
      [{ field: 'args.quantity', value: 1 }],
    ],
    ['nothing for a body that is not an object', '[1]', { args: {}, evidenceRefs: [] }, []],
    ['nothing for text that is not JSON', 'not json', { args: { sku: 'a' }, evidenceRefs: [] }, []],
  ])('%s', (_label, raw, payload, expected) => {
    expect(appliedDefaults(raw, payload)).toEqual(expected);
  });
});
