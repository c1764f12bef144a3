import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { type CheckedTarget, checkTarget, pinnedLookup, TARGET_NOT_ALLOWED, type TargetPolicy } from './outbound';

/** The connections every channel kind sends through: each to a target checked by ./outbound.ts first. */

export type MailSettings = {
  /** smtp:// or smtps:// URL; without it email channels cannot deliver (dead: `smtp_not_configured`). */
  smtpUrl?: string;
  from: string;
};

/**
 * One attempt's result. `final` means retrying cannot help (a refusal that needs a person);
 * `refused` means the target was not allowed and nothing was sent (no status, no latency).
 */
export type SendResult =
  | { ok: true; status: number }
  | { ok: false; error: string; status?: number; final?: boolean; refused?: true };

const USER_AGENT = 'Countersign-Notifications/1';

/** A refused or unresolvable target: no connection was made, so there is no status to report. */
export async function guard(
  target: string,
  policy: TargetPolicy,
  timeoutMs: number,
): Promise<{ ok: true; target: CheckedTarget } | { ok: false; result: SendResult }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'timeout')));
  const checked = await Promise.race([checkTarget(target, policy), timeout]).finally(() => clearTimeout(timer));
  if (checked === 'timeout') return { ok: false, result: { ok: false, error: 'timeout' } };
  if (checked.ok) return checked;
  if (checked.code === TARGET_NOT_ALLOWED)
    return { ok: false, result: { ok: false, error: TARGET_NOT_ALLOWED, final: true, refused: true } };
  return { ok: false, result: { ok: false, error: 'unreachable' } };
}

/** POSTs to the checked addresses (Host and TLS name stay the target's); a redirect is an answer, never followed. */
function post(
  { url, host, addresses }: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request({
      method: 'POST',
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': USER_AGENT,
        ...headers,
      },
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

/** POSTs JSON to a target once it is checked (lib/notifications/outbound.ts); a refused target is never contacted. */
export async function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const checked = await guard(target, options.targets, options.timeoutMs);
  return checked.ok ? post(checked.target, body, headers, options.timeoutMs) : checked.result;
}

/** A transport to the checked SMTP address; the certificate is still checked against the configured name. */
export function transportTo(
  { host, addresses }: CheckedTarget,
  smtpUrl: string,
  timeoutMs: number,
): nodemailer.Transporter {
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

/**
 * Sends one message over the operator's SMTP server, connected to the checked address only; throws when it is refused
 * or fails.
 */
export async function sendMail(
  smtpUrl: string,
  targets: TargetPolicy,
  timeoutMs: number,
  message: nodemailer.SendMailOptions,
) {
  const smtp = await guard(smtpUrl, targets, timeoutMs);
  if (!smtp.ok) throw new Error(`smtp ${smtp.result.ok ? 'refused' : smtp.result.error}`);
  return transportTo(smtp.target, smtpUrl, timeoutMs).sendMail(message);
}

export type SendOptions = { mail: MailSettings; timeoutMs: number; targets: TargetPolicy };
