import { nonStarters } from '@/lib/text/stream-safe';

/**
 * The untrusted text that reaches a library call while `run` runs: every string normalized, case
 * folded, segmented or matched by a regular expression (RegExp.prototype.exec is what test, match,
 * matchAll, replace and split call). Only strings longer than MAX_NON_STARTERS are noted: a shorter
 * one cannot hold a run over it (and the one-character probes of lib/text/stream-safe.ts are left
 * out). The library's own work cannot be counted from outside; what reaches it can.
 */
export function libraryCallsOf(run: () => void, minLength = 31): string[] {
  const seen: string[] = [];
  const note = (text: unknown) => {
    if (typeof text === 'string' && text.length >= minLength) seen.push(text);
  };
  const restore: (() => void)[] = [];
  const wrap = <T extends object>(
    target: T,
    name: keyof T & string,
    noted: (self: unknown, args: unknown[]) => unknown,
  ) => {
    const original = target[name] as (...args: unknown[]) => unknown;
    Object.defineProperty(target, name, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        note(noted(this, args));
        return original.apply(this, args);
      },
    });
    restore.push(() => Object.defineProperty(target, name, { configurable: true, writable: true, value: original }));
  };
  const self = (value: unknown) => value;
  const first = (_self: unknown, args: unknown[]) => args[0];
  wrap(String.prototype, 'normalize', self);
  for (const name of ['toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'toLocaleUpperCase', 'localeCompare'] as const)
    wrap(String.prototype, name, self);
  wrap(RegExp.prototype, 'exec', first);
  wrap(Intl.Segmenter.prototype, 'segment', first);
  try {
    run();
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return seen;
}

/** The longest run of non-starters in the text, as UAX #15 §13 counts it (NFKD decomposition of each character). */
export function longestNonStarterRun(text: string): number {
  let run = 0;
  let longest = 0;
  for (const ch of text) {
    const { leading, trailing, allNonStarters } = nonStarters(ch);
    longest = Math.max(longest, run + leading);
    run = allNonStarters ? run + leading : trailing;
  }
  return longest;
}
