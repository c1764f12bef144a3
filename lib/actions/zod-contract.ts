import { z } from 'zod';
import { toFieldIssues } from '@/lib/input/field-issues';
import type { ActionArgs, ContractStatus, ContractVersion } from './types';

/** A zod schema as JSON Schema (draft 2020-12). */
export const zodJsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;

/** A contract version written in zod: checked by its schema, shown as the JSON Schema zod makes of it. */
export function zodContract<Args extends ActionArgs>(
  version: number,
  status: ContractStatus,
  args: z.ZodType<Args>,
): ContractVersion<Args> {
  return {
    version,
    status,
    zod: args,
    inputSchema: zodJsonSchema(args, 'input'),
    check(value) {
      const parsed = args.safeParse(value);
      return parsed.success
        ? { ok: true, args: parsed.data }
        : { ok: false, issues: toFieldIssues(parsed.error, value, args) };
    },
  };
}
