/** A measured time for people: "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min"; "—" where nothing was measured. */
export function durationWords(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 1_440) return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return `${Math.floor(minutes / 1_440)} d ${Math.floor((minutes % 1_440) / 60)} h`;
}

/** 0.985 → "98.5 %". */
export function percentWords(rate: number): string {
  return `${Math.round(rate * 1000) / 10} %`;
}

/** What brought the person to the proposal, in words. */
export const CHANNEL_WORDS: Record<string, string> = {
  notification: 'A notification link',
  queue: 'The queue (preview or approve dialog)',
  page: 'The proposal page, opened directly',
  api: 'The operator API (the proposal read with a session)',
  unknown: 'Never served to the person before deciding (counted as zero dwell)',
};
