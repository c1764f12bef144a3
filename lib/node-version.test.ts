import { describe, expect, it } from 'vitest';
import { oldNodeWarning } from './node-version';

describe('oldNodeWarning', () => {
  it.each([
    ['20.20.2', true],
    ['21.7.3', true],
    ['22.0.0', false],
    ['24.22.3', false],
  ])('Node %s warned: %s', (version, warned) => {
    const warning = oldNodeWarning(version);
    expect(warning !== undefined).toBe(warned);
    if (warned) expect(warning).toContain(`Node ${version}`);
  });
});
