import { describe, expect, it } from 'vitest';
import { oldNodeWarning, suiteNodeProblem } from './node-version';

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

describe('suiteNodeProblem', () => {
  it.each([
    ['20.20.2', true],
    ['21.7.3', true],
    ['22.21.0', true],
    ['22.22.2', false],
    ['24.22.3', false],
    ['26.0.0', false],
  ])('Node %s refused by npm test: %s', (version, refused) => {
    const problem = suiteNodeProblem(version);
    expect(problem !== undefined).toBe(refused);
    if (refused) {
      expect(problem).toContain(`Node ${version}`);
      expect(problem).not.toContain('\n');
    }
  });
});
