import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';

/** One value in COPY's text format: `\N` for null, backslash, tab and line breaks escaped. */
export function copyField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}

/** One row in COPY's text format. */
export const copyLine = (values: (string | number | null | undefined)[]) => `${values.map(copyField).join('\t')}\n`;

/**
 * Streams lines into `table (columns)` with COPY … FROM STDIN on the given connection (inside a
 * transaction when `sql` is one). Lines are grouped into chunks so the stream is not one write per row.
 */
export async function copyInto(
  sql: postgres.Sql | postgres.TransactionSql,
  table: string,
  columns: readonly string[],
  lines: Iterable<string>,
): Promise<void> {
  function* chunks() {
    let chunk = '';
    for (const line of lines) {
      chunk += line;
      if (chunk.length >= 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  const writable = await sql.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
  await pipeline(Readable.from(chunks()), writable);
}
