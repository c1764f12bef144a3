import { describe, expect, it } from 'vitest';
import type { Database } from '@/db';
import { pass, type Verdict } from '@/lib/gates/types';
import { Pipeline, Stop, stop } from './pipeline';

/** A database whose transactions say how they ended, and whose `tx` is told apart from it. */
function fakeDatabase(log: string[]) {
  const tx = { name: 'tx' } as unknown as Database;
  const db = {
    name: 'db',
    async transaction<T>(run: (inner: Database) => Promise<T>): Promise<T> {
      log.push('begin');
      try {
        const result = await run(tx);
        log.push('commit');
        return result;
      } catch (error) {
        log.push('rollback');
        throw error;
      }
    },
  } as unknown as Database;
  return { db, tx };
}

/** A promise and the function that settles it, to hold a step until the test lets it go on. */
function deferred<T>() {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

describe('Pipeline', () => {
  it('runs its steps in order, each reading the fields the earlier ones added', async () => {
    const log: string[] = [];
    const steps = Pipeline.start<{ base: number }>()
      .step('double', ({ base }) => {
        log.push('double');
        return { doubled: base * 2 };
      })
      .step('add', async ({ base, doubled }) => {
        log.push('add');
        return { sum: base + doubled };
      })
      .gate(
        'positive',
        ({ sum }) => pass({ checked: sum > 0 }),
        (value) => value,
      );
    const ran = await steps.run({ base: 3 });
    expect(ran).toEqual({ base: 3, doubled: 6, sum: 9, checked: true });
    expect(log).toEqual(['double', 'add']);
    expect(steps.names).toEqual(['double', 'add', 'positive']);
  });

  it('stops at the first step that stops: no later step runs, and the context keeps what was found', async () => {
    const log: string[] = [];
    const steps = Pipeline.start<{ n: number }>()
      .step('found', () => ({ found: 'x' }))
      .gate(
        'refuses',
        (): Verdict<number, string> => ({ ok: false, refusal: 'no' }),
        (value) => ({ value }),
      )
      .step('after', () => {
        log.push('after');
        return { after: true };
      });
    const context = { n: 1 };
    const ran = await steps.run(context);
    expect(ran).toBeInstanceOf(Stop);
    expect((ran as Stop<string>).result).toBe('no');
    expect(log).toEqual([]);
    expect(context).toEqual({ n: 1, found: 'x' });
  });

  it('lets a throwing step end the run with its error, unchanged', async () => {
    const log: string[] = [];
    const failure = new Error('the step failed');
    const steps = Pipeline.start<object>()
      .step('throws', () => {
        throw failure;
      })
      .step('after', () => {
        log.push('after');
        return undefined;
      });
    await expect(steps.run({})).rejects.toBe(failure);
    expect(log).toEqual([]);
  });

  it('runs `together` steps side by side, started in the order given, and adds all their fields', async () => {
    const log: string[] = [];
    const first = deferred<void>();
    const steps = Pipeline.start<object>().together('reads', {
      a: async () => {
        log.push('a started');
        await first.promise;
        log.push('a done');
        return { a: 1 };
      },
      b: async () => {
        log.push('b started');
        first.settle();
        return { b: 2 };
      },
    });
    expect(await steps.run({})).toEqual({ a: 1, b: 2 });
    // b started while a still waited, and released it: the two ran at the same time.
    expect(log).toEqual(['a started', 'b started', 'a done']);
    expect(steps.names).toEqual(['reads(a, b)']);
  });

  it('runs `inTransaction` steps on the transaction, commits once they all ran, then gives back the db', async () => {
    const log: string[] = [];
    const { db, tx } = fakeDatabase(log);
    const steps = Pipeline.start<{ db: Database }>().inTransaction(
      'transaction',
      Pipeline.start<{ db: Database }>().step('write', (c) => {
        log.push(c.db === tx ? 'write on tx' : 'write elsewhere');
        return { written: true };
      }),
    );
    expect(await steps.run({ db })).toEqual({ db, written: true });
    expect(log).toEqual(['begin', 'write on tx', 'commit']);
  });

  it('rolls the transaction back when a step in it stops, and ends the run with that stop', async () => {
    const log: string[] = [];
    const { db } = fakeDatabase(log);
    const steps = Pipeline.start<{ db: Database }>()
      .inTransaction(
        'transaction',
        Pipeline.start<{ db: Database }>().step('refuses', () => stop('refused in the transaction')),
      )
      .step('after', () => {
        log.push('after');
        return undefined;
      });
    const context = { db };
    const ran = await steps.run(context);
    expect((ran as Stop<string>).result).toBe('refused in the transaction');
    expect(log).toEqual(['begin', 'rollback']);
    expect(context.db).toBe(db);
  });
});
