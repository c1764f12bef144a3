import { describe, expect, it } from 'vitest';
import { isUnder, mutations } from './json-mutations';

describe('the single changes a verifier property walks', () => {
  it('are every leaf change and null, key deletion, element deletion, duplication, swap, truncation and insertion', () => {
    const all = [...mutations({ a: [1, 'x'], b: { c: true, d: null } })];
    expect(all.map((mutation) => [mutation.name, JSON.stringify(mutation.document)])).toEqual([
      ['delete a', '{"b":{"c":true,"d":null}}'],
      ['null a', '{"a":null,"b":{"c":true,"d":null}}'],
      ['delete [0] of a', '{"a":["x"],"b":{"c":true,"d":null}}'],
      ['duplicate [0] of a', '{"a":[1,1,"x"],"b":{"c":true,"d":null}}'],
      ['swap [0] and [1] of a', '{"a":["x",1],"b":{"c":true,"d":null}}'],
      ['delete [1] of a', '{"a":[1],"b":{"c":true,"d":null}}'],
      ['duplicate [1] of a', '{"a":[1,"x","x"],"b":{"c":true,"d":null}}'],
      ['truncate to 0 a', '{"a":[],"b":{"c":true,"d":null}}'],
      ['truncate to 1 a', '{"a":[1],"b":{"c":true,"d":null}}'],
      ['insert into a', '{"a":[1,"x",1],"b":{"c":true,"d":null}}'],
      ['change a.0', '{"a":[2,"x"],"b":{"c":true,"d":null}}'],
      ['null a.0', '{"a":[null,"x"],"b":{"c":true,"d":null}}'],
      ['change a.1', '{"a":[1,"xx"],"b":{"c":true,"d":null}}'],
      ['null a.1', '{"a":[1,null],"b":{"c":true,"d":null}}'],
      ['delete b', '{"a":[1,"x"]}'],
      ['null b', '{"a":[1,"x"],"b":null}'],
      ['delete b.c', '{"a":[1,"x"],"b":{"d":null}}'],
      ['change b.c', '{"a":[1,"x"],"b":{"c":false,"d":null}}'],
      ['null b.c', '{"a":[1,"x"],"b":{"c":null,"d":null}}'],
      ['delete b.d', '{"a":[1,"x"],"b":{"c":true}}'],
      ['change b.d', '{"a":[1,"x"],"b":{"c":true,"d":"x"}}'],
    ]);
  });

  it('hold a path against the printed "Not verified" lines: "[]" is any index, a path covers what is under it', () => {
    const printed = [
      'decisions[].reason (no hash covers it)',
      'passkeyRegistrations[0] (#12: …)',
      'of, filters (the file’s own word)',
      'proposal.facts',
    ];
    expect(isUnder(['decisions', 3, 'reason'], printed)).toBe(true);
    expect(isUnder(['decisions', 3, 'name'], printed)).toBe(false);
    expect(isUnder(['decisions'], printed)).toBe(false);
    expect(isUnder(['passkeyRegistrations', 0, 'data', 'name'], printed)).toBe(true);
    expect(isUnder(['passkeyRegistrations', 1], printed)).toBe(false);
    expect(isUnder(['filters', 'q'], printed)).toBe(true);
    expect(isUnder(['proposal', 'facts', 'x'], printed)).toBe(true);
    expect(isUnder(['proposal', 'factsx'], printed)).toBe(false);
  });
});
