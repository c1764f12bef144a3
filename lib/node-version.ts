/**
 * The Node.js release the dependencies need (canonicalize, which computes every payload hash,
 * and six others declare Node ≥ 22). An older Node still runs the demo and the server; it is warned
 * about, never refused, so a machine that cannot upgrade yet is not locked out. The test suite is
 * different: jsdom, under the component tests, needs Node 22.22 or newer and dies with a stack trace
 * on older ones, so `npm test` refuses them in one line at start.
 */
export const REQUIRED_NODE_MAJOR = 22;

/** The oldest Node the suite runs on (jsdom 31's engines: ^22.22.2 || ^24.15.0 || >=26). */
export const SUITE_NODE = { major: 22, minor: 22 } as const;

const parts = (version: string) => version.split('.').map(Number) as [number, number, ...number[]];

/** The warning for a Node older than the dependencies declare, or undefined when it is recent. */
export function oldNodeWarning(version: string = process.versions.node): string | undefined {
  const [major] = parts(version);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return (
    `Warning: Node ${version} is older than the Node ${REQUIRED_NODE_MAJOR}+ Countersign's dependencies ` +
    `declare (Node 20 is past its end of life). It runs, but upgrade to Node ${REQUIRED_NODE_MAJOR} or 24.`
  );
}

export function warnIfOldNode(): void {
  const warning = oldNodeWarning();
  if (warning) console.warn(warning);
}

/** Why `npm test` cannot run on this Node, in one line, or undefined when it can. */
export function suiteNodeProblem(version: string = process.versions.node): string | undefined {
  const [major, minor] = parts(version);
  if (major > SUITE_NODE.major || (major === SUITE_NODE.major && minor >= SUITE_NODE.minor)) return undefined;
  return (
    `npm test needs Node ${SUITE_NODE.major}.${SUITE_NODE.minor}+ (this is Node ${version}): install Node 22 ` +
    `or 24; the demo (npm run demo) still runs here, with a warning.`
  );
}
