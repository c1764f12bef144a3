/** The Contracts page's measurement windows (`?window=` in its URL), each with its chart bucket. */
export const MEASUREMENT_WINDOWS = {
  '1h': { label: '1 h', ms: 3_600_000, bucket: '5 minutes' },
  '24h': { label: '24 h', ms: 86_400_000, bucket: '1 hour' },
  '7d': { label: '7 d', ms: 7 * 86_400_000, bucket: '6 hours' },
  '30d': { label: '30 d', ms: 30 * 86_400_000, bucket: '1 day' },
} as const;

export type MeasurementWindow = keyof typeof MEASUREMENT_WINDOWS;

export const DEFAULT_WINDOW: MeasurementWindow = '24h';

/** The window a URL names, or the default for anything else. */
export function measurementWindow(value: unknown): MeasurementWindow {
  return typeof value === 'string' && Object.hasOwn(MEASUREMENT_WINDOWS, value)
    ? (value as MeasurementWindow)
    : DEFAULT_WINDOW;
}
