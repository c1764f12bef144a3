import type { Database } from '@/db';
import { tenantActions } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import type { SystemsClient } from '@/lib/systems/client';
import { newestPolicy, samePolicy } from './current';
import { type PolicyPreview, policyPreviewSchema } from './requests';
import { routeLive } from './routing';
import { actionAt, boundIssues, invalid, policyIssues } from './validate';

const INVALID = 'The preview is not valid: see the issues, each naming its field.';

/**
 * `POST /api/v1/admin/policies/preview`: what a draft policy would do with a sample proposal,
 * computed by the router itself (`routeLive`, as the Routing gate calls it). The sample's args are
 * checked against the action's current contract and its resource is resolved inside the tenant
 * (Meaning), because aggregate bounds sum the tenant's real proposals on that resource as of now —
 * exactly what intake would add up if the sample arrived at this moment. Nothing is written.
 */
export async function previewPolicy(
  db: Database,
  systems: SystemsClient,
  tenantId: string,
  input: unknown,
  now = new Date(),
): Promise<PolicyPreview> {
  const parsed = policyPreviewSchema.safeParse(input);
  if (!parsed.success)
    throw invalid('invalid_preview', INVALID, policyIssues(parsed.error, input, policyPreviewSchema));
  const { rules, expiryHours, sample } = parsed.data;
  const found = actionAt(await tenantActions(db, tenantId), parsed.data.action, 'action');
  if ('issue' in found) throw invalid('invalid_preview', INVALID, [found.issue]);
  const { action } = found;
  const ruleIssues = boundIssues(action, rules, 'rules');
  if (ruleIssues.length > 0) throw invalid('invalid_preview', INVALID, ruleIssues);

  const contract = action.contracts.find((each) => each.status === 'current');
  if (!contract) throw new Error(`${action.name} has no current contract`);
  const args = contract.check(sample.args);
  if (!args.ok) {
    const issues = args.issues.map((each) => ({
      ...each,
      field: `sample.args.${each.field}`,
    }));
    throw invalid(
      'invalid_sample',
      `The sample is not a valid ${action.name} v${contract.version} proposal: see the issues.`,
      issues,
    );
  }
  const resolution = await action.resolve(systems, tenantId, args.args);
  if (!resolution)
    throw new Refusal(
      'sample_not_found',
      `The sample's resource does not exist in this tenant; name one that does, as an agent's proposal would have to.`,
    );

  const current = await newestPolicy(db, tenantId, action);
  // The version the draft would route as: the newest one if saving would change nothing, else the next.
  const draft = {
    version: samePolicy(current, { rules, expiryHours }) ? current.version : current.version + 1,
    rules,
    expiryHours,
  };
  const { routing } = await routeLive(
    db,
    { tenantId, action: action.name, resourceKey: resolution.resourceKey, now },
    draft,
    args.args,
  );
  const index = rules.findIndex((rule) => rule.id === routing.rule);
  return {
    action: action.name,
    routing,
    rule: index >= 0 ? { index, id: rules[index]!.id, description: rules[index]!.description } : null,
    expiryHours,
    resource: resolution.detail,
    evaluatedAt: now.toISOString(),
    usesAggregates: rules.some((rule) => rule.when?.aggregate !== undefined),
  };
}
