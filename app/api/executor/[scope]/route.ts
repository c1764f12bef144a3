import { executeCommand } from '@/lib/commands/execute';
import { getDb } from '@/lib/database';
import { scopeExists } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { readCappedBody } from '@/lib/http/body';
import { errorResponse } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';
import { continuingTrace } from '@/lib/telemetry/trace';

export const dynamic = 'force-dynamic';

/** A command is a few KiB at most; anything larger is refused unread. */
const MAX_BYTES = 64 * 1024;

/** `POST /api/executor/<scope>` with `Content-Type: application/jose` and the compact JWS as body. */
export async function POST(request: Request, context: { params: Promise<{ scope: string }> }) {
  const { scope } = await context.params;
  try {
    if (!(await scopeExists(await getDb(), scope)))
      throw new Refusal('unknown_scope', 'There is no executor for this scope.');
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/jose')
      throw new Refusal(
        'command_unsupported_media_type',
        'Send the compact JWS with "Content-Type: application/jose".',
      );
    const bytes = await readCappedBody(
      request,
      MAX_BYTES,
      () => new Refusal('command_too_large', 'A command is at most 64 KiB.'),
    );
    const jws = new TextDecoder().decode(bytes).trim();
    // The dispatcher's traceparent, when telemetry is on: this execution continues its trace.
    const execution = await continuingTrace(request.headers, async () => executeCommand(await getDb(), { scope, jws }));
    return Response.json({ execution });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
