import { PAGE_HEADERS } from '@/demo/systems/page';
import { type HttpSink, startHttpSink } from './http-sink';
import { type MailCatcher, startMailCatcher } from './mail-catcher';
import { receivedView, renderReceivedPage } from './received';

export type DemoReceivers = {
  sink: HttpSink;
  mail: MailCatcher;
  /** The page listing what arrived (`/received.json` is its JSON). */
  pageUrl: string;
  close(): Promise<void>;
};

/**
 * The demo's notification receivers on this machine: a mail catcher (SMTP) and an HTTP sink for
 * the webhook and Slack channels, whose `GET /` shows a newcomer what arrived in all three.
 */
export async function startDemoReceivers(options: {
  sinkPort: number;
  mailPort: number;
  appUrl: string;
}): Promise<DemoReceivers> {
  const mail = await startMailCatcher({ port: options.mailPort });
  const view = () => receivedView(sink.received(), mail.received());
  let sink: HttpSink;
  try {
    sink = await startHttpSink({
      port: options.sinkPort,
      pages: {
        '/': () => ({
          contentType: 'text/html; charset=utf-8',
          body: renderReceivedPage(view(), { appUrl: options.appUrl, smtpUrl: mail.url }),
          headers: PAGE_HEADERS,
        }),
        '/received.json': () => ({
          contentType: 'application/json',
          body: JSON.stringify(view()),
          headers: { 'Cache-Control': 'no-store' },
        }),
      },
    });
  } catch (error) {
    await mail.close();
    throw error;
  }
  return {
    sink,
    mail,
    pageUrl: `${sink.url}/`,
    close: async () => {
      await Promise.all([sink.close(), mail.close()]);
    },
  };
}
