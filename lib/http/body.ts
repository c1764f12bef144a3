/**
 * The one way a route reads a request body: as a stream, counted, and abandoned the moment it
 * passes `maxBytes` (a declared Content-Length over the cap is refused before reading anything).
 * Nothing larger than the cap is ever buffered, chunked or not.
 */
export async function readCappedBody(request: Request, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
