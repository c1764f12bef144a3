import type { z } from 'zod';

/**
 * A query string against a closed zod object: a repeated parameter, an unknown one (named, with
 * the known ones) and every bad value are refused in words, all at once.
 */
export function parseSearch<S extends z.ZodObject>(
  schema: S,
  search: URLSearchParams,
): { ok: true; data: z.infer<S> } | { ok: false; messages: string[] } {
  const record: Record<string, string> = {};
  const messages: string[] = [];
  for (const [key, value] of search) {
    if (key in record) messages.push(`${key} is given more than once.`);
    record[key] = value;
  }
  const parsed = schema.safeParse(record);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      messages.push(
        issue.code === 'unrecognized_keys'
          ? `Unknown query parameter: ${issue.keys.join(', ')}. Known: ${Object.keys(schema.shape).join(', ')}.`
          : issue.message,
      );
    }
  }
  return parsed.success && messages.length === 0 ? { ok: true, data: parsed.data } : { ok: false, messages };
}
