import { NextRequest } from 'next/server';
import { handlers } from '@/lib/auth';
import { readCappedBody } from '@/lib/http/body';
import { bodyTooLarge, errorResponse } from '@/lib/http/errors';

export const { GET } = handlers;

/** A sign-in form is well under a kilobyte; next-auth would otherwise buffer any body whole. */
const MAX_AUTH_BODY_BYTES = 16 * 1024;

const tooLarge = () => bodyTooLarge(MAX_AUTH_BODY_BYTES);

export async function POST(request: NextRequest): Promise<Response> {
  try {
    const body = await readCappedBody(request, MAX_AUTH_BODY_BYTES, tooLarge);
    return await handlers.POST(new NextRequest(request.url, { method: 'POST', headers: request.headers, body }));
  } catch (error) {
    return errorResponse(error);
  }
}
