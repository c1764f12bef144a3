import { describe, expect, it } from 'vitest';
import { BoundedLru } from './lru';

const lru = (maxEntries: number, maxWeight = 1_000) =>
  new BoundedLru<string, string>({ maxEntries, maxWeight, weigh: (value) => value.length });

describe('BoundedLru', () => {
  it('keeps at most maxEntries, dropping the least recently read first', () => {
    const cache = lru(2);
    cache.set('a', 'A');
    cache.set('b', 'B');
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C');

    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
    expect(cache.size).toBe(2);
  });

  it('keeps the total weight within maxWeight, and never an entry heavier than all of it', () => {
    const cache = lru(10, 10);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    cache.set('c', 'cccc');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 'bbbb', 'cccc']);
    expect(cache.totalWeight).toBe(8);

    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.totalWeight).toBe(8);
  });

  it('replaces a key without counting it twice, and forgets everything on clear', () => {
    const cache = lru(10);
    cache.set('a', 'one');
    cache.set('a', 'three');
    expect(cache.get('a')).toBe('three');
    expect([cache.size, cache.totalWeight]).toEqual([1, 5]);

    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    expect([cache.size, cache.totalWeight]).toEqual([0, 0]);
  });

  it('deletes the entries a predicate picks, with their weight', () => {
    const cache = lru(10);
    cache.set('a', 'keep');
    cache.set('b', 'drop');
    cache.set('c', 'drop');
    expect(cache.deleteWhere((value) => value === 'drop')).toBe(2);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['keep', undefined, undefined]);
    expect([cache.size, cache.totalWeight]).toEqual([1, 4]);
  });
});
