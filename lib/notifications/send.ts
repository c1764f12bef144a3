import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import type { NotificationChannel } from '@/db/schema';
import { emailContent, slackBody, webhookBody, type RenderInput } from './render';

export type MailSettings = {
  /** smtp:// or smtps:// URL; without it email channels cannot deliver (dead: `smtp_not_configured`). */
  smtpUrl?: string;
  from: string;
};

/** One attempt's result. `final` means retrying cannot help (a refusal that needs a person). */
export type SendResult = { ok: true; status: number } | { ok: false; error: string; status?: number; final?: boolean };

const USER_AGENT = 'Countersign-Notifications/1';

/** Statuses a receiver uses to say "never send this again": retrying cannot help. */
const FINAL_HTTP = new Set([400, 401, 403, 404, 410, 413]);

async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { ok: false, error: error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable' };
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
  return { ok: false, status: response.status, error: `http_${response.status}` };
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

const transports = new Map<string, nodemailer.Transporter>();

export function transportFor(smtpUrl: string, timeoutMs: number): nodemailer.Transporter {
  const key = `${smtpUrl}#${timeoutMs}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = nodemailer.createTransport(smtpUrl, { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs } as never);
    transports.set(key, transport);
  }
  return transport;
}

/** Sends one attempt of a delivery over its channel. Never throws; never logs the message. */
export async function sendOnce(
  channel: Pick<NotificationChannel, 'kind' | 'target' | 'secret'>,
  input: RenderInput & { recipients: string[] },
  options: { mail: MailSettings; timeoutMs: number },
): Promise<SendResult> {
  if (channel.kind === 'webhook') {
    const { body, headers } = webhookRequest(channel, input, input.now);
    return postJson(channel.target, body, headers, options.timeoutMs);
  }
  if (channel.kind === 'slack') {
    const result = await postJson(channel.target, JSON.stringify(slackBody(input)), {}, options.timeoutMs);
    return !result.ok && result.status !== undefined && FINAL_HTTP.has(result.status) ? { ...result, final: true } : result;
  }
  if (!options.mail.smtpUrl) return { ok: false, error: 'smtp_not_configured', final: true };
  const smtpHost = new URL(options.mail.smtpUrl).hostname || 'localhost';
  const fromHost = options.mail.from.match(/@([A-Za-z0-9.-]+)>?\s*$/)?.[1] ?? smtpHost;
  const to = [...new Set([channel.target, ...input.recipients].map((address) => address.toLowerCase()))];
  try {
    const info = await transportFor(options.mail.smtpUrl, options.timeoutMs).sendMail({
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
