/**
 * A team's resolver and executor for `create_deployment` (deployment.json), on one Node server:
 * `node --import tsx scripts/examples/team-action/service.ts`. COUNTERSIGN_URL is Countersign's APP_URL.
 */
import http from 'node:http';
import { executorHandler, nodeHandler, type Receipt, resolverHandler } from '../../../lib/agent-client';

const countersign = process.env.COUNTERSIGN_URL ?? 'http://localhost:3000';
const base = 'http://127.0.0.1:4795/deployments';
const service = { jwks: `${countersign}/.well-known/jwks.json`, issuer: countersign };

// The team's system of record, in memory: its services, and its deployments by idempotency key.
const services: Record<string, { tenant: string; environment: string; frozen: number }> = {
  web: { tenant: 'acme', environment: 'staging', frozen: 0 },
  billing: { tenant: 'acme', environment: 'staging', frozen: 1 },
  api: { tenant: 'acme', environment: 'production', frozen: 0 },
};
const deployments = new Map<string, Receipt>();
const byCommand = new Map<string, Receipt>();

const resolve = resolverHandler({
  ...service,
  url: `${base}/resolve`,
  resolve: ({ tenant, args }) => {
    const found = services[String(args.service)];
    if (!found || found.tenant !== tenant) return undefined;
    const facts = { environment: found.environment, frozen: found.frozen };
    return { tenant, resourceKey: `service:${args.service}`, facts, detail: `${args.service} (${found.environment})` };
  },
});

const execute = executorHandler({
  ...service,
  url: `${base}/execute`,
  scope: 'deploys',
  execute: ({ args, idempotencyKey, jti }) => {
    const receipt = deployments.get(idempotencyKey) ?? {
      deploymentId: `dep_${deployments.size + 1}`,
      service: String(args.service),
      version: String(args.version),
    };
    deployments.set(idempotencyKey, receipt);
    byCommand.set(jti, receipt);
    console.log(`deployed ${receipt.service} ${receipt.version} as ${receipt.deploymentId}`);
    return { receipt };
  },
  lookup: (commandId) => byCommand.get(commandId),
});

const [onResolve, onExecute] = [nodeHandler(resolve), nodeHandler(execute)];
http
  .createServer((req, res) => (req.url?.startsWith('/deployments/resolve') ? onResolve(req, res) : onExecute(req, res)))
  .listen(4795, '127.0.0.1', () => console.log(`resolver and executor at ${base}, trusting ${countersign}`));
