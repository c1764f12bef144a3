import { z } from 'zod';
import { allActions } from '@/lib/actions/registry';
import { envelopeSchema } from '@/lib/intake/envelope';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'draft-2020-12', io });

/**
 * Every action's contract versions as JSON Schema (draft 2020-12), generated from the zod source:
 * what `GET /api/v1/contracts` serves and the dashboard shows.
 */
export function contractDocuments() {
  return {
    envelope: jsonSchema(envelopeSchema, 'input'),
    actions: allActions().map((action) => ({
      action: action.name,
      title: action.title,
      scope: action.scope,
      versions: action.contracts.map((contract) => ({
        version: contract.version,
        status: contract.status,
        input: jsonSchema(contract.args, 'input'),
        output: jsonSchema(action.output, 'output'),
      })),
    })),
  };
}
