import type { OrderView, SkuView } from './ledger';
import type { Evidence } from './world';

/** The read-only page at `GET /`: orders with their refunds, SKUs with their holds, evidence as inert text. */

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** The headers every read-only demo page is served with: no scripts, no framing, no referrer. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every value on the page goes through this: text stays text, whatever it contains. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

function money(amountMinor: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // an unknown currency code: show two decimals
  }
  return `${(amountMinor / 10 ** digits).toFixed(digits)} ${currency}`;
}

export const cell = (value: string | number) => `<td>${escapeHtml(value)}</td>`;
const row = (values: (string | number)[]) => `<tr>${values.map(cell).join('')}</tr>`;
export const head = (names: string[]) => `<tr>${names.map((name) => `<th>${escapeHtml(name)}</th>`).join('')}</tr>`;

function ordersTable(orders: OrderView[]): string {
  const rows = orders.flatMap((order) => [
    `<tr class="record">${[
      order.id,
      order.tenant,
      money(order.chargedMinor, order.currency),
      money(order.refundedMinor, order.currency),
      money(order.chargedMinor - order.refundedMinor, order.currency),
    ]
      .map(cell)
      .join('')}</tr>`,
    ...order.refunds.map((refund) =>
      row([
        `↳ refund ${refund.id}`,
        refund.idempotencyKey,
        money(refund.amountMinor, order.currency),
        refund.createdAt,
        '',
      ]),
    ),
  ]);
  return `<table>${head(['order', 'tenant', 'charged', 'refunded', 'refundable'])}${rows.join('')}</table>`;
}

function skusTable(skus: SkuView[]): string {
  const rows = skus.flatMap((sku) => [
    `<tr class="record">${[sku.sku, sku.tenant, sku.warehouse, sku.maxHold].map(cell).join('')}</tr>`,
    ...sku.holds.map((hold) =>
      row([`↳ hold ${hold.id}`, hold.idempotencyKey, hold.warehouse, `${hold.quantity} held at ${hold.createdAt}`]),
    ),
  ]);
  return `<table>${head(['SKU', 'tenant', 'warehouse', 'max hold'])}${rows.join('')}</table>`;
}

function evidenceTable(evidence: Evidence[]): string {
  const rows = evidence.map(
    (item) =>
      `<tr>${cell(item.id)}${cell(item.tenant)}${cell(item.kind)}<td><pre>${escapeHtml(item.text)}</pre></td></tr>`,
  );
  return `<table>${head(['evidence', 'tenant', 'kind', 'text (untrusted, shown as text)'])}${rows.join('')}</table>`;
}

export const PAGE_STYLE =
  'body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1f2937}' +
  `table{border-collapse:collapse;margin-bottom:2rem}
th,td{border:1px solid #d1d5db;padding:.3rem .6rem;text-align:left;vertical-align:top}tr.record{background:#f3f4f6}
pre{margin:0;white-space:pre-wrap;font:inherit}p{color:#6b7280}`;

export function renderPage(view: {
  orders: OrderView[];
  skus: SkuView[];
  evidence: Evidence[];
  testMode: boolean;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<title>Demo systems of record</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>Demo systems of record${view.testMode ? ' (test mode)' : ''}</h1>
<p>Read-only view of the demo payments, inventory and ticketing records; refreshes every 5 seconds.</p>
<h2>Orders and refunds</h2>
${ordersTable(view.orders)}
<h2>SKUs and holds</h2>
${skusTable(view.skus)}
<h2>Evidence</h2>
${evidenceTable(view.evidence)}
</body>
</html>
`;
}
