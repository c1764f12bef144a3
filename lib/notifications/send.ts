import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { Webhook } from 'standardwebhooks';
import type { NotificationChannel } from '@/db/schema';
import { checkTarget, pinnedLookup, TARGET_NOT_ALLOWED, type CheckedTarget, type TargetPolicy } from './outbound';
import { emailContent, slackBody, webhookBody, type RenderInput } from './render';

export type MailSettings = {
  /** smtp:// or smtps:// URL; without it email channels cannot deliver (dead: `smtp_not_configured`). */
  smtpUrl?: string;
  from: string;
};

/**
 * One attempt's result. `final` means retrying cannot help (a refusal that needs a person);
 * `refused` means the target was not allowed and nothing was sent (no status, no latency).
 */
export type SendResult = { ok: true; status: number } | { ok: false; error: string; status?: number; final?: boolean; refused?: true };

const USER_AGENT = 'Countersign-Notifications/1';

/** Statuses a receiver uses to say "never send this again": retrying cannot help. */
const FINAL_HTTP = new Set([400, 401, 403, 404, 410, 413]);

/** A refused or unresolvable target: no connection was made, so there is no status to report. */
async function guard(target: string, policy: TargetPolicy, timeoutMs: number): Promise<{ ok: true; target: CheckedTarget } | { ok: false; result: SendResult }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'timeout')));
  const checked = await Promise.race([checkTarget(target, policy), timeout]).finally(() => clearTimeout(timer));
  if (checked === 'timeout') return { ok: false, result: { ok: false, error: 'timeout' } };
  if (checked.ok) return checked;
  if (checked.code === TARGET_NOT_ALLOWED) return { ok: false, result: { ok: false, error: TARGET_NOT_ALLOWED, final: true, refused: true } };
  return { ok: false, result: { ok: false, error: 'unreachable' } };
}

/** POSTs to the checked addresses (Host and TLS name stay the target's); a redirect is an answer, never followed. */
function post({ url, host, addresses }: CheckedTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request({
      method: 'POST',
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT, ...headers },
      lookup: pinnedLookup(addresses),
      signal,
    });
    request.on('response', (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `http_${status}` });
    });
    request.on('error', () => resolve({ ok: false, error: signal.aborted ? 'timeout' : 'unreachable' }));
    request.end(body);
  });
}

async function postJson(target: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const checked = await guard(target, options.targets, options.timeoutMs);
  return checked.ok ? post(checked.target, body, headers, options.timeoutMs) : checked.result;
}

/** A signed Standard Webhooks POST: `webhook-id` (the delivery's id), `webhook-timestamp`, `webhook-signature`. */
export function webhookRequest(channel: Pick<NotificationChannel, 'secret'>, input: RenderInput, at: Date) {
  if (!channel.secret) throw new Error('a webhook channel has a secret');
  const body = webhookBody(input);
  const headers = {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(channel.secret).sign(input.id, at, body),
  };
  return { body, headers };
}

/** A transport to the checked SMTP address; the certificate is still checked against the configured name. */
function transportTo({ host, addresses }: CheckedTarget, smtpUrl: string, timeoutMs: number): nodemailer.Transporter {
  const options = parseConnectionUrl(smtpUrl);
  return nodemailer.createTransport({
    ...options,
    host: addresses[0]!.address,
    tls: { ...options.tls, ...(isIP(host) ? {} : { servername: host }) },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

/** Sends one message over the operator's SMTP server, connected to the checked address only; throws when it is refused or fails. */
export async function sendMail(smtpUrl: string, targets: TargetPolicy, timeoutMs: number, message: nodemailer.SendMailOptions) {
  const smtp = await guard(smtpUrl, targets, timeoutMs);
  if (!smtp.ok) throw new Error(`smtp ${smtp.result.ok ? 'refused' : smtp.result.error}`);
  return transportTo(smtp.target, smtpUrl, timeoutMs).sendMail(message);
}

export type SendOptions = { mail: MailSettings; timeoutMs: number; targets: TargetPolicy };

/** Sends one attempt of a delivery over its channel. Never throws; never logs the message. */
export async function sendOnce(
  channel: Pick<NotificationChannel, 'kind' | 'target' | 'secret'>,
  input: RenderInput & { recipients: string[] },
  options: SendOptions,
): Promise<SendResult> {
  if (channel.kind === 'webhook') {
    const { body, headers } = webhookRequest(channel, input, input.now);
    return postJson(channel.target, body, headers, options);
  }
  if (channel.kind === 'slack') {
    const result = await postJson(channel.target, JSON.stringify(slackBody(input)), {}, options);
    return !result.ok && result.status !== undefined && FINAL_HTTP.has(result.status) ? { ...result, final: true } : result;
  }
  if (!options.mail.smtpUrl) return { ok: false, error: 'smtp_not_configured', final: true };
  const smtpHost = new URL(options.mail.smtpUrl).hostname || 'localhost';
  const fromHost = options.mail.from.match(/@([A-Za-z0-9.-]+)>?\s*$/)?.[1] ?? smtpHost;
  const smtp = await guard(options.mail.smtpUrl, options.targets, options.timeoutMs);
  if (!smtp.ok) return smtp.result;
  const to = [...new Set([channel.target, ...input.recipients].map((address) => address.toLowerCase()))];
  try {
    const info = await transportTo(smtp.target, options.mail.smtpUrl, options.timeoutMs).sendMail({
      from: options.mail.from,
      to,
      ...emailContent(input, fromHost),
      headers: { 'X-Countersign-Event': input.event },
    });
    const code = Number(String(info.response ?? '').slice(0, 3));
    return { ok: true, status: Number.isInteger(code) && code > 0 ? code : 250 };
  } catch (error) {
    const smtp = error as { responseCode?: unknown; code?: unknown };
    const status = typeof smtp.responseCode === 'number' ? smtp.responseCode : undefined;
    // A 5xx reply is permanent in SMTP (bad recipient, refused); 4xx and network trouble are not.
    if (status !== undefined && status >= 500) return { ok: false, status, error: `smtp_${status}`, final: true };
    const code = typeof smtp.code === 'string' && /^[A-Z_]{2,20}$/.test(smtp.code) ? smtp.code.toLowerCase() : 'smtp_error';
    return { ok: false, status, error: status ? `smtp_${status}` : code };
  }
}
