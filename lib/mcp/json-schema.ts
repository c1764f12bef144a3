import type { z } from 'zod';
import { jsonSchema } from '@/lib/contracts/documents';

export type ObjectSchema = Record<string, unknown> & {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
};

/**
 * A zod object schema as a tool's JSON Schema: generated as the contracts' documents are (draft
 * 2020-12), without the `$schema` line, since MCP reads tool schemas in that dialect already.
 */
export function toolSchema(schema: z.ZodType, io: 'input' | 'output'): ObjectSchema {
  return withoutDialect(jsonSchema(schema, io) as Record<string, unknown>);
}

/** A JSON Schema document without its `$schema` line. */
export function withoutDialect(schema: Record<string, unknown>): ObjectSchema {
  const document = { ...schema };
  delete document.$schema;
  return document as ObjectSchema;
}
