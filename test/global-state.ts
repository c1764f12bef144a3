/** What a unit file could leave changed for the files after it in a shared process: the environment and the globals. */
export type GlobalState = { env: Record<string, string | undefined>; globals: Map<PropertyKey, unknown> };

export function globalState(): GlobalState {
  const globals = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(globalThis)) {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
    globals.set(key, descriptor && 'value' in descriptor ? descriptor.value : descriptor?.get);
  }
  return { env: { ...process.env }, globals };
}

/**
 * What differs between two states, named: variables set, changed or removed, and globals changed or
 * removed. A global added is not named: a library's first import registers its own (undici's
 * dispatcher, core-js), once per process; a file that adds one on purpose (vi.stubGlobal) is in
 * UNIT_ISOLATED, which test/unit-isolation.test.ts enforces.
 */
export function changedGlobalState(from: GlobalState, to: GlobalState): string[] {
  const found: string[] = [];
  for (const name of new Set([...Object.keys(from.env), ...Object.keys(to.env)])) {
    if (from.env[name] !== to.env[name]) found.push(`process.env.${name}`);
  }
  for (const [key, value] of from.globals) {
    if (!to.globals.has(key) || !Object.is(value, to.globals.get(key))) found.push(`globalThis.${String(key)}`);
  }
  return found;
}
