/**
 * A receiver URL: http(s), no credentials, no fragment (a receiver authenticates us by signature, not by URL userinfo).
 */
export function urlTargetProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.hash) return 'must not have a #fragment';
  return undefined;
}
