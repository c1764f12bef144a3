import { getDb } from '@/db';
import { contractDocuments } from '@/lib/contracts/documents';
import { errorResponse } from '@/lib/http/errors';
import { requirePrincipal } from '@/lib/http/principal';

export const dynamic = 'force-dynamic';

/** Every contract version's input and output JSON Schema, for agents (key) and operators (session). */
export async function GET(request: Request) {
  try {
    await requirePrincipal(await getDb(), request);
    return Response.json(contractDocuments(), { headers: { 'Cache-Control': 'private, max-age=60' } });
  } catch (error) {
    return errorResponse(error);
  }
}
