import { env } from '@/lib/env';
import { ApiError } from './errors';

/** The public origin for links: APP_URL when set, else the origin the request was made to. */
export function publicOrigin(request: Request): string {
  return env().APP_URL ? new URL(env().APP_URL!).origin : new URL(request.url).origin;
}

/** Dashboard mutations must come from the dashboard itself (DESIGN.md §11). */
export function assertSameOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  const allowed = new Set([new URL(request.url).origin]);
  if (env().APP_URL) allowed.add(new URL(env().APP_URL!).origin);
  if (!origin || !allowed.has(origin)) {
    throw new ApiError(403, 'forbidden', 'cross_origin', 'This request must come from the Countersign dashboard (same-origin Origin header).');
  }
}
