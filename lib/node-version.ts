/**
 * The Node.js release the dependencies need (canonicalize, which computes every payload hash,
 * and six others declare Node ≥ 22). An older Node still runs everything we test; it is warned
 * about, never refused, so a machine that cannot upgrade yet is not locked out.
 */
export const REQUIRED_NODE_MAJOR = 22;

/** The warning for a Node older than the dependencies declare, or undefined when it is recent. */
export function oldNodeWarning(version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return `Warning: Node ${version} is older than the Node ${REQUIRED_NODE_MAJOR}+ Countersign's dependencies declare (Node 20 is past its end of life). It runs, but upgrade to Node ${REQUIRED_NODE_MAJOR} or 24.`;
}

export function warnIfOldNode(): void {
  const warning = oldNodeWarning();
  if (warning) console.warn(warning);
}
