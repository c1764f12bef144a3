'use client';

import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { FieldCount, RatePoint } from '@/lib/contracts/measurements';

/** One colour per version, readable on light and dark (the word "vN" is always beside it). */
const VERSION_COLOURS = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
const colour = (index: number) => VERSION_COLOURS[index % VERSION_COLOURS.length];

const AXIS = { fontSize: 11, fill: 'currentColor' };

function shortTime(iso: string, long: boolean): string {
  const date = new Date(iso);
  return long
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Rejection rate (rejected / attempts, in %) per bucket and version, for the chosen window. */
export function RejectionRateChart({
  points,
  versions,
  longWindow,
  testId,
}: {
  points: RatePoint[];
  versions: number[];
  longWindow: boolean;
  testId: string;
}) {
  if (points.length === 0)
    return (
      <p className="text-xs text-zinc-500" data-testid={`${testId}-empty`}>
        No attempts in this window.
      </p>
    );
  const buckets = new Map<string, Record<string, number | string>>();
  for (const point of points) {
    const row = buckets.get(point.at) ?? { at: point.at };
    row[`v${point.version}`] = Math.round((point.rejected / Math.max(point.attempts, 1)) * 1000) / 10;
    buckets.set(point.at, row);
  }
  const data = [...buckets.values()];
  return (
    <figure data-testid={testId} className="text-zinc-600 dark:text-zinc-300">
      <figcaption className="mb-1 text-xs font-medium">Rejection rate over time (% of attempts)</figcaption>
      <div className="h-48 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
            <XAxis
              dataKey="at"
              tick={AXIS}
              tickFormatter={(value: string) => shortTime(value, longWindow)}
              minTickGap={24}
            />
            <YAxis tick={AXIS} domain={[0, 100]} unit="%" />
            <Tooltip
              labelFormatter={(value) => new Date(String(value)).toLocaleString()}
              formatter={(value) => `${String(value)} %`}
              contentStyle={{ fontSize: 12 }}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {versions.map((version, index) => (
              <Line
                key={version}
                type="monotone"
                dataKey={`v${version}`}
                name={`v${version}`}
                stroke={colour(index)}
                strokeWidth={2}
                dot={data.length < 3}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** A failing field's label on two lines: the field, then its issue code (narrow screens keep room for the bars). */
function FieldTick({ x, y, payload }: { x?: number | string; y?: number | string; payload?: { value?: unknown } }) {
  const [field, code] = String(payload?.value ?? '').split(': ');
  return (
    <text x={Number(x)} y={Number(y)} textAnchor="end" fontSize={10} fill="currentColor">
      <tspan x={Number(x)} dy="-0.2em">
        {field}
      </tspan>
      <tspan x={Number(x)} dy="1.1em" opacity={0.7}>
        {code}
      </tspan>
    </text>
  );
}

/** The fields that failed most (field:issue code), per version. */
export function TopFieldsChart({
  fields,
  versions,
  testId,
}: {
  fields: FieldCount[];
  versions: number[];
  testId: string;
}) {
  if (fields.length === 0)
    return (
      <p className="text-xs text-zinc-500" data-testid={`${testId}-empty`}>
        No field failed in this window.
      </p>
    );
  const rows = new Map<string, Record<string, number | string>>();
  for (const item of fields) {
    const key = `${item.field}: ${item.code}`;
    const row = rows.get(key) ?? { field: key };
    row[`v${item.version}`] = item.count;
    rows.set(key, row);
  }
  const data = [...rows.values()];
  return (
    <figure data-testid={testId} className="text-zinc-600 dark:text-zinc-300">
      <figcaption className="mb-1 text-xs font-medium">Top failing fields (attempts)</figcaption>
      <div className="w-full" style={{ height: `${Math.max(8, data.length * 2.5 + 3)}rem` }}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} layout="vertical" margin={{ top: 4, right: 8, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
            <XAxis type="number" tick={AXIS} allowDecimals={false} />
            <YAxis type="category" dataKey="field" tick={<FieldTick />} width={160} interval={0} />
            <Tooltip contentStyle={{ fontSize: 12 }} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {versions.map((version, index) => (
              <Bar
                key={version}
                dataKey={`v${version}`}
                name={`v${version}`}
                fill={colour(index)}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
