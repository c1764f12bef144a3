/** `npm run cli -- <command>`: administer tenants, people, agent keys and notification channels. */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair } from 'jose';
import { ZodError } from 'zod';
import { type Database, type DatabaseHandle, openDatabase } from '@/db/client';
import { rolesSql } from '@/db/roles';
import { type Role, tenants, users } from '@/db/schema';
import {
  changePassword,
  createAgentKey,
  createTenant,
  createUser,
  endSessionsOf,
  grantRole,
  removeMember,
  revokeAgentKey,
} from '@/lib/admin/accounts';
import { type PinnedPeople, peopleFileSchema } from '@/lib/audit/bundle-passkeys';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { CheckpointError, checkpointFileSchema, jwksFileSchema, verifyCheckpoint } from '@/lib/audit/checkpoint';
import { describeExportBreak, verifyExportLines } from '@/lib/audit/export-verify';
import { NoteError, type TreeHead, verifyCheckpoint as verifyCheckpointNote } from '@/lib/audit/tlog/note';
import { originTenant } from '@/lib/audit/tlog/origin';
import { type ConsistencyProofFile, consistencyProofSchema } from '@/lib/audit/tlog/proofs';
import { type CheckpointClaim, describeBreak, uncoveredRows } from '@/lib/audit/verify';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { ROLES } from '@/lib/auth/roles';
import { pauseExecutions, pauseInput, resumeExecutions } from '@/lib/commands/executions-pause';
import { publishableKeyFile, redirectedStdout } from '@/lib/commands/key-file';
import { contractDocuments } from '@/lib/contracts/documents';
import { lintContracts, type VersionLint } from '@/lib/contracts/lint';
import { migrateDatabase } from '@/lib/database';
import { tenantActions } from '@/lib/definitions/catalog';
import { definitionListLines, definitionPlanLines, planDefinition } from '@/lib/definitions/plan';
import { publishDefinition } from '@/lib/definitions/store';
import { env, SettingsError } from '@/lib/env';
import { Refusal } from '@/lib/errors/refusal';
import { NOTIFICATION_EVENT_NAMES } from '@/lib/events/registry';
import { revokeGrant } from '@/lib/grants/end';
import { listGrants } from '@/lib/grants/list';
import { grantLines, grantUseWords } from '@/lib/grants/words';
import { describeRepair, reconcileClaims } from '@/lib/jobs/reconcile-claims';
import { channelInput, createChannel, listChannels, type PublicChannel } from '@/lib/notifications/channels';
import { CHANNEL_KIND_NAMES } from '@/lib/notifications/kinds/registry';
import {
  type DecisionFigures,
  OVERSIGHT_MAX_DAYS,
  type OversightFigures,
  oversightDays,
  tenantOversight,
} from '@/lib/oversight/figures';
import { decodeInstantCursor, type InstantCursor } from '@/lib/paging/instant-cursor';
import { listPasskeys } from '@/lib/passkeys/registration';
import { removePasskey } from '@/lib/passkeys/removal';
import { setPasskeysRequired } from '@/lib/passkeys/tenant-setting';
import { backtestDays, type PolicyPlan, planPolicies } from '@/lib/policy/plan';
import { durationWords, percentWords } from '@/lib/shared/oversight-words';
import { flipCounts, flipInWords } from '@/lib/shared/policy-words';
import { type PublicJwk, retireKey, rotateKeySet } from '@/lib/signing/keys';

const USAGE = `Usage: npm run cli -- <command> [options]

  create-tenant <id> [--name <name>]
  create-user <email> --name <name> [--password-stdin]   (without --password-stdin a password is generated and printed
                                                          once)
  set-password <email> [--password-stdin]                (ends all of that person's sessions)
  grant <email> <tenant> <viewer|approver|admin>
  remove-member <email> <tenant>                          (ends all of that person's sessions; never the last admin)
  end-sessions <email>                                    (signs the person out everywhere)
  create-agent-key <tenant> <agent-name> --actions <a,b> [--grant <name=v1,v2>]...
  revoke-agent-key <key-id>
  add-channel --tenant <id> --kind <${CHANNEL_KIND_NAMES.join('|')}> --target <url-or-address>
              [--events <a,b>] [--digest <0-100>]
                                                          (a webhook's signing secret is printed once; events default to
                                                          all; more than --digest messages within a minute go as one
                                                          digest, 0 never, default 5)
  list-channels <tenant>                                  (never prints secrets)
  executions:pause --tenant <id> [--reason <text>]        (emergency stop: approved commands wait, no expiry is counted)
  executions:resume --tenant <id>                         (pending deadlines move on by the time paused; waiting
                                                          commands go out)
  audit:verify [--tenant <id>] [--checkpoint FILE]... [--keys FILE]
                                                          (recomputes every audit chain; exits 1 naming the first bad
                                                          sequence number)
  audit:verify --export FILE [--checkpoint FILE]... [--consistency FILE] [--keys FILE]
                                                          (verifies a saved JSON Lines export against the checkpoint it
                                                          ends with, no database needed: a whole one by its tree root, a
                                                          filtered one by each row's inclusion proof; an earlier
                                                          --checkpoint must be a prefix of its checkpoint — for a
                                                          filtered export proven by --consistency; a rolled-back or
                                                          forked log fails)
  claims:reconcile                                        (sets every resource's claims row that differs from the sum
                                                          over its open proposals to that sum, printing each repair; the
                                                          worker also runs it every 10 min)
  bundle:verify FILE [--keys FILE] [--passkeys FILE]      (checks an evidence bundle offline, no database needed, each
                                                          passkey signature too; --passkeys people.json pins the keys
                                                          people gave you)
  passkeys:list <email>                                   (the person's passkeys: id, name, added, last used)
  passkeys:remove <passkey-id>                            (removes a lost passkey, even someone's last; audited as an
                                                          admin reset)
  passkeys:require --tenant <id> <on|off>                 (whether every approval in the tenant must be signed with a
                                                          passkey)
  contracts:lint [--schema FILE] [--json]                 (lints every contract version's JSON Schema, or one schema
                                                          file, against what strict tool-calling runtimes enforce; exits
                                                          1 on an error; no database needed)
  policy:plan FILE --tenant <id> [--days N]               (what publishing the policy document in FILE would change, in
                                                          words, and the proposals of the last N days (1–365, default
                                                          30) whose routing would flip; writes nothing)
  actions:plan FILE --tenant <id>                         (checks the action definition in FILE (JSON) and says what
                                                          publishing it would change against the tenant's current
                                                          version, naming each change that breaks agents; writes
                                                          nothing; exits 1 on a problem)
  actions:apply FILE --tenant <id> --note <text>          (publishes it as the action's next version, audited as
                                                          action.published; refuses a problem or an unchanged
                                                          document; not yet read by intake)
  actions:list --tenant <id>                              (the tenant's action definitions, newest version of each)
  oversight --tenant <id> [--days N]                      (decisions, approval rate, time to decide and dwell per
                                                          approver, action and channel over the last N days (1–90,
                                                          default 7); marks rubber-stamp suspects)
  grants --tenant <id> [--active]                         (standing grants, newest first: state, what each covers, its
                                                          use, granter, reason)
  grants:revoke <grant-id> [--reason <text>]              (ends a standing grant at once; audited as grant.revoked by
                                                          the CLI)
  db:roles [--database <name>] [--owner <role>]           (prints the SQL a PostgreSQL superuser runs once to make the
                                                          owner role (default countersign_owner) and the application's
                                                          role countersign_app, and to hand an existing install to the
                                                          owner; docs/operations.md; no database needed)
  signing-key                                             (prints a new Ed25519 key set for SIGNING_KEYS)
  rotate-signing-keys                                     (reads SIGNING_KEYS JSON on stdin, prints it with a new key
                                                          first: it signs, the old ones still verify)
  retire-signing-key <kid>                                (reads SIGNING_KEYS JSON on stdin, prints it without that kid;
                                                          never leaves zero keys)

Uses DATABASE_URL when set, else the embedded database in COUNTERSIGN_DATA_DIR (default .data); applies missing
migrations first, through MIGRATION_DATABASE_URL (the owner role) when that is set.
Exit codes: 0 done, 1 refused (the message says why), 2 usage error.`;

/** Who the CLI's audited changes name. */
const CLI_ACTOR = { type: 'system' as const, id: 'cli' };

class UsageError extends Error {}

/** A key set given on stdin: refused (exit 1) unless it is a JSON array of Ed25519 private JWKs. */
class KeySetError extends Error {}

/** Input the command understood but refuses (exit 1), one line per problem. */
class RefusedError extends Error {}

/** Private keys go to standard output; never into a file `git add .` would publish (lib/commands/key-file.ts). */
function refuseKeyFileInWorkTree() {
  const file = redirectedStdout();
  const problem = file === undefined ? undefined : publishableKeyFile(file);
  if (problem) throw new RefusedError(problem);
}

const CHANNEL_FLAGS: Record<string, string> = {
  kind: '--kind',
  target: '--target',
  events: '--events',
  digestThreshold: '--digest',
};

/** What is wrong with a channel's flags, one sentence per problem, naming the flag. */
function channelProblems(input: {
  kind: string;
  target: string;
  events?: string[];
  digestThreshold?: unknown;
}): string[] {
  const parsed = channelInput.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const [field, index] = issue.path;
    const flag = CHANNEL_FLAGS[String(field)] ?? String(field ?? 'input');
    if (field === 'events' && typeof index === 'number') {
      return (
        `${flag}: "${input.events?.[index]}" is not a notification event ` +
        `(known: ${NOTIFICATION_EVENT_NAMES.join(', ')})`
      );
    }
    if (field === 'target')
      return `${flag} of ${/^[aeiou]/.test(input.kind) ? 'an' : 'a'} ${input.kind} channel ${issue.message}`;
    return `${flag} ${issue.message}${field === 'kind' ? ` (got "${input.kind}")` : ''}`;
  });
}

function lintLines(version: VersionLint): string[] {
  const name = version.status === 'file' ? version.action : `${version.action} v${version.version} (${version.status})`;
  return [
    `${name}: ${version.errors} error(s), ${version.warnings} warning(s)`,
    ...version.findings.map(
      (finding) =>
        `  ${finding.severity.padEnd(7)} ${finding.code} at ${finding.path}: ${finding.message}` +
        (finding.runtimes.length > 0 ? ` [${finding.runtimes.join(', ')}]` : ''),
    ),
  ];
}

function channelLine(channel: PublicChannel): string {
  return (
    `${channel.id}  ${channel.kind.padEnd(7)} ${channel.enabled ? 'enabled ' : 'disabled'}  ${channel.target}\n` +
    `    events: ${channel.events.join(', ')}`
  );
}

function parseKeySetText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new KeySetError('stdin is not JSON: pipe in the current SIGNING_KEYS value');
  }
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function readTextFile(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    throw new RefusedError(`cannot read ${file}`);
  }
}

async function readJsonFile(file: string): Promise<unknown> {
  const text = await readTextFile(file);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RefusedError(`${file} is not JSON`);
  }
}

/** A saved JWKS (`/.well-known/jwks.json`): the keys an auditor trusts. */
async function readJwks(file: string): Promise<PublicJwk[]> {
  const parsed = jwksFileSchema.safeParse(await readJsonFile(file));
  if (!parsed.success) throw new RefusedError(`${file} is not a JWKS of Ed25519 public keys ({"keys": [...]})`);
  return parsed.data.keys;
}

/**
 * A saved `GET /api/v1/audit/checkpoint` answer, verified against the trusted keys (else its own):
 * its JWS claim, and its signed note's tree head when the file carries one.
 */
async function readCheckpoint(
  file: string,
  trusted: PublicJwk[] | undefined,
): Promise<{ claim: CheckpointClaim; head?: TreeHead }> {
  const parsed = checkpointFileSchema.safeParse(await readJsonFile(file));
  if (!parsed.success)
    throw new RefusedError(
      `${file} is not a saved checkpoint ({"checkpoint": "<JWS>", "note": "<signed note>", "keys": [...]})`,
    );
  const keys = trusted ?? parsed.data.keys;
  try {
    const claim = await verifyCheckpoint(parsed.data.checkpoint, keys);
    const head =
      parsed.data.note === undefined ? undefined : verifyCheckpointNote(parsed.data.note, keys, parsed.data.origin);
    if (head && (head.size !== claim.seq || originTenant(head.origin) !== claim.tenant))
      throw new RefusedError(`${file}: its note and its JWS name different heads`);
    return { claim, head };
  } catch (error) {
    if (error instanceof RefusedError) throw error;
    throw new RefusedError(
      `${file}: ${error instanceof CheckpointError || error instanceof NoteError ? error.message : 'does not verify'}`,
    );
  }
}

/** `--consistency`: a saved `GET /api/v1/audit/proofs/consistency` answer. */
async function readConsistency(file: string): Promise<ConsistencyProofFile> {
  const parsed = consistencyProofSchema.safeParse(await readJsonFile(file));
  if (!parsed.success)
    throw new RefusedError(`${file} is not a saved consistency proof ({"fromSize": N, "toSize": M, "hashes": [...]})`);
  return parsed.data;
}

function parseGrants(values: string[]): Record<string, string[]> {
  const grants: Record<string, string[]> = {};
  for (const value of values) {
    const match = value.match(/^([a-z][a-z0-9_]*)=([A-Za-z0-9_,.-]+)$/);
    if (!match) throw new UsageError(`--grant takes name=value1,value2 (got "${value}")`);
    grants[match[1]!] = match[2]!.split(',').filter(Boolean);
  }
  return grants;
}

/**
 * `audit:verify --export`: the file, the checkpoints and the keys only, never a database. Prints what
 * the file establishes and, under "Not verified", what it cannot; exits 1 unless every row is on the
 * chain and covered by a signed checkpoint.
 */
async function verifyExportFile(
  file: string,
  saved: { claim: CheckpointClaim; head?: TreeHead }[],
  consistency: ConsistencyProofFile | undefined,
  trusted: PublicJwk[] | undefined,
): Promise<void> {
  let stream: fs.FileHandle;
  try {
    stream = await fs.open(file);
  } catch {
    throw new RefusedError(`cannot read ${file}`);
  }
  try {
    // A saved file with a note is held to the export's checkpoint by the tree; an older one (JWS only) by its hash at
    // its seq.
    const earlier = saved.flatMap(({ head }) => (head ? [head] : []));
    const checkpoints = saved.flatMap(({ claim, head }) => (head ? [] : [claim]));
    const report = await verifyExportLines(stream.readLines(), { checkpoints, earlier, consistency, keys: trusted });
    if ('unreadable' in report)
      throw new RefusedError(`${file}${report.line > 0 ? ` line ${report.line}` : ''}: ${report.message}`);
    if (report.broken) {
      console.log(
        `${report.tenant}: BROKEN at #${report.broken.seq} — ${describeExportBreak(report.broken.reason)} ` +
          `(${report.broken.reason})${report.broken.detail ? `: ${report.broken.detail}` : ''}; ` +
          `verified through #${report.through.seq}`,
      );
      throw new RefusedError(
        `the export does not verify: ${report.tenant} #${report.broken.seq} (${report.broken.reason})`,
      );
    }
    if (report.uncovered) {
      const { from, to } = report.uncovered;
      console.log(
        `${report.tenant}: #${from} to #${to} are covered by no signed ` +
          `checkpoint${report.checkpoints.length > 0 ? ` (the newest is #${report.checkpoints.at(-1)})` : ''}: ` +
          `those ${to - from + 1} row(s) are not verified`,
      );
      throw new RefusedError(
        `the export does not verify: ${report.tenant} #${from} to #${to} are covered by no checkpoint (pass ` +
          `a checkpoint saved after them, or export again: an export ends with one)`,
      );
    }
    if (report.kind === 'filtered')
      console.log(`${report.tenant}: a filtered export: it proves the events it holds, not the whole log`);
    console.log('Verified:');
    for (const line of report.verified) console.log(`  ${line}`);
    console.log('Not verified:');
    for (const line of report.unverified) console.log(`  ${line}`);
    if (!trusted)
      console.log(
        'note: the checkpoints were verified with their own keys; pin them with --keys <saved ' +
          '/.well-known/jwks.json> to prove the server signed them',
      );
    if (!report.ok) throw new RefusedError('the export does not verify');
    console.log(
      report.kind === 'filtered'
        ? `The export's ${report.rows} event(s) verify, each included in checkpoint #${report.checkpoints[0]}.`
        : 'The export verifies.',
    );
  } finally {
    await stream.close();
  }
}

/** `bundle:verify --passkeys people.json`: the public keys people gave the auditor, by person id. */
async function readPeople(file: string): Promise<PinnedPeople> {
  const parsed = peopleFileSchema.safeParse(await readJsonFile(file));
  if (!parsed.success)
    throw new RefusedError(
      `${file} is not a people file ({"usr_…": {"email": "…", "publicKeys": ["<base64url COSE ` +
        `key>"]}}): ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/** A policy plan for a person: each change in words, then the backtest's flips counted by kind and listed. */
function planLines({ changes, warnings, backtest }: PolicyPlan): string[] {
  const lines = changes.length === 0 ? ['The document changes nothing: publishing it would make no new version.'] : [];
  for (const change of changes)
    lines.push(
      `${change.action} v${change.version} → v${change.nextVersion}:`,
      ...change.words.map((words) => `  ${words}`),
    );
  for (const warning of warnings) lines.push(`Warning (${warning.action}): ${warning.message}`);
  const capped = backtest.truncated ? ` (the newest ${backtest.limit}; there were more)` : '';
  lines.push(
    `Backtest: ${backtest.proposals} proposal(s) of the last ${backtest.days} day(s) ` +
      `replayed${capped}; ${backtest.flips.length} would be routed differently.`,
  );
  for (const { words, count } of flipCounts(backtest.flips)) lines.push(`  ${count} × ${words}`);
  for (const flip of backtest.flips)
    lines.push(
      `  ${flip.proposalId}  ${flip.summary}  ${flipInWords(flip)} (rule ${flip.before.rule} → ${flip.after.rule})`,
    );
  return lines;
}

/** The oversight figures for a person at a terminal: one block per table, a line per row. */
function oversightLines(figures: OversightFigures): string[] {
  const figureWords = (row: DecisionFigures) =>
    `${row.decisions} decision(s), ${row.decisions === 0 ? '—' : percentWords(row.approvalRate)} approved, ` +
    `waiting → decided p50 ${durationWords(row.waitP50Ms)} p95 ${durationWords(row.waitP95Ms)}, dwell ` +
    `p50 ${durationWords(row.dwellP50Ms)} p10 ${durationWords(row.dwellP10Ms)}`;
  const { settings } = figures;
  const off = settings.minDecisions === 0 || settings.approvalRatePercent === 0 || settings.medianDwellSeconds === 0;
  return [
    `Oversight of the last ${figures.days} day(s): ${figures.from} to ${figures.to}`,
    off
      ? 'Rubber-stamp alarm: off'
      : `Rubber-stamp alarm: at least ${settings.minDecisions} decisions, ${settings.approvalRatePercent} % ` +
        `approved, median dwell under ${settings.medianDwellSeconds} s`,
    `Ended undecided: ${figures.expired} expired, ${figures.stale} stale`,
    'Per approver:',
    ...(figures.approvers.length === 0
      ? ['  (no decisions)']
      : figures.approvers.map(
          (row) =>
            `  ${row.name} (${row.userId}): ${figureWords(row)}` +
            (row.rubberStamp ? '  [looks like rubber-stamping]' : ''),
        )),
    'Per action:',
    ...(figures.actions.length === 0
      ? ['  (none)']
      : figures.actions.map(
          (row) => `  ${row.action}: ${figureWords(row)}; ${row.expired} expired, ${row.stale} stale`,
        )),
    'By what brought the person:',
    ...(figures.channels.length === 0
      ? ['  (no decisions)']
      : figures.channels.map((row) => `  ${row.channel}: ${figureWords(row)}`)),
  ];
}

/** A refusal of the policy document with its issues, one line each, naming the field. */
function refusedDocument(error: Refusal): RefusedError {
  const issues = ((error.details.issues as { message: string }[] | undefined) ?? []).map(
    (issue) => `\n  ${issue.message}`,
  );
  return new RefusedError(`${error.message}${issues.join('')}`);
}

async function requireTenant(db: Database, tenantId: string): Promise<void> {
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw new Refusal('not_found', `No tenant "${tenantId}".`);
}

async function withDatabase<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const settings = env();
  const handle = await openDatabase(
    settings.DATABASE_URL ? { url: settings.DATABASE_URL } : { dataDir: path.resolve(settings.COUNTERSIGN_DATA_DIR) },
  );
  try {
    await migrateDatabase(handle);
    return await work(handle);
  } finally {
    await handle.close();
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      actions: { type: 'string' },
      grant: { type: 'string', multiple: true },
      tenant: { type: 'string' },
      reason: { type: 'string' },
      note: { type: 'string' },
      kind: { type: 'string' },
      target: { type: 'string' },
      events: { type: 'string' },
      digest: { type: 'string' },
      checkpoint: { type: 'string', multiple: true },
      consistency: { type: 'string' },
      export: { type: 'string' },
      keys: { type: 'string' },
      passkeys: { type: 'string' },
      schema: { type: 'string' },
      json: { type: 'boolean' },
      days: { type: 'string' },
      active: { type: 'boolean' },
      database: { type: 'string' },
      owner: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    if (!command && !values.help) throw new UsageError('no command given');
    return;
  }
  switch (command) {
    case 'create-tenant': {
      const id = need(rest[0], 'tenant id');
      await withDatabase(async ({ db }) => {
        const tenant = await createTenant(db, { id, name: values.name ?? id });
        console.log(`Created tenant ${tenant.id} (${tenant.name}).`);
      });
      return;
    }
    case 'create-user': {
      const email = need(rest[0], 'email');
      const name = need(values.name, '--name');
      const generated = !values['password-stdin'];
      const password = generated ? randomBytes(15).toString('base64url') : await readStdin();
      await withDatabase(async ({ db }) => {
        const user = await createUser(db, { email, name, password });
        console.log(`Created user ${user.email} (${user.id}).`);
        if (generated) console.log(`Password (shown once): ${password}`);
      });
      return;
    }
    case 'set-password': {
      const email = need(rest[0], 'email');
      const generated = !values['password-stdin'];
      const password = generated ? randomBytes(15).toString('base64url') : await readStdin();
      await withDatabase(async ({ db }) => {
        const user = await changePassword(db, email, password);
        console.log(`Changed the password of ${user.email}; every session of theirs has ended.`);
        if (generated) console.log(`Password (shown once): ${password}`);
      });
      return;
    }
    case 'remove-member': {
      const [email, tenantId] = [need(rest[0], 'email'), need(rest[1], 'tenant')];
      await withDatabase(async ({ db }) => {
        const removed = await removeMember(db, { tenantId, email });
        console.log(`Removed ${email} (${removed.role}) from ${tenantId}; their sessions in other tenants stay.`);
      });
      return;
    }
    case 'end-sessions': {
      const email = need(rest[0], 'email');
      await withDatabase(async ({ db }) => {
        const ended = await endSessionsOf(db, email);
        console.log(`Ended ${ended.sessionsEnded} session(s) of ${email}.`);
      });
      return;
    }
    case 'grant': {
      const [email, tenantId, role] = [need(rest[0], 'email'), need(rest[1], 'tenant'), need(rest[2], 'role')];
      if (!ROLES.includes(role as Role)) throw new UsageError(`role must be one of ${ROLES.join(', ')}`);
      await withDatabase(async ({ db }) => {
        await grantRole(db, { tenantId, email, role: role as Role });
        console.log(`${email} is now ${role} of ${tenantId}.`);
      });
      return;
    }
    case 'create-agent-key': {
      const [tenantId, agentName] = [need(rest[0], 'tenant'), need(rest[1], 'agent name')];
      const actions = need(values.actions, '--actions').split(',').filter(Boolean);
      const grants = parseGrants(values.grant ?? []);
      await withDatabase(async ({ db }) => {
        // The tenant's actions: the shipped ones and its own definitions.
        const known = (await tenantActions(db, tenantId)).map((a) => a.name);
        const unknown = actions.filter((a) => !known.includes(a));
        if (unknown.length > 0)
          throw new UsageError(`unknown action(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
        const created = await createAgentKey(db, { tenantId, agentName, actions, grants });
        console.log(`Created agent key ${created.id} for ${agentName} in ${tenantId}.`);
        console.log(`Key (shown once, store it now): ${created.key}`);
      });
      return;
    }
    case 'revoke-agent-key': {
      const keyId = need(rest[0], 'key id');
      await withDatabase(async ({ db }) => {
        const row = await revokeAgentKey(db, keyId);
        console.log(`Revoked ${row.id} (${row.agentName} in ${row.tenantId}).`);
      });
      return;
    }
    case 'add-channel': {
      const tenantId = need(values.tenant, '--tenant');
      const input = {
        kind: need(values.kind, '--kind'),
        target: need(values.target, '--target'),
        ...(values.events === undefined ? {} : { events: values.events.split(',').map((name) => name.trim()) }),
        // Digits as the number; anything else as typed, so the API's own words refuse it.
        ...(values.digest === undefined
          ? {}
          : { digestThreshold: /^\d{1,3}$/.test(values.digest) ? Number(values.digest) : values.digest }),
      };
      const problems = channelProblems(input);
      if (problems.length > 0) throw new RefusedError(problems.join('\nError: '));
      await withDatabase(async ({ db }) => {
        const created = await createChannel(db, tenantId, CLI_ACTOR, channelInput.parse(input));
        if (!created) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        const { channel, secret } = created;
        console.log(`Created ${channel.kind} channel ${channel.id} in ${tenantId}.`);
        console.log(`  target: ${channel.target}`);
        console.log(`  events: ${channel.events.join(', ')}`);
        console.log(
          '  digest: ' +
            (channel.digestThreshold === 0
              ? 'never'
              : `more than ${channel.digestThreshold} messages within a minute go as one`),
        );
        if (secret) {
          console.log(`Signing secret (shown once, store it now): ${secret}`);
          console.log(
            'It is not shown again: the receiver verifies the webhook-signature header with it (Standard Webhooks).',
          );
        }
      });
      return;
    }
    case 'executions:pause':
    case 'executions:resume': {
      const tenantId = need(values.tenant, '--tenant');
      const parsed = pauseInput.safeParse(values.reason === undefined ? {} : { reason: values.reason });
      if (!parsed.success) throw new RefusedError('--reason is 1–500 characters.');
      await withDatabase(async ({ db }) => {
        const result =
          command === 'executions:pause'
            ? await pauseExecutions(db, tenantId, CLI_ACTOR, parsed.data)
            : await resumeExecutions(db, tenantId, CLI_ACTOR);
        if (!result) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        const state = result.state.paused ? 'paused' : 'running';
        console.log(
          result.changed
            ? `Executions in ${tenantId} are now ${state}.`
            : `Executions in ${tenantId} were already ${state}; nothing changed.`,
        );
      });
      return;
    }
    case 'list-channels': {
      const tenantId = need(rest[0], 'tenant');
      await withDatabase(async ({ db }) => {
        const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
        if (!tenant) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        const channels = await listChannels(db, tenantId);
        if (channels.length === 0) console.log(`No notification channels in ${tenantId}.`);
        for (const channel of channels) console.log(channelLine(channel));
      });
      return;
    }
    case 'audit:verify': {
      const trusted = values.keys ? await readJwks(values.keys) : undefined;
      const saved = await Promise.all((values.checkpoint ?? []).map((file) => readCheckpoint(file, trusted)));
      if (values.export)
        return verifyExportFile(
          values.export,
          saved,
          values.consistency ? await readConsistency(values.consistency) : undefined,
          trusted,
        );
      const checkpoints = saved.map(({ claim }) => claim);
      const reports = await withDatabase(({ db }) => verifyStoredChains(db, { tenant: values.tenant, checkpoints }));
      if (values.tenant && reports.length === 0) throw new RefusedError(`tenant "${values.tenant}" has no audit chain`);
      for (const point of checkpoints) {
        if (!reports.some((report) => report.tenant === point.tenant))
          throw new RefusedError(`the checkpoint is for tenant "${point.tenant}", whose chain was not verified`);
      }
      for (const report of reports) {
        console.log(
          report.ok
            ? `${report.tenant}: verified through #${report.through.seq} (${report.through.hash})` +
                (report.checkpoints > 0 ? `, matching ${report.checkpoints} signed checkpoint(s)` : '')
            : `${report.tenant}: BROKEN at ` +
                `#${report.seq} — ${describeBreak(report.reason)} (${report.reason}); verified through ` +
                `#${report.through.seq}`,
        );
        // What no signed checkpoint covers rests on the database's own head: say so.
        const uncovered =
          report.ok && report.checkpoints > 0 ? uncoveredRows(report.tenant, report.through, checkpoints) : undefined;
        if (uncovered)
          console.log(
            `${report.tenant}: #${uncovered.from} to #${uncovered.to} are covered by no signed checkpoint: ` +
              `they rest on the database's own head`,
          );
      }
      const broken = reports.filter((report) => !report.ok);
      if (broken.length > 0)
        throw new RefusedError(
          `${broken.length} chain(s) do not verify; first bad sequence ` +
            `number: ${broken.map((r) => `${r.tenant} #${r.ok ? '' : r.seq}`).join(', ')}`,
        );
      return;
    }
    case 'claims:reconcile': {
      const repairs = await withDatabase(({ db }) => reconcileClaims(db));
      for (const repair of repairs) console.log(describeRepair(repair));
      console.log(
        repairs.length === 0
          ? 'Every claims row matches its open proposals.'
          : `Repaired ${repairs.length} claims row(s).`,
      );
      return;
    }
    case 'bundle:verify': {
      const file = need(rest[0], 'bundle file');
      const trusted = values.keys ? await readJwks(values.keys) : undefined;
      const people = values.passkeys ? await readPeople(values.passkeys) : undefined;
      const report = await verifyBundle(await readJsonFile(file), trusted, people);
      for (const check of report.checks) console.log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.check}: ${check.detail}`);
      if (!trusted)
        console.log(
          'note: the keys came from the bundle itself; pin them with --keys <saved /.well-known/jwks.json> to ' +
            'prove who signed',
        );
      const failed = report.checks.filter((check) => !check.ok);
      if (failed.length > 0)
        throw new RefusedError(`the bundle does not verify: ${failed.map((check) => check.check).join(', ')}`);
      console.log('Verified:');
      for (const line of report.verified) console.log(`  ${line}`);
      console.log('Not verified (shown by the bundle, covered by no hash or signature):');
      for (const field of report.unverified) console.log(`  ${field}`);
      console.log('The bundle verifies.');
      return;
    }
    case 'passkeys:list': {
      const email = need(rest[0], 'email').toLowerCase();
      await withDatabase(async ({ db }) => {
        const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
        if (!user) throw new Refusal('not_found', `No user "${email}".`);
        const owned = await listPasskeys(db, user.id);
        if (owned.length === 0) console.log(`${email} has no passkey.`);
        for (const passkey of owned)
          console.log(
            `${passkey.id}  ${JSON.stringify(passkey.name)}  added ${passkey.createdAt}  last ` +
              `used ${passkey.lastUsedAt ?? 'never'}`,
          );
      });
      return;
    }
    case 'passkeys:remove': {
      const id = need(rest[0], 'passkey id');
      await withDatabase(async ({ db }) => {
        const removed = await removePasskey(db, { kind: 'operator' }, id);
        console.log(`Removed passkey ${removed.id} (${JSON.stringify(removed.name)}).`);
      });
      return;
    }
    case 'passkeys:require': {
      const tenantId = need(values.tenant, '--tenant');
      const setting = need(rest[0], 'on or off');
      if (setting !== 'on' && setting !== 'off') throw new UsageError('passkeys:require takes on or off');
      await withDatabase(async ({ db }) => {
        const result = await setPasskeysRequired(db, tenantId, setting === 'on', CLI_ACTOR);
        if (!result) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        const now =
          setting === 'on' ? 'must be signed with a passkey' : 'need no passkey unless their rule asks for one';
        console.log(
          result.changed
            ? `Approvals in ${tenantId} now ${now}.`
            : `Approvals in ${tenantId} already ${now}; nothing changed.`,
        );
      });
      return;
    }
    case 'contracts:lint': {
      const report = values.schema
        ? lintContracts({
            actions: [
              {
                action: path.basename(values.schema),
                versions: [{ version: 0, status: 'file', input: await readJsonFile(values.schema) }],
              },
            ],
          })
        : lintContracts(contractDocuments());
      if (values.json) console.log(JSON.stringify(report, null, 2));
      else for (const version of report) console.log(lintLines(version).join('\n'));
      const failing = report.filter((version) => version.errors > 0);
      if (failing.length > 0)
        throw new RefusedError(
          failing.map((version) => `${version.action}${values.schema ? '' : ` v${version.version}`}`).join(', ') +
            ': a strict runtime refuses the schema or no value satisfies it (see the errors above)',
        );
      return;
    }
    case 'policy:plan': {
      const file = need(rest[0], 'policy document file');
      const tenantId = need(values.tenant, '--tenant');
      let days: number;
      try {
        days = backtestDays(values.days ?? null);
      } catch {
        throw new UsageError('--days takes a whole number of days from 1 to 365');
      }
      const document = await readJsonFile(file);
      await withDatabase(async ({ db }) => {
        const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
        if (!tenant) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        try {
          console.log(planLines(await planPolicies(db, tenantId, document, days)).join('\n'));
        } catch (error) {
          throw error instanceof Refusal ? refusedDocument(error) : error;
        }
      });
      return;
    }
    case 'actions:plan':
    case 'actions:apply': {
      const file = need(rest[0], 'definition file');
      const tenantId = need(values.tenant, '--tenant');
      const note = command === 'actions:apply' ? need(values.note, '--note') : '';
      const text = await readTextFile(file);
      await withDatabase(async ({ db }) => {
        await requireTenant(db, tenantId);
        const plan = await planDefinition(db, tenantId, text);
        console.log(definitionPlanLines(plan).join('\n'));
        if (!plan.ok) throw new RefusedError(`${file} is not a valid action definition (see the problems above)`);
        if (command === 'actions:plan') return;
        const result = await publishDefinition(db, { tenantId, document: plan.document, note, by: CLI_ACTOR });
        if (result.published) console.log(`Published ${result.name} v${result.version} in ${tenantId}.`);
        else if (result.reason === 'invalid')
          throw new RefusedError(result.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n'));
        else if (result.reason === 'unchanged')
          throw new RefusedError(`${result.name} v${result.version} is already this document: nothing published`);
        else throw new RefusedError(`another publish of ${result.name} made v${result.version} first: plan again`);
      });
      return;
    }
    case 'actions:list': {
      const tenantId = need(values.tenant, '--tenant');
      await withDatabase(async ({ db }) => {
        await requireTenant(db, tenantId);
        console.log((await definitionListLines(db, tenantId)).join('\n'));
      });
      return;
    }
    case 'oversight': {
      const tenantId = need(values.tenant, '--tenant');
      let days: number;
      try {
        days = oversightDays(values.days ?? null);
      } catch {
        throw new UsageError(`--days takes a whole number of days from 1 to ${OVERSIGHT_MAX_DAYS}`);
      }
      await withDatabase(async ({ db }) => {
        const figures = await tenantOversight(db, tenantId, days);
        if (!figures) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        console.log(oversightLines(figures).join('\n'));
      });
      return;
    }
    case 'grants': {
      const tenantId = need(values.tenant, '--tenant');
      await withDatabase(async ({ db }) => {
        const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
        if (!tenant) throw new Refusal('not_found', `No tenant "${tenantId}".`);
        let printed = 0;
        let cursor: InstantCursor | undefined;
        // A page at a time (the list's keyset), never the whole table at once.
        for (;;) {
          const page = await listGrants(db, tenantId, { state: values.active ? 'active' : 'all', cursor });
          for (const grant of page.grants) console.log(grantLines(grant).join('\n'));
          printed += page.grants.length;
          if (!page.nextCursor) break;
          cursor = decodeInstantCursor(page.nextCursor);
        }
        if (printed === 0) console.log(`No ${values.active ? 'active ' : ''}grants in ${tenantId}.`);
      });
      return;
    }
    case 'grants:revoke': {
      const id = need(rest[0], 'grant id');
      await withDatabase(async ({ db }) => {
        try {
          const grant = await revokeGrant(db, { by: CLI_ACTOR, grantId: id, reason: values.reason });
          console.log(`Revoked ${grant.id} (${grantUseWords(grant)}).`);
        } catch (error) {
          throw error instanceof Refusal ? new RefusedError(error.message) : error;
        }
      });
      return;
    }
    case 'db:roles': {
      // The database DATABASE_URL names (the one the roles are for), unless --database says.
      const named = env().DATABASE_URL ?? env().MIGRATION_DATABASE_URL;
      const database = values.database ?? (named ? decodeURIComponent(new URL(named).pathname.slice(1)) : '');
      if (!database) throw new UsageError('db:roles needs --database <name> (or DATABASE_URL naming it)');
      console.log(rolesSql({ database, owner: values.owner }));
      return;
    }
    case 'signing-key': {
      refuseKeyFileInWorkTree();
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const jwk = {
        ...(await exportJWK(privateKey)),
        kid: `key-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`,
        alg: 'EdDSA',
        use: 'sig',
      };
      console.log(JSON.stringify([jwk]));
      return;
    }
    case 'rotate-signing-keys': {
      refuseKeyFileInWorkTree();
      console.log(JSON.stringify(await rotateKeySet(parseKeySetText(await readStdin()))));
      return;
    }
    case 'retire-signing-key': {
      const kid = need(rest[0], 'kid');
      refuseKeyFileInWorkTree();
      console.log(JSON.stringify(retireKey(parseKeySetText(await readStdin()), kid)));
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      console.error(`Error: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof KeySetError || error instanceof ZodError) {
      console.error(
        'Error: ' +
          (error instanceof ZodError
            ? 'stdin is not a JSON array of Ed25519 private JWKs with a kid (kty, crv, x, d, kid)'
            : error.message),
      );
      process.exit(1);
    }
    if (
      error instanceof Refusal ||
      error instanceof RefusedError ||
      error instanceof SettingsError ||
      (error instanceof Error && error.name === 'DatabaseInUseError')
    ) {
      console.error(`Error: ${error.message}`);
      process.exit(1);
    }
    console.error('Error:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
