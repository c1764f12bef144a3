import { z } from 'zod';
import { oversightSettingsInput } from '@/lib/oversight/settings';

/** The answers of the oversight API (docs/oversight.md). Milliseconds are null where nothing was measured. */
const ms = z.number().int().nullable();

const figures = {
  decisions: z.number().int(),
  approvals: z.number().int(),
  approvalRate: z.number().min(0).max(1),
  waitP50Ms: ms.describe('From the proposal waiting to the decision, median.'),
  waitP95Ms: ms.describe('From the proposal waiting to the decision, 95th percentile.'),
  dwellP50Ms: ms.describe(
    'From the server first serving the proposal to the person to their decision, median; a decision with no ' +
      'recorded first look counts as 0.',
  ),
  dwellP10Ms: ms.describe(
    'From the server first serving the proposal to the person to their decision, 10th percentile; a decision ' +
      'with no recorded first look counts as 0.',
  ),
  dwellMeasured: z
    .number()
    .int()
    .describe('Decisions with a recorded first look before them; the others count as zero dwell.'),
};

export const oversightSettingsSchema = oversightSettingsInput;

export const oversightFiguresSchema = z.strictObject({
  days: z.number().int(),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  settings: oversightSettingsSchema,
  approvers: z.array(
    z.strictObject({
      userId: z.string(),
      name: z.string(),
      ...figures,
      rubberStamp: z.boolean().describe("The person's figures meet all three rubber-stamp thresholds."),
    }),
  ),
  actions: z.array(
    z.strictObject({ action: z.string(), ...figures, expired: z.number().int(), stale: z.number().int() }),
  ),
  channels: z.array(
    z.strictObject({ channel: z.enum(['notification', 'queue', 'page', 'api', 'unknown']), ...figures }),
  ),
  expired: z.number().int(),
  stale: z.number().int(),
});

export const oversightSettingsAnswerSchema = z.strictObject({ settings: oversightSettingsSchema });

export type OversightAnswer = z.input<typeof oversightFiguresSchema>;
