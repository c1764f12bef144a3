import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { until } from '@/scripts/shared/wait';

describe('until (scripts/shared/wait.ts)', () => {
  it('resolves once the condition holds, asking again until then', async () => {
    let asked = 0;
    await until('the third answer', 60_000, () => ++asked === 3, { pollMs: 1 });
    expect(asked).toBe(3);
  });

  it('fails at once when the watched process has exited, naming it and showing what it said', async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(3)']);
    await once(child, 'exit');
    let asked = 0;
    const waiting = until('health', 60_000, () => (asked++, false), {
      watched: { child, name: 'the server', said: () => 'EADDRINUSE' },
    });
    await expect(waiting).rejects.toThrow('the server exited with code 3 while waiting for health:\nEADDRINUSE');
    expect(asked).toBe(0);
  });

  it('gives up past its time, naming what it waited for', async () => {
    await expect(until('a condition that never holds', 0, () => false, { pollMs: 1 })).rejects.toThrow(
      'gave up waiting for a condition that never holds after 0 s',
    );
  });
});
