/**
 * The demo systems of record as a standalone service:
 *
 *   node --import tsx scripts/systems.ts [--payments-credential <c> --inventory-credential <c>] \
 *     [--test-mode] [--data-file <path>] [--port <n>]
 *
 * Listens on 127.0.0.1:DEMO_SYSTEMS_PORT (lib/env.ts; --port overrides it, 0 picks a free port),
 * with DEMO_SCALE extra acme orders, SKUs and tickets (the bench world),
 * prints its URL and stops cleanly on SIGTERM or SIGINT. Exit codes: 0 stopped, 1 could not
 * start, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { startSystemsOfRecord } from '@/demo/systems/server';
import { env, SettingsError } from '@/lib/env';

const USAGE =
  'Usage: node --import tsx scripts/systems.ts --payments-credential <c> --inventory-credential <c> [--test-mode] ' +
  `[--data-file <path>] [--port <n>]

  --payments-credential    bearer credential for POST /refunds and refund look-ups (at least 16 characters)
  --inventory-credential   bearer credential for POST /holds and hold look-ups (at least 16 characters, different)
  --test-mode              enable fault injection (/__faults), added evidence (/__evidence) and /__reset
  --data-file <path>       keep refunds and holds in this JSON file across restarts (default: memory only)
  --port <n>               override DEMO_SYSTEMS_PORT (0 picks a free port)`;

function usage(problem: string): never {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        'payments-credential': { type: 'string' },
        'inventory-credential': { type: 'string' },
        'test-mode': { type: 'boolean', default: false },
        'data-file': { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const flags = parse();
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  // Flags win; otherwise the same SCOPE_CREDENTIALS the dashboard uses (kept out of `ps`).
  let configured: Record<string, string> = {};
  try {
    configured = env().SCOPE_CREDENTIALS ?? {};
  } catch (error) {
    console.error(error instanceof SettingsError ? error.message : String(error));
    process.exit(1);
  }
  const payments = flags['payments-credential'] ?? configured.payments;
  const inventory = flags['inventory-credential'] ?? configured.inventory;
  if (!payments || !inventory)
    usage('Give --payments-credential and --inventory-credential, or set SCOPE_CREDENTIALS with both scopes.');
  if (flags.port !== undefined && !/^\d{1,5}$/.test(flags.port)) usage('--port must be a number from 0 to 65535.');

  let port: number;
  let scale: number;
  try {
    port = flags.port === undefined ? env().DEMO_SYSTEMS_PORT : Number(flags.port);
    scale = env().DEMO_SCALE;
  } catch (error) {
    console.error(error instanceof SettingsError ? error.message : String(error));
    process.exit(1);
  }
  if (port > 65535) usage('--port must be a number from 0 to 65535.');

  const service = await startSystemsOfRecord({
    port,
    credentials: { payments, inventory },
    scale,
    testMode: flags['test-mode'],
    dataFile: flags['data-file'],
    log: (line) => console.log(`[systems] ${line}`),
  });
  console.log(`Systems of record listening on ${service.url}${flags['test-mode'] ? ' (test mode)' : ''}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`[systems] ${signal} received, closing`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`[systems] error while closing: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(`The systems of record could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
