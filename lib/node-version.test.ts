import { expect, it } from 'vitest';
import { oldNodeWarning, suiteNodeProblem } from './node-version';

// The server and the demo warn below Node 22; npm test stops below 22.22 (jsdom), in one line.
it.each([
  { version: '20.20.2', warned: true, refused: true },
  { version: '21.7.3', warned: true, refused: true },
  { version: '22.0.0', warned: false, refused: true },
  { version: '22.21.0', warned: false, refused: true },
  { version: '22.22.2', warned: false, refused: false },
  { version: '24.22.3', warned: false, refused: false },
  { version: '26.0.0', warned: false, refused: false },
])('Node $version: warned $warned, refused by npm test $refused', ({ version, warned, refused }) => {
  for (const [said, expected] of [
    [oldNodeWarning(version), warned],
    [suiteNodeProblem(version), refused],
  ] as const) {
    expect(said !== undefined).toBe(expected);
    if (said) {
      expect(said).toContain(`Node ${version}`);
      expect(said).not.toContain('\n');
    }
  }
});
