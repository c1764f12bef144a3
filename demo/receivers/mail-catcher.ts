import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One email the catcher received. */
export type CaughtMail = {
  envelopeTo: string[];
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo: string | undefined;
  references: string[];
  headers: Record<string, string>;
  receivedAt: string;
};

export type MailCatcher = {
  /** smtp://127.0.0.1:<port>: what SMTP_URL points at. */
  url: string;
  port: number;
  received(): CaughtMail[];
  /** The next `count` messages are refused with this SMTP reply code (4xx temporary, 5xx permanent). */
  refuse(code: number, count?: number): void;
  clear(): void;
  close(): Promise<void>;
};

const addresses = (value: unknown): string[] => {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list
    .flatMap((entry: { value?: { address?: string }[] }) => (entry.value ?? []).map((item) => item.address ?? ''))
    .filter(Boolean);
};

/** A local SMTP server for the demo and tests (no TLS, no auth): keeps every message it is given, parsed. */
export async function startMailCatcher(options: { port?: number; keep?: number } = {}): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  const refusals: number[] = [];
  const keep = options.keep ?? 500;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      const code = refusals.shift();
      simpleParser(stream)
        .then((parsed) => {
          if (code) {
            const error = Object.assign(new Error('refused on purpose'), { responseCode: code });
            callback(error);
            return;
          }
          const references =
            parsed.references === undefined
              ? []
              : Array.isArray(parsed.references)
                ? parsed.references
                : [parsed.references];
          mails.push({
            envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: addresses(parsed.from)[0] ?? '',
            to: addresses(parsed.to),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId ?? '',
            inReplyTo: parsed.inReplyTo,
            references,
            headers: Object.fromEntries(
              [...parsed.headers].map(([name, value]) => [
                name,
                typeof value === 'string' ? value : JSON.stringify(value),
              ]),
            ),
            receivedAt: new Date().toISOString(),
          });
          if (mails.length > keep) mails.splice(0, mails.length - keep);
          callback();
        })
        .catch(() => callback(new Error('unreadable message')));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received: () => [...mails],
    refuse(code, count = 1) {
      for (let i = 0; i < count; i++) refusals.push(code);
    },
    clear() {
      mails.length = 0;
      refusals.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
