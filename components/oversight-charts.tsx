'use client';

import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export type ApproverBar = { name: string; approvalPercent: number; dwellSeconds: number | null; rubberStamp: boolean };

const AXIS = { fontSize: 11, fill: 'currentColor' };
const CALM = '#2563eb';
/** A person whose figures meet the alarm's thresholds: the bar is amber, and the table beside it says so in words. */
const MARKED = '#d97706';

function ApproverChart({
  rows,
  dataKey,
  unit,
  caption,
  testId,
  domain,
}: {
  rows: ApproverBar[];
  dataKey: 'approvalPercent' | 'dwellSeconds';
  unit: string;
  caption: string;
  testId: string;
  domain?: [number, number];
}) {
  return (
    <figure data-testid={testId} className="text-zinc-600 dark:text-zinc-300">
      <figcaption className="mb-1 text-xs font-medium">{caption}</figcaption>
      <div className="w-full" style={{ height: `${Math.max(6, rows.length * 2 + 3)}rem` }}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
            <XAxis type="number" tick={AXIS} unit={unit} domain={domain} />
            <YAxis type="category" dataKey="name" tick={AXIS} width={110} interval={0} />
            <Tooltip formatter={(value) => `${String(value)} ${unit.trim()}`} contentStyle={{ fontSize: 12 }} />
            <Bar dataKey={dataKey} name={caption} isAnimationActive={false}>
              {rows.map((row) => (
                <Cell key={row.name} fill={row.rubberStamp ? MARKED : CALM} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Per approver: approval rate and median dwell, side by side, for the eye; the table below has every number. */
export function ApproverCharts({ rows }: { rows: ApproverBar[] }) {
  return (
    <div className="grid gap-4 md:grid-cols-2" data-testid="oversight-charts">
      <ApproverChart
        rows={rows}
        dataKey="approvalPercent"
        unit=" %"
        caption="Approval rate (%)"
        testId="oversight-chart-rate"
        domain={[0, 100]}
      />
      <ApproverChart
        rows={rows}
        dataKey="dwellSeconds"
        unit=" s"
        caption="Median dwell: first opened to decided (s)"
        testId="oversight-chart-dwell"
      />
    </div>
  );
}
