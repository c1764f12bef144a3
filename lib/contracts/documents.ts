import { allActions } from '@/lib/actions/registry';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';
import { envelopeSchema } from '@/lib/input/envelope';

/** A version's status in a tenant: since when, and a supported one's sunset (ISO strings). */
export const versionStatus = (contract: ContractVersion) => ({
  version: contract.version,
  status: contract.status,
  since: contract.since?.toISOString() ?? null,
  sunsetAt: contract.sunsetAt?.toISOString() ?? null,
});

/** A zod schema as JSON Schema (draft 2020-12): the contracts' documents and the MCP tools' schemas. */
import { zodJsonSchema } from '@/lib/actions/zod-contract';

export const jsonSchema = zodJsonSchema;

/**
 * Every action's contract versions as JSON Schema (draft 2020-12), generated from the zod source:
 * what `GET /api/v1/contracts` serves and the dashboard shows. `actions` as a tenant has them
 * (lib/contracts/catalog.ts): each version's status, and a supported one's sunset, are the tenant's.
 */
export function contractDocuments(actions: readonly ActionModule[] = allActions()) {
  return {
    envelope: jsonSchema(envelopeSchema, 'input'),
    actions: actions.map((action) => ({
      action: action.name,
      title: action.title,
      scope: action.scope,
      versions: action.contracts.map((contract) => ({
        ...versionStatus(contract),
        input: contract.inputSchema,
        output: action.outputSchema,
      })),
    })),
  };
}
