import { z } from 'zod';
import type { RequestBody } from '@/lib/input/request-body';

/** `POST /api/v1/admin/contracts/:action/:version`: the status to move to, and a supported version's sunset. */
export const contractStatusSchema = z
  .strictObject({
    status: z.enum(['shadow', 'current', 'supported', 'retired']),
    sunsetAt: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .refine((value) => !value.sunsetAt || value.status === 'supported', {
    path: ['sunsetAt'],
    message: 'only a supported version has a sunset',
  });

export type ContractStatusRequest = z.infer<typeof contractStatusSchema>;

export const contractStatusRequest: RequestBody<ContractStatusRequest> = {
  schema: contractStatusSchema,
  code: 'invalid_contract_status',
  message: 'Send {"status": "shadow" | "current" | "supported" | "retired", "sunsetAt"?: ISO date-time | null}.',
};
