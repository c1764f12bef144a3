/**
 * The unit files that mock modules or stub the environment (issue 36 §1). The unit project shares
 * one module graph between its files (`isolate: false`, about a third of the CPU); these run in the
 * `unit-isolated` project, each in a fresh one, so what they replace never reaches another file.
 * `test/unit-isolation.test.ts` fails when a file in the shared project uses one of these calls, and
 * `test/unit-leaks.ts` fails a shared file that leaves the environment or a global changed.
 */
export const UNIT_ISOLATED = [
  // vi.mock of a module the others import for real.
  'lib/http/body.test.ts',
  'lib/telemetry/start.test.ts',
  'test/api-routes.test.ts',
  // vi.stubEnv, and lib/env.ts's settings read fresh from the stubbed environment.
  'lib/server-start.test.ts',
];

/** The calls that replace a module, a global or an environment variable for a whole file. */
export const MODULE_STUBS = /\bvi\s*\.\s*(mock|doMock|unmock|stubGlobal|stubEnv)\s*\(/;
