/**
 * OpenTelemetry end to end (docs/observability.md): the SDK started as the server starts it, pointed
 * at a local OTLP/HTTP receiver; then intake, a decision, dispatch over real HTTP to the executor
 * route, and a failing notification delivery; then what arrived is checked, down to the absence of
 * the argument values and evidence text that went through.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as executorRoute } from '@/app/api/executor/[scope]/route';
import { policies } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { Refusal } from '@/lib/errors/refusal';
import { newId } from '@/lib/ids';
import { dispatchCommands } from '@/lib/jobs/dispatch-commands';
import { createChannel } from '@/lib/notifications/channels';
import { deliverNotifications } from '@/lib/notifications/deliver';
import { fanOutNotifications } from '@/lib/notifications/fanout';
import { setupTestDatabase } from '@/test/db';
import { attributesOf, type OtlpSpan, pointValue, setupOtlpReceiver } from '@/test/fixtures/otlp';
import { submitAs } from '@/test/intake';
import { setupRouteServer } from '@/test/route-server';
import { setupRouteSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';
import { startTelemetry, stopTelemetry, type Telemetry } from './start';

const t = setupTestDatabase();
const service = await setupRouteSystems(t);
const receiver = setupOtlpReceiver();
// The executor route behind a real socket: dispatch's traceparent must cross it.
const executor = setupRouteServer({
  POST: (request) =>
    executorRoute(request, {
      params: Promise.resolve({ scope: decodeURIComponent(new URL(request.url).pathname.split('/').at(-1)!) }),
    }),
});

/** In an argument and nowhere in what is exported. */
const MARKER = 'MARKER-7f3a91-never-exported';

let telemetry: Telemetry;

beforeAll(async () => {
  // The exporters read the standard variable themselves, as in production.
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
  const started = await startTelemetry({
    endpoint: receiver.url,
    disabled: false,
    serviceName: 'countersign-test',
    metricExportIntervalMs: 60_000,
  });
  if (!started) throw new Error('telemetry did not start');
  telemetry = started;
});

afterAll(async () => {
  await stopTelemetry();
  vi.unstubAllEnvs();
});

const attrs = (span: OtlpSpan) => attributesOf(span.attributes);

describe('OpenTelemetry export', () => {
  it('exports spans per gate, decision, dispatch, execution and delivery, and the four metrics, with no argument value or evidence text', async () => {
    const world = await seedWorld(t.db);
    const acme = await world.agent('acme');
    const systems = service.client;
    // Small refunds run at once; the rest need one approver (a newer policy version than the seeded ones).
    const versions = await t.db
      .select({ version: policies.version })
      .from(policies)
      .where(and(eq(policies.tenantId, 'acme'), eq(policies.action, 'issue_refund')));
    await t.db.insert(policies).values({
      id: newId('pol'),
      tenantId: 'acme',
      action: 'issue_refund',
      version: Math.max(0, ...versions.map((row) => row.version)) + 1,
      rules: [
        {
          id: 'auto-small',
          description: 'Small refunds run at once',
          when: { field: 'amountMinor', below: 500 },
          outcome: 'auto_approve',
          approvals: 0,
          role: 'approver',
        },
        {
          id: 'one',
          description: 'Others need one approver',
          when: null,
          outcome: 'needs_approval',
          approvals: 1,
          role: 'approver',
        },
      ],
      expiryHours: 24,
    });
    const refund = (requestId: string, amountMinor: number, orderId = 'ord_1842') => ({
      requestId,
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId, amountMinor, currency: 'USD', reason: `Damaged in transit ${MARKER}` },
      evidenceRefs: ['ticket_message_73'],
    });
    const hook = await createChannel(
      t.db,
      'acme',
      { type: 'user', id: 'test-admin' },
      { kind: 'webhook', target: `${receiver.url}/hook` },
      { targets: { allowedPrivateOrigins: [receiver.url] } },
    );
    if (!hook) throw new Error('no channel');

    const auto = await submitAs(t.db, systems, acme, refund('req_otel_auto', 250));
    expect(auto.proposal.status).toBe('approved');
    const pending = await submitAs(t.db, systems, acme, refund('req_otel_pending', 1500));
    expect(pending.proposal.status).toBe('pending_approval');
    await expect(submitAs(t.db, systems, acme, refund('req_otel_unknown', 100, 'ord_404404'))).rejects.toBeInstanceOf(
      Refusal,
    );
    const decided = await decide(t.db, systems, {
      userId: world.userId('alice'),
      proposalId: pending.proposal.id,
      request: { decision: 'approve', payloadHash: pending.proposal.payloadHash },
    });
    expect(decided.status).toBe('approved');
    expect(await dispatchCommands(t.db, { executorBaseUrl: executor.url })).toMatchObject({ delivered: 2 });
    await fanOutNotifications(t.db, { baseUrl: 'https://countersign.example' });
    const delivery = await deliverNotifications(t.db, {
      mail: { from: 'Countersign <notify@countersign.example>' },
      targets: { allowedPrivateOrigins: [receiver.url] },
    });
    expect(delivery.retrying).toBeGreaterThan(0);
    expect(receiver.others).toBeGreaterThan(0);

    await telemetry.flush();

    const spans = receiver.spans();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    // Only Countersign's spans are exported.
    expect(spans.every((span) => span.name.startsWith('countersign.'))).toBe(true);

    // Intake: one span per request, a child per gate it reached, named by the gate.
    const intakes = named('countersign.intake');
    const intakeOf = (proposalId: string) =>
      intakes.find((span) => attrs(span)['countersign.proposal_id'] === proposalId)!;
    for (const [proposalId, outcome] of [
      [auto.proposal.id, 'auto_approved'],
      [pending.proposal.id, 'pending_approval'],
    ] as const) {
      const intake = intakeOf(proposalId);
      expect(attrs(intake)).toEqual({
        'countersign.tenant_id': 'acme',
        'countersign.proposal_id': proposalId,
        'countersign.action': 'issue_refund',
        'countersign.outcome': outcome,
      });
      const gates = spans.filter((span) => span.parentSpanId === intake.spanId);
      expect(gates.map((span) => span.name).sort()).toEqual(
        ['authority', 'meaning', 'routing', 'rules', 'shape'].map((gate) => `countersign.gate.${gate}`),
      );
      for (const gate of gates) {
        expect(gate.traceId).toBe(intake.traceId);
        expect(attrs(gate)).toEqual({
          'countersign.tenant_id': 'acme',
          'countersign.action': 'issue_refund',
          'countersign.outcome': 'passed',
        });
      }
    }
    // The unknown order: Meaning refuses, answered as not_permitted; there is no proposal.
    const refused = intakes.find((span) => attrs(span)['countersign.outcome'] === 'not_permitted')!;
    expect(attrs(refused)).toEqual({
      'countersign.tenant_id': 'acme',
      'countersign.action': 'issue_refund',
      'countersign.outcome': 'not_permitted',
    });
    expect(refused.status?.code).toBe(2);
    const meaning = spans.find(
      (span) => span.parentSpanId === refused.spanId && span.name === 'countersign.gate.meaning',
    )!;
    expect(attrs(meaning)['countersign.outcome']).toBe('refused');

    const [decision] = named('countersign.decision');
    expect(attrs(decision!)).toEqual({
      'countersign.tenant_id': 'acme',
      'countersign.proposal_id': pending.proposal.id,
      'countersign.action': 'issue_refund',
      'countersign.outcome': 'approved',
    });

    // Dispatch → executor over HTTP: each execution continues its dispatch's trace.
    const dispatches = named('countersign.dispatch');
    expect(dispatches).toHaveLength(2);
    const executions = named('countersign.execution');
    expect(executions).toHaveLength(2);
    for (const execution of executions) {
      const parent = byId.get(execution.parentSpanId ?? '');
      expect(parent?.name).toBe('countersign.dispatch');
      expect(parent?.traceId).toBe(execution.traceId);
      expect(attrs(parent!)).toEqual({
        'countersign.tenant_id': 'acme',
        'countersign.proposal_id': attrs(execution)['countersign.proposal_id'],
        'countersign.outcome': 'delivered',
      });
      expect(attrs(execution)).toMatchObject({
        'countersign.tenant_id': 'acme',
        'countersign.action': 'issue_refund',
        'countersign.outcome': 'succeeded',
      });
    }
    expect(executions.map((span) => attrs(span)['countersign.proposal_id']).sort()).toEqual(
      [auto.proposal.id, pending.proposal.id].sort(),
    );

    const deliveries = named('countersign.notification.delivery');
    expect(deliveries.length).toBeGreaterThan(0);
    for (const span of deliveries)
      expect(attrs(span)).toMatchObject({
        'countersign.tenant_id': 'acme',
        'countersign.action': 'issue_refund',
        'countersign.outcome': 'retrying',
      });

    // Metrics.
    const metric = (name: string) => receiver.metrics().find((found) => found.name === name);
    const sums = (name: string) =>
      (metric(name)?.sum?.dataPoints ?? []).map((point) => ({
        ...attributesOf(point.attributes),
        value: pointValue(point),
      }));
    expect(sums('countersign.proposals')).toEqual(
      expect.arrayContaining([
        { outcome: 'auto_approved', action: 'issue_refund', value: 1 },
        { outcome: 'pending_approval', action: 'issue_refund', value: 1 },
        { outcome: 'not_permitted', action: 'issue_refund', value: 1 },
      ]),
    );
    const decisionTimes = metric('countersign.time_to_decision');
    expect(decisionTimes?.unit).toBe('s');
    expect(
      decisionTimes?.histogram?.dataPoints.map((point) => ({
        ...attributesOf(point.attributes),
        count: Number(point.count),
      })),
    ).toEqual([{ action: 'issue_refund', decision: 'approved', count: 1 }]);
    expect(sums('countersign.executions')).toEqual([{ status: 'succeeded', action: 'issue_refund', value: 2 }]);
    expect(sums('countersign.notification.delivery_failures')).toEqual([{ kind: 'webhook', value: deliveries.length }]);

    expect(
      receiver
        .resources()
        .every((resource) => attributesOf(resource.attributes)['service.name'] === 'countersign-test'),
    ).toBe(true);

    // Never an argument value or evidence text.
    const exported = receiver.raw.join('\n');
    expect(exported).toContain(auto.proposal.id);
    expect(exported).not.toContain(MARKER);
    expect(exported).not.toContain('Damaged in transit');
    expect(auto.proposal.evidence.length).toBeGreaterThan(0);
    for (const evidence of auto.proposal.evidence) expect(exported).not.toContain(evidence.text);
    expect(exported).not.toContain('ord_1842');
  });
});
