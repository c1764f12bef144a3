import type { Database } from '@/db';
import type { Verdict } from '@/lib/gates/types';

/** Ends a run early with its answer: a refusal, or a proposal found that already answers the request. */
export class Stop<S> {
  constructor(readonly result: S) {}
}

export const stop = <S>(result: S): Stop<S> => new Stop(result);

type Awaitable<T> = T | Promise<T>;

/**
 * One step: reads the context, then adds its own fields to it, or adds nothing (undefined: not `{}`,
 * which would absorb a `Stop` in the step's inferred type), or stops the run.
 */
export type Step<C, Added extends object, S> = (context: C) => Awaitable<Added | Stop<S> | undefined>;

type Intersection<T> = (T extends unknown ? (value: T) => void : never) extends (value: infer I) => void ? I : never;

type Run = (context: Record<string, unknown>) => Promise<Stop<unknown> | undefined>;

/** A stopped run inside a transaction: thrown to roll it back, caught right outside. */
class StoppedInTransaction extends Error {
  constructor(readonly stopped: Stop<unknown>) {
    super('stopped in a transaction');
  }
}

/**
 * An ordered list of named steps over one context object. Each step adds typed fields to it, so
 * a later step reads what an earlier one found and nothing is computed twice; the first step that
 * stops ends the run with its answer, and a step that throws ends it with the error. The context is
 * the caller's object, filled in as the run goes: what a stopped or failed run had found is still
 * there (`Reached`). Lists are values: a flow is built from another's parts by `then`.
 */
export class Pipeline<In extends object, Out extends object, S> {
  private constructor(private readonly runs: readonly { name: string; run: Run }[]) {}

  static start<In extends object>(): Pipeline<In, In, never> {
    return new Pipeline([]);
  }

  /** The steps' names, in the order they run. */
  get names(): string[] {
    return this.runs.map((step) => step.name);
  }

  step<Added extends object = Record<never, never>, S2 = never>(
    name: string,
    run: Step<Out, Added, S2>,
  ): Pipeline<In, Out & Added, S | S2> {
    return this.with(name, async (context) => {
      const result = await run(context as unknown as Out);
      if (result instanceof Stop) return result;
      if (result) Object.assign(context, result);
      return undefined;
    });
  }

  /** A gate: passed, the fields of its value are added; refused, the run stops with the refusal. */
  gate<V, Added extends object, Why = never>(
    name: string,
    run: (context: Out) => Awaitable<Verdict<V, Why>>,
    added: (value: V) => Added,
  ): Pipeline<In, Out & Added, S | Why> {
    return this.step(name, async (context) => {
      const verdict = await run(context);
      return verdict.ok ? added(verdict.value) : stop(verdict.refusal);
    });
  }

  /**
   * Steps that run side by side (reads sent together, writes sent together: one round trip), started
   * in the order given, so statements on one connection are sent in that order. They only add fields;
   * a decision on what they found is a later step.
   */
  together<T extends Record<string, object>>(
    name: string,
    runs: { [K in keyof T]: (context: Out) => Promise<T[K]> },
  ): Pipeline<In, Out & Intersection<T[keyof T]>, S> {
    const parts = Object.values(runs) as ((context: Out) => Promise<object>)[];
    return this.with(`${name}(${Object.keys(runs).join(', ')})`, async (context) => {
      const added = await Promise.all(parts.map((run) => run(context as unknown as Out)));
      Object.assign(context, ...added);
      return undefined;
    });
  }

  /** This list, then another one's steps. */
  then<Added extends object, S2>(next: Pipeline<Out, Added, S2>): Pipeline<In, Out & Added, S | S2> {
    return new Pipeline([...this.runs, ...next.runs]);
  }

  /**
   * Steps that share one transaction: `context.db` is the transaction while they run. A stop rolls
   * it back, as an error does: a stopped run keeps nothing it wrote.
   */
  inTransaction<Added extends object, S2>(
    name: string,
    inner: Pipeline<Out, Added, S2>,
  ): Pipeline<In, Out & Added, S | S2> {
    return this.with(name, async (context) => {
      const outer = context.db as Database;
      try {
        await outer.transaction(async (tx) => {
          context.db = tx;
          const stopped = await inner.runOn(context);
          if (stopped) throw new StoppedInTransaction(stopped);
        });
        return undefined;
      } catch (error) {
        if (error instanceof StoppedInTransaction) return error.stopped;
        throw error;
      } finally {
        context.db = outer;
      }
    });
  }

  /** Runs every step on `context`, in order: the filled context, or the first stop. */
  async run(context: In): Promise<Out | Stop<S>> {
    const stopped = await this.runOn(context as unknown as Record<string, unknown>);
    return stopped ? (stopped as Stop<S>) : (context as unknown as Out);
  }

  private async runOn(context: Record<string, unknown>): Promise<Stop<unknown> | undefined> {
    for (const { run } of this.runs) {
      const stopped = await run(context);
      if (stopped) return stopped;
    }
    return undefined;
  }

  private with<Next extends object, S2>(name: string, run: Run): Pipeline<In, Next, S2> {
    return new Pipeline([...this.runs, { name, run }]);
  }
}

/** What a run's context holds when every step ran. */
export type Output<P> = P extends Pipeline<object, infer Out, unknown> ? Out : never;

/** What a run's context holds wherever it ended: its input, and whatever steps had added by then. */
export type Reached<P> = P extends Pipeline<infer In, infer Out, unknown> ? In & Partial<Out> : never;
